/*
 * Ports. MPI_Open_port listens on a TCP socket of its own; the port name carries a random nonce,
 * every address of this host and the port number:  empi:<nonce>@<ip>[,<ip>...]:<port>
 * A connecting root sends the nonce first, so a stray connection is told apart and dropped.
 * Accepting and connecting block (the standard's semantics) but keep progress running.
 */
#include "comm/dyn.h"
#include "core/clock.h"
#include "core/global.h"
#include "core/progress.h"
#include "transport/net_addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PORT_MAGIC 0x504d4545u /* "EEMP" */
#define CONNECT_TIMEOUT_MS 20000

typedef struct port {
    struct port *next;
    int fd;
    uint64_t nonce;
    char name[MPI_MAX_PORT_NAME];
} port_t;

static port_t *ports;

typedef struct knock {
    uint32_t magic;
    uint32_t reserved;
    uint64_t nonce;
} knock_t;

/* One step of a wait: a progress pass, and when it found nothing, a short sleep on the descriptors
   with the library lock released so other threads (and peers sharing our core) run. */
static int wait_fds(struct pollfd *pfds, nfds_t n)
{
    if (empi_progress_poll() > 0)
        return 0;
    empi_unlock();
    int rc = poll(pfds, n, 1);
    empi_lock();
    return rc;
}

static int wait_step(int fd, short events)
{
    struct pollfd pfd = {.fd = fd, .events = events};
    return wait_fds(&pfd, 1);
}

int empi_dyn_sock_swap(int fd, const void *mine, size_t mine_len, void *theirs, size_t theirs_len)
{
    size_t sent = 0, got = 0;
    while (sent < mine_len || got < theirs_len) {
        if (sent < mine_len) {
            ssize_t n = send(fd, (const char *)mine + sent, mine_len - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n > 0)
                sent += (size_t)n;
            else if (n < 0 && errno != EAGAIN && errno != EINTR)
                return MPI_ERR_OTHER;
        }
        if (got < theirs_len) {
            ssize_t n = recv(fd, (char *)theirs + got, theirs_len - got, MSG_DONTWAIT);
            if (n > 0)
                got += (size_t)n;
            else if (n == 0 || (errno != EAGAIN && errno != EINTR))
                return MPI_ERR_OTHER;
        }
        if (sent < mine_len || got < theirs_len)
            wait_step(fd, (short)((got < theirs_len ? POLLIN : 0) | (sent < mine_len ? POLLOUT : 0)));
    }
    return MPI_SUCCESS;
}

static port_t *find_port(const char *name)
{
    port_t *p = ports;
    while (p && strcmp(p->name, name) != 0)
        p = p->next;
    return p;
}

int empi_dyn_port_open(char name[MPI_MAX_PORT_NAME])
{
    empi_net_card_t where;
    int have_addr = empi_net_card_fill(&where) == 0;
    port_t *p = calloc(1, sizeof *p);
    if (!have_addr || !p) {
        free(p);
        return !have_addr ? MPI_ERR_OTHER : MPI_ERR_NO_MEM;
    }
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t salen = sizeof sa;
    p->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (p->fd < 0 || bind(p->fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(p->fd, 16) != 0 ||
        getsockname(p->fd, (struct sockaddr *)&sa, &salen) != 0 ||
        getrandom(&p->nonce, sizeof p->nonce, 0) != (ssize_t)sizeof p->nonce) {
        if (p->fd >= 0)
            close(p->fd);
        free(p);
        return MPI_ERR_OTHER;
    }
    int len = snprintf(p->name, sizeof p->name, "empi:%016" PRIx64 ".%016" PRIx64 "@", p->nonce, where.stack);
    for (int i = 0; i < where.naddrs; i++) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &where.addrs[i], ip, sizeof ip);
        len += snprintf(p->name + len, sizeof p->name - (size_t)len, "%s%s", i ? "," : "", ip);
    }
    snprintf(p->name + len, sizeof p->name - (size_t)len, ":%u", (unsigned)ntohs(sa.sin_port));
    p->next = ports;
    ports = p;
    memcpy(name, p->name, sizeof p->name);
    return MPI_SUCCESS;
}

int empi_dyn_port_close(const char *name)
{
    for (port_t **pp = &ports; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->name, name) == 0) {
            port_t *p = *pp;
            *pp = p->next;
            close(p->fd);
            free(p);
            return MPI_SUCCESS;
        }
    return MPI_ERR_PORT;
}

static int child_gone(pid_t watch)
{
    int status;
    return watch > 0 && waitpid(watch, &status, WNOHANG) == watch;
}

/*
 * Fresh connections wait for their knock side by side: one that sends nothing (a port scanner, a
 * stray telnet) must not hold up the real ones behind it, as it did for the 20 s of its timeout.
 */
#define KNOCKING_MAX 16

typedef struct knocking {
    int fd;
    size_t got;
    knock_t k;
    uint64_t since_ns;
} knocking_t;

static void drop_knocking(knocking_t *kn, int *n, int i)
{
    close(kn[i].fd);
    kn[i] = kn[--*n];
}

/* Read what knock bytes have come: 1 when it is complete and carries `nonce`, -1 when the
   connection is not (or no longer) worth waiting for, 0 to wait on. */
