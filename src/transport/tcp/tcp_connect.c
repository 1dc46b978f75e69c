/*
 * Connection setup. Every rank with peers on other hosts listens on an ephemeral port and publishes
 * an address record through the bootstrap; a connection to a peer is made at the first send to it
 * (or for all peers at once with EMPI_TCP_EAGER_CONNECT).
 *
 * Handshake: the connecting side sends a hello (its rank and the target's secret token from the
 * record); the target answers with a verdict. When two ranks connect to each other at the same
 * time, the connection made by the lower rank wins: the higher rank accepts the lower rank's hello
 * and drops its own attempt, while the lower rank refuses the higher rank's hello and keeps its own.
 * No packet is written before the verdict, so the losing connection never carries data.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/error.h"
#include "core/tunables.h"
#include "mpi.h"
#include "runtime/procs.h"
#include "transport/net_addr.h"
#include "transport/net_select.h"
#include "transport/tcp/tcp_internal.h"

#define TCP_CONNECT_TIMEOUT_MS 20000

/* What a rank publishes under the key "tcp". */
typedef struct tcp_record {
    uint64_t token;
    uint16_t port;    /* network byte order */
    empi_net_card_t where;
} tcp_record_t;

static void tune_socket(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int snd = (int)empi_tunables.tcp_sndbuf, rcv = (int)empi_tunables.tcp_rcvbuf;
    if (snd > 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, sizeof snd);
    if (rcv > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
}

int tcp_listen_and_publish(void)
{
    tcp_record_t rec;
    memset(&rec, 0, sizeof rec);
    if (empi_net_card_fill(&rec.where) != 0)
        return EMPI_ERROR;
    if (getrandom(&rec.token, sizeof rec.token, 0) != (ssize_t)sizeof rec.token)
        return EMPI_ERROR;
    tcp.token = rec.token;

    tcp.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (tcp.listen_fd < 0)
        return EMPI_ERROR;
    tune_socket(tcp.listen_fd); /* accepted connections inherit the buffer sizes */
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t salen = sizeof sa;
    if (bind(tcp.listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(tcp.listen_fd, SOMAXCONN) != 0 ||
        getsockname(tcp.listen_fd, (struct sockaddr *)&sa, &salen) != 0) {
        fprintf(stderr, "EtherMPI: rank %d: cannot listen for tcp connections: %s\n", tcp.me, strerror(errno));
        return EMPI_ERROR;
    }
    rec.port = sa.sin_port;
    tcp_epoll_add(tcp.listen_fd, -1);
    return empi_boot_put("tcp", &rec, sizeof rec) == 0 ? EMPI_OK : EMPI_ERROR;
}

static _Noreturn void connect_failed(int peer, const struct sockaddr_in *sa, const char *what, int err)
{
    char msg[256], ip[INET_ADDRSTRLEN] = "?";
    if (sa)
        inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof ip);
    snprintf(msg, sizeof msg, "rank %d cannot connect to rank %d at %s:%d over tcp: %s%s%s", tcp.me, peer, ip,
             sa ? ntohs(sa->sin_port) : 0, what, err ? ": " : "", err ? strerror(err) : "");
    empi_fatal(MPI_ERR_OTHER, msg);
}

/* A nonblocking connect waited for in place: the kernel completes it without the peer's help. */
static int connect_with_timeout(int fd, const struct sockaddr_in *sa)
{
    if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0)
        return 0;
    if (errno != EINPROGRESS)
        return errno;
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    int rc;
    while ((rc = poll(&pfd, 1, TCP_CONNECT_TIMEOUT_MS)) < 0 && errno == EINTR)
        ;
    if (rc == 0)
        return ETIMEDOUT;
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    return err;
}

