/*
 * The tcp transport (RC-like): one connection per pair of ranks on different hosts, made at first
 * use, TCP_NODELAY, nonblocking sockets polled by the progress engine. With few connections each
 * pass reads them directly (one recv per peer, the cheapest way to notice a message); beyond
 * EMPI_TCP_POLL_DIRECT connections, or to catch new connections and handshakes, one epoll_wait
 * with a zero timeout finds the ready ones. The same epoll descriptor is what an idle process
 * sleeps on (wait_fd). Design and measurements: docs/NETWORK.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/global.h"
#include "core/tunables.h"
#include "mpi.h"
#include "transport/net_select.h"
#include "transport/tcp/tcp_internal.h"

#define TCP_EPOLL_BATCH 64
#define TCP_LISTEN_CHECK_MASK 63 /* with only direct polling, look for new connections every 64 passes */
#define TCP_DEAD_GRACE_SECONDS 30.0

tcp_state_all_t tcp;

static int tcp_finalize(void);

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tcp_epoll_add(int fd, int tag)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)(uint32_t)tag};
    epoll_ctl(tcp.epfd, EPOLL_CTL_ADD, fd, &ev);
}

void tcp_mark_up(int peer, int fd)
{
    tcp_peer_t *p = &tcp.peers[peer];
    p->fd = fd;
    p->state = TCP_UP;
    p->in_len = 0; /* a previous connection's partial frame (processes of other jobs reconnect) */
    p->said_goodbye = 0;
    p->polled = tcp.npolled;
    tcp.polled[tcp.npolled++] = peer;
    if (empi_tunables.debug >= 1)
        fprintf(stderr, "EtherMPI: rank %d: tcp connection to rank %d is up\n", tcp.me, peer);
    tcp_flush(peer);
}

/* Room for peers [0, n): the per-peer arrays grow and the new entries start unconnected. */
static int reserve(int n)
{
    tcp_peer_t *peers = realloc(tcp.peers, sizeof *peers * (size_t)n);
    if (peers)
        tcp.peers = peers;
    int *polled = realloc(tcp.polled, sizeof(int) * (size_t)n);
    if (polled)
        tcp.polled = polled;
    int *backlogged = realloc(tcp.backlogged, sizeof(int) * (size_t)n);
    if (backlogged)
        tcp.backlogged = backlogged;
    if (!peers || !polled || !backlogged)
        return EMPI_ERROR;
    for (int r = tcp.size; r < n; r++)
        tcp.peers[r] = (tcp_peer_t){.fd = -1, .polled = -1};
    tcp.size = n;
    return EMPI_OK;
}

static int start(int n)
{
    tcp.active = 1;
    if (reserve(n) != EMPI_OK)
        return EMPI_ERROR;
    tcp.epfd = epoll_create1(EPOLL_CLOEXEC);
    return tcp.epfd < 0 ? EMPI_ERROR : tcp_listen_and_publish();
}

static int tcp_init(const empi_boot_info_t *boot, empi_deliver_fn deliver)
{
    memset(&tcp, 0, sizeof tcp);
    tcp.me = boot->rank;
    tcp.world = boot->size;
    tcp.deliver = deliver;
    tcp.epfd = tcp.listen_fd = -1;
    size_t max_packet = empi_tunables.tcp_max_packet;
    empi_transport_tcp.max_packet = max_packet < 4096 ? 4096 : max_packet;

    int needed = 0;
    for (int r = 0; r < boot->size && !needed; r++)
        needed = empi_net_uses_tcp(r);
    if (!needed)
        return EMPI_OK;
    if (start(boot->size) != EMPI_OK) {
        tcp_finalize();
        return EMPI_ERROR;
    }
    /* Peers' records become readable at MPI_Init's closing fence: connect at the first pass after it. */
    tcp.eager_connect_due = empi_tunables.tcp_eager_connect;
    return EMPI_OK;
}

/* Processes of other jobs joined (runtime/procs.h): reach indices below `total`, listening first if
   this job had no tcp peers of its own. */
static int tcp_add_peers(int total)
{
    if (!tcp.active)
        return start(total);
    return total > tcp.size ? reserve(total) : EMPI_OK;
}

static int tcp_finalize(void)
{
    tcp_say_goodbye();
    tcp_close_all();
    memset(&tcp, 0, sizeof tcp);
    tcp.epfd = tcp.listen_fd = -1;
    return EMPI_OK;
}

static int tcp_reaches(int peer)
{
    return tcp.active && peer >= 0 && peer < tcp.size && (peer >= tcp.world || empi_net_uses_tcp(peer));
}

static int poll_events(int direct)
{
    struct epoll_event evs[TCP_EPOLL_BATCH];
    int n = epoll_wait(tcp.epfd, evs, TCP_EPOLL_BATCH, 0);
    int delivered = 0;
    for (int i = 0; i < n; i++) {
        int tag = (int)(uint32_t)evs[i].data.u64;
        if (tag == -1) {
            tcp_accept_ready();
        } else if (tag < -1) {
            tcp_stranger_ready(-2 - tag);
        } else if (tcp.peers[tag].state == TCP_CONNECTING) {
            tcp_verdict_ready(tag);
        } else if (tcp.peers[tag].state == TCP_UP && !direct) {
            delivered += tcp_read_peer(tag);
        }
    }
    return delivered;
}

static void check_dead_peers(void)
{
    double now = now_seconds();
    if (tcp.dead_since == 0)
        tcp.dead_since = now;
    else if (now - tcp.dead_since > TCP_DEAD_GRACE_SECONDS)
        empi_fatal(MPI_ERR_OTHER, "tcp transport: a peer went away and the job was not ended");
}

static int tcp_progress(void)
{
    if (!tcp.active || tcp.in_progress)
        return 0;
    tcp.in_progress = 1;
    int events = 0;
    if (EMPI_UNLIKELY(tcp.eager_connect_due)) {
        tcp.eager_connect_due = 0;
        tcp_connect_all();
    }
    if (tcp.nbacklogged)
        events += tcp_flush_all();
    int direct = tcp.npolled <= empi_tunables.tcp_poll_direct;
    if (direct)
        for (int i = 0; i < tcp.npolled; i++)
            events += tcp_read_peer(tcp.polled[i]);
    if (!direct || tcp.handshakes || (++tcp.passes & TCP_LISTEN_CHECK_MASK) == 0)
        events += poll_events(direct);
    if (EMPI_UNLIKELY(tcp.ndead))
        check_dead_peers();
    tcp.in_progress = 0;
    return events;
}

/* Idle: sleep on the epoll set, unless output waits for socket space or setup work is due. */
static int tcp_wait_fd(void)
{
    if (!tcp.active)
        return EMPI_WAIT_NOTHING;
    if (tcp.nbacklogged || tcp.eager_connect_due || tcp.ndead)
        return EMPI_WAIT_POLL;
    return tcp.epfd;
}

static size_t tcp_pending(void)
{
    return tcp.backlog_bytes;
}

empi_transport_t empi_transport_tcp = {
    .name = "tcp",
    .max_packet = 0,
    .has_get = 0,
    .init = tcp_init,
    .finalize = tcp_finalize,
    .reaches = tcp_reaches,
    .progress = tcp_progress,
    .am_send = tcp_am_send,
    .get = NULL,
    .wait_fd = tcp_wait_fd,
    .pending = tcp_pending,
    .add_peers = tcp_add_peers,
};
