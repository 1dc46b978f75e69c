/*
 * The UDP transport (UD-like): one datagram socket per process whatever the job size, reliability
 * of our own (udp_conn.h) and segmentation of packets larger than a datagram. This file holds the
 * transport operations: set-up and address exchange through the bootstrap, the receive loop that
 * feeds the reliability machinery, loss injection, and the progress-driven timers, so a rank that
 * waits inside MPI keeps retransmitting and acknowledging without any thread.
 *
 * The receive loop reads each datagram with its header into one buffer and its payload straight
 * into the reassembly buffer of the packet most recently under way (the likely next datagram of a
 * large transfer); a datagram that turns out to belong elsewhere spills into a staging buffer and
 * is copied where it belongs, so the guess costs nothing when wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/copy.h"
#include "core/global.h"
#include "core/tunables.h"
#include "transport/net_addr.h"
#include "transport/net_select.h"
#include "transport/transport.h"
#include "transport/udp/udp_sock.h"

#define UDP_RX_BURST 64          /* datagrams read per progress pass before timers run */
#define UDP_STAGING (UDP_MAX_DATAGRAM + 64)
#define UDP_RTO_INIT_NS 5000000u /* before the first round-trip sample */

/* What each rank publishes under the bootstrap key "udp". */
typedef struct udp_card {
    uint16_t port;
    empi_net_card_t where;
} udp_card_t;

static struct {
    int up, fd, size, in_progress;
    int gro;                       /* reads may return several datagrams of one sender (UDP_GRO) */
    unsigned drop_pct;
    uint64_t rng;
    udp_engine_t eng;
    udp_conn_t *conns;             /* world size entries; peer < 0 when udp does not reach it */
    struct sockaddr_in *addrs;     /* world size entries */
    udp_conn_t *guess;             /* conn whose reassembly buffer the next datagram likely fills */
    unsigned char *staging, *bounce;
} U;

/* Loss injection (EMPI_UDP_DROP_RATE): xorshift, seeded per rank so runs are repeatable. */
static int drop_this(void)
{
    U.rng ^= U.rng << 13;
    U.rng ^= U.rng >> 7;
    U.rng ^= U.rng << 17;
    return U.rng % 100 < U.drop_pct;
}

static int xmit(udp_engine_t *e, udp_conn_t *c, udp_dgram_t *d, int n)
{
    (void)e;
    const struct sockaddr_in *to = &U.addrs[c->peer];
    if (!U.drop_pct)
        return udp_sock_sendv(U.fd, to, d, n);
    /* Send the survivors in runs; a dropped datagram counts as sent. */
    int i = 0;
    while (i < n) {
        if (drop_this()) {
            i++;
            continue;
        }
        int run = 1;
        while (i + run < n && !drop_this())
            run++;
        int sent = udp_sock_sendv(U.fd, to, d + i, run);
        if (sent < run)
            return i + (sent > 0 ? sent : 0);
        i += run;
        if (i < n) /* the datagram that ended the run was drawn for dropping */
            i++;
    }
    return n;
}

static uint32_t job_tag(const char *jobid)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = jobid; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    return h;
}

/* Segment payload for a peer reached at `addr`. */
static uint32_t segment_size(uint32_t addr)
{
    uint32_t mtu = empi_tunables.udp_mtu > 0 ? (uint32_t)empi_tunables.udp_mtu : udp_path_mtu(addr);
    uint32_t dgram = mtu > UDP_IP_OVERHEAD ? mtu - UDP_IP_OVERHEAD : 0;
    if (dgram > UDP_MAX_DATAGRAM)
        dgram = UDP_MAX_DATAGRAM;
    /* A multiple of 16, so every segment starts aligned in the reassembly buffer and a packet is
       handed over aligned wherever it was received. */
    uint32_t seg = dgram > sizeof(udp_hdr_t) + 64 ? dgram - (uint32_t)sizeof(udp_hdr_t) : 64;
    return seg & ~15u;
}

static int setup_engine(const empi_boot_info_t *boot, empi_deliver_fn deliver)
{
    udp_engine_t *e = &U.eng;
    e->job = job_tag(boot->jobid);
    e->me = boot->rank;
    e->xmit = xmit;
    e->deliver = deliver;
    e->rto_min = (uint64_t)empi_tunables.udp_rto_min * 1000u;
    e->rto_max = (uint64_t)empi_tunables.udp_rto_max * 1000u;
    if (e->rto_max < e->rto_min)
        e->rto_max = e->rto_min;
    e->rto_init = UDP_RTO_INIT_NS < e->rto_min ? e->rto_min : UDP_RTO_INIT_NS > e->rto_max ? e->rto_max : UDP_RTO_INIT_NS;
    e->ack_delay = (uint64_t)empi_tunables.udp_ack_delay * 1000u;
    e->window_bytes = empi_tunables.udp_window;
    e->max_packet = empi_tunables.udp_max_packet;
    e->first_seq = 0;
    long drop = empi_tunables.udp_drop_rate;
    U.drop_pct = drop < 0 ? 0 : drop > 100 ? 100 : (unsigned)drop;
    U.rng = 0x9e3779b97f4a7c15ull * (uint64_t)(boot->rank + 1);
    return 0;
}