static int read_knock(knocking_t *x, uint64_t nonce, uint64_t now)
{
    while (x->got < sizeof x->k) {
        ssize_t n = recv(x->fd, (char *)&x->k + x->got, sizeof x->k - x->got, MSG_DONTWAIT);
        if (n > 0)
            x->got += (size_t)n;
        else if (n == 0 || (errno != EAGAIN && errno != EINTR))
            return -1;
        else
            return now - x->since_ns > (uint64_t)CONNECT_TIMEOUT_MS * 1000000u ? -1 : 0;
    }
    return x->k.magic == PORT_MAGIC && x->k.nonce == nonce ? 1 : -1;
}

int empi_dyn_port_accept(const char *name, pid_t watch, int *fd)
{
    port_t *p = find_port(name);
    if (!p)
        return MPI_ERR_PORT;
    knocking_t kn[KNOCKING_MAX];
    int nkn = 0, rc = MPI_SUCCESS;
    *fd = -1;
    while (*fd < 0 && rc == MPI_SUCCESS) {
        int c;
        while ((c = accept4(p->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
            if (nkn == KNOCKING_MAX) { /* the longest waiting goes */
                int oldest = 0;
                for (int i = 1; i < nkn; i++)
                    oldest = kn[i].since_ns < kn[oldest].since_ns ? i : oldest;
                drop_knocking(kn, &nkn, oldest);
            }
            kn[nkn++] = (knocking_t){.fd = c, .since_ns = empi_now_ns()};
        }
        if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
            rc = MPI_ERR_OTHER;
            break;
        }
        uint64_t now = empi_now_ns();
        for (int i = 0; i < nkn && *fd < 0;) {
            int r = read_knock(&kn[i], p->nonce, now);
            if (r > 0) {
                *fd = kn[i].fd;
                kn[i] = kn[--nkn];
            } else if (r < 0) {
                drop_knocking(kn, &nkn, i); /* not someone who was given this port's name */
            } else {
                i++;
            }
        }
        if (*fd >= 0)
            break;
        if (child_gone(watch)) {
            rc = MPI_ERR_SPAWN;
            break;
        }
        struct pollfd pfds[KNOCKING_MAX + 1];
        pfds[0] = (struct pollfd){.fd = p->fd, .events = POLLIN};
        for (int i = 0; i < nkn; i++)
            pfds[i + 1] = (struct pollfd){.fd = kn[i].fd, .events = POLLIN};
        wait_fds(pfds, (nfds_t)nkn + 1);
    }
    while (nkn > 0)
        drop_knocking(kn, &nkn, 0);
    if (*fd >= 0) {
        int one = 1;
        setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return rc;
}

/* "empi:<nonce>.<network stack>@<ip>,<ip>:<port>" -> its parts; 0 on success. */
static int parse_name(const char *name, uint64_t *nonce, empi_net_card_t *where, uint16_t *port)
{
    char buf[MPI_MAX_PORT_NAME];
    if (strncmp(name, "empi:", 5) != 0 || strlen(name) >= sizeof buf)
        return -1;
    strcpy(buf, name + 5);
    char *at = strchr(buf, '@'), *colon = strrchr(buf, ':'), *end;
    if (!at || !colon || colon < at)
        return -1;
    *at = *colon = '\0';
    *nonce = strtoull(buf, &end, 16);
    if (*end != '.')
        return -1;
    where->stack = strtoull(end + 1, &end, 16);
    if (end != at)
        return -1;
    unsigned long pn = strtoul(colon + 1, &end, 10);
    if (*end || pn == 0 || pn > 65535)
        return -1;
    *port = (uint16_t)pn;
    where->naddrs = 0;
    char *save = NULL;
    for (char *ip = strtok_r(at + 1, ",", &save); ip; ip = strtok_r(NULL, ",", &save)) {
        if (where->naddrs == EMPI_NET_MAX_ADDRS || inet_pton(AF_INET, ip, &where->addrs[where->naddrs]) != 1)
            return -1;
        where->naddrs++;
    }
    return empi_net_card_valid(where) ? 0 : -1;
}

int empi_dyn_port_connect(const char *name, int *fd)
{
    uint64_t nonce;
    empi_net_card_t where;
    uint16_t port;
    if (parse_name(name, &nonce, &where, &port) != 0)
        return MPI_ERR_PORT;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    sa.sin_addr.s_addr = empi_net_card_pick(&where);
    int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c < 0)
        return MPI_ERR_OTHER;
    int rc = connect(c, (struct sockaddr *)&sa, sizeof sa) == 0 || errno == EINPROGRESS ? 0 : -1;
    for (int waited = 0; rc == 0;) {
        struct pollfd pfd = {.fd = c, .events = POLLOUT};
        if (poll(&pfd, 1, 0) == 1)
            break;
        if (wait_step(c, POLLOUT) == 0 && ++waited >= CONNECT_TIMEOUT_MS)
            rc = -1;
    }
    int err = 0;
    socklen_t elen = sizeof err;
    if (rc == 0 && (getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &elen) != 0 || err != 0))
        rc = -1;
    knock_t k = {.magic = PORT_MAGIC, .nonce = nonce};
    if (rc == 0 && empi_dyn_sock_swap(c, &k, sizeof k, NULL, 0) != MPI_SUCCESS)
        rc = -1;
    if (rc != 0) {
        close(c);
        return MPI_ERR_PORT;
    }
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    *fd = c;
    return MPI_SUCCESS;
}
