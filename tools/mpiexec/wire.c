/* Encoding and blocking I/O of launcher messages, and the TCP helpers (see wire.h). */
#include "wire.h"
#include "runtime/bootstrap_addr.h"
#include "runtime/bootstrap_proto.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void wbuf_bytes(wbuf_t *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) {
            perror("mpiexec");
            exit(1);
        }
        b->data = d;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
}

void wbuf_u32(wbuf_t *b, uint32_t v)
{
    wbuf_bytes(b, &v, sizeof v);
}

void wbuf_str(wbuf_t *b, const char *s)
{
    size_t n = strlen(s);
    wbuf_u32(b, (uint32_t)n);
    wbuf_bytes(b, s, n);
}

void wbuf_strs(wbuf_t *b, char *const *s, int n)
{
    wbuf_u32(b, (uint32_t)n);
    for (int i = 0; i < n; i++)
        wbuf_str(b, s[i]);
}

void wbuf_free(wbuf_t *b)
{
    free(b->data);
    *b = (wbuf_t){ 0 };
}

uint32_t rbuf_u32(rbuf_t *r)
{
    uint32_t v = 0;
    if (r->left < sizeof v) {
        r->bad = 1;
        return 0;
    }
    memcpy(&v, r->p, sizeof v);
    r->p += sizeof v;
    r->left -= sizeof v;
    return v;
}

char *rbuf_str(rbuf_t *r)
{
    uint32_t n = rbuf_u32(r);
    if (n > r->left) {
        r->bad = 1;
        n = 0;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        perror("mpiexec");
        exit(1);
    }
    memcpy(s, r->p, n);
    s[n] = '\0';
    r->p += n;
    r->left -= n;
    return s;
}

char **rbuf_strs(rbuf_t *r, int *n)
{
    uint32_t count = rbuf_u32(r);
    /* Each string takes at least its 4-byte length: a bigger count is garbage. */
    if (r->bad || count > r->left / 4) {
        r->bad = 1;
        return NULL;
    }
    char **v = calloc((size_t)count + 1, sizeof(char *));
    if (!v) {
        perror("mpiexec");
        exit(1);
    }
    for (uint32_t i = 0; i < count; i++)
        v[i] = rbuf_str(r);
    *n = (int)count;
    return v;
}

int wire_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
    empi_boot_hdr_t hdr = { type, (uint32_t)(alen + blen) };
    if (empi_boot_send_all(fd, &hdr, sizeof hdr) != 0 || (alen && empi_boot_send_all(fd, a, alen) != 0) ||
        (blen && empi_boot_send_all(fd, b, blen) != 0))
        return -1;
    return 0;
}

int wire_recv(int fd, uint32_t *type, unsigned char **payload, uint32_t *len)
{
    empi_boot_hdr_t hdr;
    if (empi_boot_recv_all(fd, &hdr, sizeof hdr) != 0 || hdr.len > EMPI_BOOT_MAX_MSG)
        return -1;
    unsigned char *p = malloc((size_t)hdr.len + 1);
    if (!p)
        return -1;
    if (empi_boot_recv_all(fd, p, hdr.len) != 0) {
        free(p);
        return -1;
    }
    p[hdr.len] = '\0';
    *type = hdr.type;
    *payload = p;
    *len = hdr.len;
    return 0;
}

int wire_listen_tcp(const char *ip, int port, char *addr, size_t addrlen)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
        fprintf(stderr, "mpiexec: '%s' is not an IPv4 address to listen on\n", ip);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    socklen_t salen = sizeof sa;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &salen) != 0) {
        fprintf(stderr, "mpiexec: cannot listen on %s:%d: %s\n", ip, port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    snprintf(addr, addrlen, "tcp:%s:%d", ip, ntohs(sa.sin_port));
    return fd;
}

int wire_route_to(const char *host, char *ip, size_t iplen)
{
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM }, *res;
    int rc = getaddrinfo(host, "9", &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "mpiexec: cannot resolve host '%s': %s\n", host, gai_strerror(rc));
        return -1;
    }
    /* Connecting a UDP socket sends nothing; it only asks the kernel for the route's source. */
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in local;
    socklen_t len = sizeof local;
    int ok = fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
             getsockname(fd, (struct sockaddr *)&local, &len) == 0 &&
             inet_ntop(AF_INET, &local.sin_addr, ip, (socklen_t)iplen);
    if (!ok)
        fprintf(stderr, "mpiexec: no route to host '%s': %s\n", host, strerror(errno));
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
    return ok ? 0 : -1;
}