static int udp_progress(void);

/* A rank waiting in a bootstrap fence keeps acknowledging and retransmitting (see pending()). */
static void fence_hook(void)
{
    udp_progress();
}

static void release_all(void)
{
    if (U.conns)
        for (int r = 0; r < U.size; r++)
            if (U.conns[r].peer >= 0)
                udp_conn_fini(&U.conns[r]);
    if (U.fd >= 0)
        close(U.fd);
    free(U.conns);
    free(U.addrs);
    free(U.staging);
    free(U.bounce);
    memset(&U, 0, sizeof U);
    U.fd = -1;
}

static int udp_init(const empi_boot_info_t *boot, empi_deliver_fn deliver)
{
    memset(&U, 0, sizeof U);
    U.fd = -1;
    U.size = boot->size;
    setup_engine(boot, deliver);
    empi_transport_udp.max_packet = U.eng.max_packet;
    empi_transport_udp.has_get = 0;

    udp_card_t card;
    memset(&card, 0, sizeof card);
    int have_addr = empi_net_card_fill(&card.where) == 0;
    U.fd = udp_sock_open(empi_tunables.udp_sndbuf, empi_tunables.udp_rcvbuf, &card.port);
    if (U.fd >= 0 && empi_tunables.udp_gso) {
        U.gro = udp_sock_enable_gro(U.fd);
        udp_sock_use_gso(1);
    }
    /* Publish even after a failure, so the collective fence below still completes everywhere. */
    int ok = have_addr && U.fd >= 0 && empi_boot_put("udp", &card, sizeof card) == 0;
    if (empi_boot_fence() != 0 || !ok)
        goto fail;

    U.conns = calloc((size_t)boot->size, sizeof *U.conns);
    U.addrs = calloc((size_t)boot->size, sizeof *U.addrs);
    U.staging = malloc(UDP_STAGING);
    U.bounce = malloc(UDP_STAGING);
    if (!U.conns || !U.addrs || !U.staging || !U.bounce)
        goto fail;
    for (int r = 0; r < boot->size; r++) {
        U.conns[r].peer = -1;
        if (r == boot->rank || !empi_net_uses_udp(r))
            continue;
        udp_card_t peer;
        size_t len;
        if (empi_boot_get(r, "udp", &peer, sizeof peer, &len) != 0 || len != sizeof peer ||
            !empi_net_card_valid(&peer.where))
            goto fail;
        uint32_t addr = empi_net_card_pick(&peer.where);
        U.addrs[r] = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons(peer.port),
                                          .sin_addr.s_addr = addr};
        udp_conn_init(&U.eng, &U.conns[r], r, segment_size(addr));
        if (empi_tunables.debug >= 1 && boot->rank == 0 && r == boot->size - 1)
            fprintf(stderr, "EtherMPI: udp: rank %d reaches %d with %u-byte segments, window %u\n",
                    boot->rank, r, U.conns[r].tx.seg_max, U.conns[r].tx.wnd_max);
    }
    U.up = 1;
    empi_boot_set_fence_hook(fence_hook);
    return EMPI_OK;

fail:
    fprintf(stderr, "EtherMPI: rank %d: udp transport set-up failed: %s\n", boot->rank,
            U.fd < 0 ? strerror(errno) : "no usable address exchange");
    release_all();
    return EMPI_ERROR;
}

static int udp_finalize(void)
{
    if (U.up && empi_tunables.debug >= 1) {
        const udp_engine_t *e = &U.eng;
        fprintf(stderr, "EtherMPI: udp rank %d: %llu datagrams sent, %llu resent, %llu timeouts, %llu acks, "
                "%llu probes, %llu duplicates and %llu early received\n", e->me, (unsigned long long)e->n_sent,
                (unsigned long long)e->n_retx, (unsigned long long)e->n_timeouts, (unsigned long long)e->n_acks_sent,
                (unsigned long long)e->n_probes, (unsigned long long)e->n_dup, (unsigned long long)e->n_early);
    }
    if (empi_boot_fence_hook() == fence_hook)
        empi_boot_set_fence_hook(NULL);
    release_all();
    return EMPI_OK;
}

static int udp_reaches(int peer)
{
    return U.up && peer >= 0 && peer < U.size && U.conns[peer].peer >= 0;
}

/* Read one datagram, its payload into the guessed reassembly buffer when there is one. Returns the
   payload length and where it now lies contiguously, -1 when nothing is left to read, or -2 for a
   datagram to skip (too short to be ours, or an interrupted read). */
static long recv_one(udp_hdr_t *h, const unsigned char **payload)
{
    size_t room = 0;
    unsigned char *target = U.guess ? udp_reasm_target(&U.guess->rx, &room) : NULL;
    struct iovec iov[3];
    int n = 0;
    iov[n++] = (struct iovec){h, sizeof *h};
    if (target)
        iov[n++] = (struct iovec){target, room};
    iov[n++] = (struct iovec){U.staging, UDP_STAGING};
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)n};
    ssize_t got = recvmsg(U.fd, &msg, 0);
    if (got < 0)
        return errno == EINTR ? -2 : -1;
    if ((size_t)got < sizeof *h)
        return -2;
    size_t len = (size_t)got - sizeof *h;
    if (!target) {
        *payload = U.staging;
    } else if (len <= room) {
        *payload = target;
    } else {
        empi_copy(U.bounce, target, room);
        empi_copy(U.bounce + room, U.staging, len - room);
        *payload = U.bounce;
    }
    return (long)len;
}