int tcp_connect_start(int peer)
{
    tcp_record_t rec;
    size_t len = 0;
    if (empi_boot_get(peer, "tcp", &rec, sizeof rec, &len) != 0 || len != sizeof rec ||
        !empi_net_card_valid(&rec.where))
        connect_failed(peer, NULL, "it published no tcp address", 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = rec.port};
    sa.sin_addr.s_addr = empi_net_card_pick(&rec.where);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        connect_failed(peer, &sa, "socket", errno);
    tune_socket(fd);
    int err = connect_with_timeout(fd, &sa);
    if (err)
        connect_failed(peer, &sa, "connect", err);
    tcp_hello_t hello = {.magic = TCP_MAGIC, .rank = (uint32_t)tcp.me, .token = rec.token, .job = empi_procs_job(tcp.me)};
    /* A fresh socket's buffer always takes a hello whole. */
    if (send(fd, &hello, sizeof hello, MSG_NOSIGNAL) != (ssize_t)sizeof hello)
        connect_failed(peer, &sa, "hello", errno);
    tcp_peer_t *p = &tcp.peers[peer];
    p->fd = fd;
    p->state = TCP_CONNECTING;
    p->verdict_got = 0;
    tcp.handshakes++;
    tcp_epoll_add(fd, peer);
    if (empi_tunables.debug >= 1)
        fprintf(stderr, "EtherMPI: rank %d: tcp connecting to rank %d\n", tcp.me, peer);
    return EMPI_OK;
}

void tcp_connect_all(void)
{
    /* Only towards higher ranks: lower ones connect to us, so no pair races. */
    for (int r = tcp.me + 1; r < tcp.size; r++)
        if (tcp.peers[r].state == TCP_NONE && empi_net_uses_tcp(r))
            tcp_connect_start(r);
}

