/* Connecting to the bootstrap server by address, and whole-message socket I/O (bootstrap_addr.h). */
#include "runtime/bootstrap_addr.h"
#include "runtime/bootstrap_proto.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int empi_boot_send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        /* MSG_NOSIGNAL: a vanished peer must show up as an error, not SIGPIPE. */
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int empi_boot_recv_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int parse_tcp(const char *s, struct sockaddr_in *sa)
{
    char ip[INET_ADDRSTRLEN];
    const char *colon = strrchr(s, ':');
    if (!colon || (size_t)(colon - s) >= sizeof ip)
        return -1;
    memcpy(ip, s, (size_t)(colon - s));
    ip[colon - s] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port <= 0 || port > 65535 || inet_pton(AF_INET, ip, &sa->sin_addr) != 1)
        return -1;
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    return 0;
}

int empi_boot_addr_connect(const char *addr)
{
    union {
        struct sockaddr_un un;
        struct sockaddr_in in;
    } sa;
    socklen_t len;
    memset(&sa, 0, sizeof sa);
    if (!strncmp(addr, EMPI_BOOT_ADDR_UNIX, strlen(EMPI_BOOT_ADDR_UNIX))) {
        /* "@name": an abstract socket name (sun_path starts with a NUL, the length ends it) */
        const char *path = addr + strlen(EMPI_BOOT_ADDR_UNIX);
        int abstract = path[0] == '@';
        if (strlen(path) >= sizeof sa.un.sun_path) {
            errno = ENAMETOOLONG;
            return -1;
        }
        sa.un.sun_family = AF_UNIX;
        memcpy(sa.un.sun_path + abstract, path + abstract, strlen(path + abstract));
        len = abstract ? (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path)) : sizeof sa.un;
    } else if (!strncmp(addr, EMPI_BOOT_ADDR_TCP, strlen(EMPI_BOOT_ADDR_TCP)) &&
               parse_tcp(addr + strlen(EMPI_BOOT_ADDR_TCP), &sa.in) == 0) {
        len = sizeof sa.in;
    } else {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(sa.un.sun_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, len) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    if (sa.un.sun_family == AF_INET) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}