/*
 * With UDP_GRO one read returns a run of datagrams of one sender, each `seg` bytes but the last
 * (full segments are multiples of 16 bytes, so those stay aligned; a run of small equal packets
 * may not be, and is realigned by the caller): they all land in the staging buffer and are split
 * here. Returns the bytes read (-1: nothing left, -2: skip) and
 * the datagram size in *seg (the whole read when the kernel did not coalesce).
 */
static long recv_coalesced(size_t *seg)
{
    struct iovec iov = {U.staging, UDP_STAGING};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctrl;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl.buf, .msg_controllen = sizeof ctrl.buf};
    ssize_t got = recvmsg(U.fd, &msg, 0);
    if (got < 0)
        return errno == EINTR ? -2 : -1;
    *seg = (size_t)got;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
        if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
            int gso;
            memcpy(&gso, CMSG_DATA(cm), sizeof gso);
            if (gso > 0)
                *seg = (size_t)gso;
        }
    return got;
}

/* One datagram to the reliability machinery; returns the packets it completed. */
static int on_datagram(const udp_hdr_t *h, const unsigned char *payload, size_t len, int *clock_read)
{
    if (h->job != U.eng.job || h->src >= (uint32_t)U.size || U.conns[h->src].peer < 0)
        return 0;
    if (!*clock_read) {
        U.eng.now = empi_now_ns();
        *clock_read = 1;
    }
    udp_conn_t *c = &U.conns[h->src];
    int n = udp_conn_receive(&U.eng, c, h, payload, len);
    if (c->rx.in_packet && !U.gro)
        U.guess = c;
    return n;
}

static int udp_progress(void)
{
    if (!U.up || U.in_progress)
        return 0;
    U.in_progress = 1;
    int delivered = 0, clock_read = 0;
    for (int i = 0; i < UDP_RX_BURST && !delivered; i++) {
        /* Once a packet is complete, the caller sees it now, not after one more empty read. */
        if (U.gro) {
            size_t seg;
            long got = recv_coalesced(&seg);
            if (got == -1)
                break;
            for (size_t off = 0; got > 0 && off + sizeof(udp_hdr_t) <= (size_t)got; off += seg) {
                size_t len = (size_t)got - off < seg ? (size_t)got - off : seg;
                udp_hdr_t h;
                memcpy(&h, U.staging + off, sizeof h);
                const unsigned char *payload = U.staging + off + sizeof h;
                if ((uintptr_t)payload & 15) {
                    /* a run of small datagrams of an odd size: packets are read in place, aligned */
                    memcpy(U.bounce, payload, len - sizeof h);
                    payload = U.bounce;
                }
                delivered += on_datagram(&h, payload, len - sizeof h, &clock_read);
            }
            continue;
        }
        udp_hdr_t h;
        const unsigned char *payload = NULL;
        long len = recv_one(&h, &payload);
        if (len == -1)
            break;
        if (len >= 0)
            delivered += on_datagram(&h, payload, (size_t)len, &clock_read);
    }
    if (U.eng.active) {
        if (!clock_read)
            U.eng.now = empi_now_ns();
        udp_engine_poll_timers(&U.eng);
    }
    U.in_progress = 0;
    return delivered;
}

static int udp_am_send(int peer, const struct iovec *iov, int iovcnt)
{
    if (EMPI_UNLIKELY(!udp_reaches(peer)))
        return EMPI_ERROR;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    U.eng.now = empi_now_ns();
    return udp_tx_send(&U.eng, &U.conns[peer], iov, iovcnt, len);
}

/* Sleeping is safe only when no timer runs: nothing unacknowledged, no ack owed. */
static int udp_wait_fd(void)
{
    return !U.up ? EMPI_WAIT_NOTHING : U.eng.active ? EMPI_WAIT_POLL : U.fd;
}

/*
 * MPI_Finalize progresses until this is 0 before its closing fence: every datagram we sent is
 * acknowledged and every ack we owe is sent. Peers already in the fence still answer through the
 * fence hook, so waiting here always ends; after the fence no rank needs anything from another.
 */
static size_t udp_pending(void)
{
    size_t n = 0;
    for (udp_conn_t *c = U.eng.active; c; c = c->next_active)
        n += udp_tx_pending(c) + (size_t)udp_rx_ack_pending(c);
    return n;
}

empi_transport_t empi_transport_udp = {
    .name = "udp",
    .max_packet = 0,
    .has_get = 0,
    .init = udp_init,
    .finalize = udp_finalize,
    .reaches = udp_reaches,
    .progress = udp_progress,
    .am_send = udp_am_send,
    .get = NULL,
    .wait_fd = udp_wait_fd,
    .pending = udp_pending,
};