void tcp_accept_ready(void)
{
    for (;;) {
        int fd = accept4(tcp.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (tcp.nstrangers == tcp.strangers_cap) {
            int cap = tcp.strangers_cap ? 2 * tcp.strangers_cap : 8;
            tcp_stranger_t *s = realloc(tcp.strangers, sizeof *s * (size_t)cap);
            if (!s) {
                close(fd);
                return;
            }
            tcp.strangers = s;
            tcp.strangers_cap = cap;
        }
        tcp.strangers[tcp.nstrangers++] = (tcp_stranger_t){.fd = fd};
        tcp.handshakes++;
        tcp_epoll_add(fd, -2 - fd);
    }
}

static void drop_stranger(int i, int close_fd)
{
    if (close_fd)
        close(tcp.strangers[i].fd);
    tcp.strangers[i] = tcp.strangers[--tcp.nstrangers];
    tcp.handshakes--;
}

int tcp_is_foreign(int peer)
{
    return peer >= tcp.world;
}

/* Accept or refuse the hello of `peer` by the lower-rank-wins rule (ranks of two jobs: procs.h's order). */
static int hello_wins(int peer)
{
    switch (tcp.peers[peer].state) {
    case TCP_NONE:
    case TCP_WAITING: return 1;
    case TCP_CONNECTING: return empi_procs_before(peer, tcp.me);
    default: return 0;
    }
}

int tcp_stranger_ready(int fd)
{
    int i = 0;
    while (i < tcp.nstrangers && tcp.strangers[i].fd != fd)
        i++;
    if (i == tcp.nstrangers)
        return 0;
    tcp_stranger_t *s = &tcp.strangers[i];
    ssize_t n = recv(fd, (char *)&s->hello + s->got, sizeof s->hello - s->got, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 1;
    if (n <= 0) {
        drop_stranger(i, 1); /* a losing attempt closed by its owner, or a stray connection */
        return 1;
    }
    s->got += (size_t)n;
    if (s->got < sizeof s->hello)
        return 1;
    tcp_hello_t h = s->hello;
    int peer = h.magic == TCP_MAGIC && h.token == tcp.token && h.rank <= INT32_MAX ? empi_procs_find(h.job, (int)h.rank) : -1;
    if (peer < 0 || peer >= tcp.size || peer == tcp.me) {
        drop_stranger(i, 1); /* from no process we know */
        return 1;
    }
    tcp_verdict_t v = {.magic = TCP_MAGIC, .accepted = (uint32_t)hello_wins(peer)};
    if (send(fd, &v, sizeof v, MSG_NOSIGNAL) != (ssize_t)sizeof v)
        v.accepted = 0;
    drop_stranger(i, !v.accepted);
    if (!v.accepted)
        return 1;
    tcp_peer_t *p = &tcp.peers[peer];
    if (p->state == TCP_CONNECTING || p->state == TCP_WAITING) {
        if (p->state == TCP_CONNECTING)
            close(p->fd); /* our attempt lost; it never carried data */
        tcp.handshakes--;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)(uint32_t)peer};
    epoll_ctl(tcp.epfd, EPOLL_CTL_MOD, fd, &ev);
    tcp_mark_up(peer, fd);
    return 1;
}

void tcp_verdict_ready(int peer)
{
    tcp_peer_t *p = &tcp.peers[peer];
    ssize_t n = recv(p->fd, (char *)&p->verdict + p->verdict_got, sizeof p->verdict - p->verdict_got, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        tcp_peer_lost(peer, "closed during connection setup");
        return;
    }
    p->verdict_got += (size_t)n;
    if (p->verdict_got < sizeof p->verdict)
        return;
    if (p->verdict.magic != TCP_MAGIC) {
        tcp_peer_lost(peer, "answered the handshake with garbage");
        return;
    }
    if (!p->verdict.accepted) {
        /* Its own connection to us wins; it arrives through the listener. */
        close(p->fd);
        p->fd = -1;
        p->state = TCP_WAITING;
        return;
    }
    tcp.handshakes--;
    tcp_mark_up(peer, p->fd);
}

void tcp_peer_lost(int peer, const char *why)
{
    tcp_peer_t *p = &tcp.peers[peer];
    if (p->state == TCP_DEAD)
        return;
    /* A process of another job closes its connections when it finalizes, which ends nothing here;
       one that did not say so died, which ends this job if they are still connected. */
    int foreign = tcp_is_foreign(peer);
    if (foreign && !p->said_goodbye)
        empi_procs_lost(peer, why);
    if (!foreign || empi_tunables.debug >= 1)
        fprintf(stderr, "EtherMPI: rank %d: tcp connection to %s %d %s\n", tcp.me, foreign ? "process" : "rank", peer,
                why);
    if (p->state == TCP_CONNECTING || p->state == TCP_WAITING)
        tcp.handshakes--;
    if (p->polled >= 0) {
        int last = tcp.polled[--tcp.npolled];
        tcp.polled[p->polled] = last;
        tcp.peers[last].polled = p->polled;
        p->polled = -1;
    }
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    p->state = foreign ? TCP_NONE : TCP_DEAD;
    tcp_backlog_free(p); /* p->in stays: a packet in it may be being delivered right now */
    tcp.ndead += !foreign;
}

void tcp_say_goodbye(void)
{
    static const uint64_t bye = TCP_GOODBYE;
    for (int r = tcp.world; tcp.peers && r < tcp.size; r++) {
        tcp_peer_t *p = &tcp.peers[r];
        if (p->state != TCP_UP)
            continue;
        /* the backlog is empty at finalize: 8 bytes go whole unless the peer stopped reading */
        struct pollfd pfd = {.fd = p->fd, .events = POLLOUT};
        if (poll(&pfd, 1, 1000) == 1)
            (void)!send(p->fd, &bye, sizeof bye, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
}

void tcp_close_all(void)
{
    for (int r = 0; tcp.peers && r < tcp.size; r++) {
        tcp_peer_t *p = &tcp.peers[r];
        if (p->fd >= 0)
            close(p->fd);
        tcp_backlog_free(p);
        free(p->in);
    }
    for (int i = 0; i < tcp.nstrangers; i++)
        close(tcp.strangers[i].fd);
    if (tcp.listen_fd >= 0)
        close(tcp.listen_fd);
    if (tcp.epfd >= 0)
        close(tcp.epfd);
    free(tcp.strangers);
    free(tcp.peers);
    free(tcp.polled);
    free(tcp.backlogged);
}
