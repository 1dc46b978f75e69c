/*
 * Unit tests of the UDP transport's reliability machinery (udp_tx.c, udp_rx.c, udp_segment.c,
 * udp_engine.c) without sockets: two engines in one process joined by a simulated link that drops,
 * duplicates, reorders and refuses datagrams on demand, with a virtual clock. Every packet carries
 * its own index and a byte pattern, so the receiver checks order and content exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/udp/udp_conn.h"

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: %s: CHECK failed: %s\n", __FILE__, __LINE__, __func__, #cond); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* ---- simulated link ---------------------------------------------------------------------- */

typedef struct wire_dgram {
    udp_hdr_t hdr;
    size_t len;
    unsigned char *data;
} wire_dgram_t;

#define LINK_CAP 100000
typedef struct link {
    wire_dgram_t q[LINK_CAP];
    int head, tail;
} link_t;

static link_t links[2]; /* links[d]: datagrams travelling to engine d */
static struct {
    int drop_pct, dup_pct, reorder_pct, refuse_pct;
    int drop_seq_once[8]; /* drop these data sequence numbers on their first transmission */
    int ndrop_seq;
    int drop_acks[2]; /* drop this many of the next standalone acks engine d sends */
    unsigned long long rng;
    long dropped;
} sim;

static unsigned rnd100(void)
{
    sim.rng ^= sim.rng << 13;
    sim.rng ^= sim.rng >> 7;
    sim.rng ^= sim.rng << 17;
    return (unsigned)(sim.rng % 100);
}

static void link_put(link_t *l, const udp_dgram_t *d)
{
    wire_dgram_t *w = &l->q[l->tail++ % LINK_CAP];
    CHECK(l->tail - l->head <= LINK_CAP);
    w->hdr = d->hdr;
    w->len = d->data.iov_len;
    w->data = malloc(w->len ? w->len : 1);
    if (w->len)
        memcpy(w->data, d->data.iov_base, w->len);
}

static int sim_xmit(udp_engine_t *e, udp_conn_t *c, udp_dgram_t *d, int n)
{
    link_t *l = &links[c->peer];
    if (n > 1 && sim.refuse_pct && rnd100() < (unsigned)sim.refuse_pct)
        n = n / 2; /* the socket took only part of the batch */
    for (int i = 0; i < n; i++) {
        int drop = sim.drop_pct && rnd100() < (unsigned)sim.drop_pct;
        for (int k = 0; k < sim.ndrop_seq; k++)
            if (d[i].hdr.type == UDP_T_DATA && sim.drop_seq_once[k] >= 0 &&
                d[i].hdr.seq == (uint32_t)sim.drop_seq_once[k]) {
                drop = 1;
                sim.drop_seq_once[k] = -1;
            }
        if (d[i].hdr.type == UDP_T_ACK && sim.drop_acks[e->me] > 0) {
            sim.drop_acks[e->me]--;
            drop = 1;
        }
        if (drop) {
            sim.dropped++;
            continue;
        }
        link_put(l, &d[i]);
        if (sim.dup_pct && rnd100() < (unsigned)sim.dup_pct)
            link_put(l, &d[i]);
        if (sim.reorder_pct && l->tail - l->head >= 2 && rnd100() < (unsigned)sim.reorder_pct) {
            wire_dgram_t *a = &l->q[(l->tail - 1) % LINK_CAP], *b = &l->q[(l->tail - 2) % LINK_CAP];
            wire_dgram_t t = *a;
            *a = *b;
            *b = t;
        }
    }
    return n;
}

/* ---- the two endpoints ------------------------------------------------------------------- */

static udp_engine_t eng[2];
static udp_conn_t conn[2]; /* conn[d]: engine d's state for its peer 1-d */
static struct {
    long next_index;  /* index of the next packet expected from the peer */
    long delivered;
} rcv[2];

static int small_packets; /* every packet fits one segment of 1000 bytes */
static long reply_after = -1; /* engine 1 answers from inside the delivery of this packet */
static int try_send(int d, long index);

static size_t packet_size(long index)
{
    if (small_packets)
        return 8 + (size_t)(index * 37 % 900);
    static const size_t sizes[] = {0, 8, 100, 1000, 1399, 1400, 1401, 4000, 20000, 65536, 200000};
    return sizes[(unsigned long)index * 7 % (sizeof sizes / sizeof sizes[0])];
}

static unsigned char pattern(long index, size_t off)
{
    return (unsigned char)(index * 31 + (long)off * 7 + (long)(off >> 8));
}

static void fill_packet(unsigned char *buf, long index, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(index, i);
    if (len >= sizeof index)
        memcpy(buf, &index, sizeof index);
}

static void check_packet(int me, const unsigned char *pkt, size_t len)
{
    long index = rcv[me].next_index++;
    CHECK(len == packet_size(index));
    if (len >= sizeof index) {
        long got;
        memcpy(&got, pkt, sizeof got);
        CHECK(got == index);
    }
    for (size_t i = sizeof index; i < len; i++)
        CHECK(pkt[i] == pattern(index, i));
    rcv[me].delivered++;
}

static void deliver_at_0(int src, const void *pkt, size_t len)
{
    CHECK(src == 1);
    check_packet(0, pkt, len);
}

static void deliver_at_1(int src, const void *pkt, size_t len)
{
    CHECK(src == 0);
    check_packet(1, pkt, len);
    if (rcv[1].next_index - 1 == reply_after)
        CHECK(try_send(1, 0) == EMPI_OK);
}

static void setup(uint32_t first_seq, uint32_t seg_max, size_t window)
{
    for (int d = 0; d < 2; d++) {
        udp_conn_fini(&conn[d]);
        for (; links[d].head < links[d].tail; links[d].head++)
            free(links[d].q[links[d].head % LINK_CAP].data);
        links[d].head = links[d].tail = 0;
        eng[d] = (udp_engine_t){.job = 77, .me = d, .now = 1000000, .xmit = sim_xmit,
                                .deliver = d ? deliver_at_1 : deliver_at_0, .rto_min = 200000,
                                .rto_max = 20000000, .rto_init = 1000000, .ack_delay = 20000,
                                .window_bytes = window, .max_packet = 256 * 1024, .first_seq = first_seq};
        udp_conn_init(&eng[d], &conn[d], 1 - d, seg_max);
        rcv[d].next_index = 0;
        rcv[d].delivered = 0;
    }
    memset(&sim, 0, sizeof sim);
    sim.rng = 0x9e3779b97f4a7c15ull;
}

/* Hand everything on the wire to its receiver (as the transport's receive path does). */
static int pump_links(void)
{
    int moved = 0;
    for (int d = 0; d < 2; d++) {
        link_t *l = &links[d];
        int until = l->tail;
        while (l->head < until) {
            wire_dgram_t *w = &l->q[l->head++ % LINK_CAP];
            CHECK(w->hdr.job == 77 && w->hdr.src == (uint32_t)(1 - d));
            udp_conn_receive(&eng[d], &conn[d], &w->hdr, w->data, w->len);
            free(w->data);
            moved++;
        }
    }
    return moved;
}

static void tick(uint64_t ns)
{
    for (int d = 0; d < 2; d++) {
        eng[d].now += ns;
        udp_engine_poll_timers(&eng[d]);
    }
}

static int try_send(int d, long index)
{
    static unsigned char *buf[2];
    static long filled[2] = {-1, -1};
    size_t len = packet_size(index);
    if (!buf[d])
        buf[d] = malloc(256 * 1024);
    if (filled[d] != index) /* a refused packet is offered again unchanged, as pt2pt does */
        fill_packet(buf[d], index, len);
    filled[d] = index;
    /* Two iovecs, split unevenly, to exercise the gather. */
    struct iovec iov[2] = {{buf[d], len / 3}, {buf[d] + len / 3, len - len / 3}};
    return udp_tx_send(&eng[d], &conn[d], iov, 2, len);
}

/* Both sides send `count` packets to each other through the link; returns once all arrived. */
static void exchange(long count, int bidirectional)
{
    long sent[2] = {0, 0};
    long rounds = 0;
    while (rcv[1].delivered < count || (bidirectional && rcv[0].delivered < count) ||
           udp_tx_pending(&conn[0]) || udp_tx_pending(&conn[1])) {
        for (int d = 0; d < (bidirectional ? 2 : 1); d++)
            while (sent[d] < count && try_send(d, sent[d]) == EMPI_OK)
                sent[d]++;
        pump_links();
        tick(5000);
        CHECK(++rounds < 5000000);
    }
    CHECK(rcv[1].next_index == count);
    CHECK(!bidirectional || rcv[0].next_index == count);
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_lossless(void)
{
    setup(0, 1400, 256 * 1024);
    exchange(500, 1);
    CHECK(eng[0].n_retx == 0 && eng[1].n_retx == 0);
    CHECK(eng[0].n_dup == 0 && eng[1].n_dup == 0);
}

static void test_wraparound(void)
{
    setup(0xFFFFFF00u, 1400, 256 * 1024);
    exchange(300, 1);
    CHECK(udp_seq_lt(0xFFFFFF00u, conn[0].tx.una)); /* crossed zero */
    CHECK(conn[0].tx.una < 0x10000000u);
    CHECK(conn[1].rx.nxt == conn[0].tx.una);
    CHECK(udp_seq_lt(0xFFFFFFFFu, 0) && !udp_seq_lt(0, 0xFFFFFFFFu) && udp_seq_le(5, 5));
}

static void test_loss(int pct, uint32_t first_seq)
{
    setup(first_seq, 1400, 128 * 1024);
    sim.drop_pct = pct;
    exchange(400, 1);
    CHECK(pct == 0 || eng[0].n_retx > 0);
    printf("  loss %2d%%: dropped %ld, retransmitted %llu+%llu, timeouts %llu+%llu\n", pct, sim.dropped,
           (unsigned long long)eng[0].n_retx, (unsigned long long)eng[1].n_retx,
           (unsigned long long)eng[0].n_timeouts, (unsigned long long)eng[1].n_timeouts);
}

/* One data segment lost in the middle of a stream: recovered from the SACK bitmap, no timeout. */
static void test_sack_fast_retransmit(void)
{
    setup(1000, 1000, 1024 * 1024);
    sim.drop_seq_once[0] = 1002;
    sim.ndrop_seq = 1;
    small_packets = 1;
    for (long i = 0; i < 10; i++)
        CHECK(try_send(0, i) == EMPI_OK);
    CHECK(conn[0].tx.snd == 1010 && sim.dropped == 1);
    /* The receiver holds 7 early datagrams and delivers only the two before the hole. */
    pump_links();
    CHECK(conn[1].rx.held == 7 && conn[1].rx.nxt == 1002);
    CHECK(eng[1].n_early == 7);
    /* Its immediate ack carries the hole: bits 0..6 for 1003..1009. */
    CHECK(conn[1].rx.ack_now);
    udp_engine_poll_timers(&eng[1]);
    wire_dgram_t *ack = &links[0].q[(links[0].tail - 1) % LINK_CAP];
    CHECK(ack->hdr.type == UDP_T_ACK && ack->hdr.ack == 1002 && ack->hdr.sack == 0x7F);
    /* After a round trip's worth of time the sender resends only the hole, without a timeout. */
    eng[0].now += 300000;
    pump_links();
    CHECK(conn[0].tx.una == 1002);
    CHECK(eng[0].n_retx == 1 && eng[0].n_timeouts == 0);
    for (int i = 3; i < 10; i++)
        CHECK(conn[0].tx.ring[(1000 + (uint32_t)i) & conn[0].tx.mask].sacked);
    pump_links();
    CHECK(conn[1].rx.held == 0 && conn[1].rx.nxt == 1010);
    CHECK(rcv[1].delivered == 10);
    tick(100000);
    pump_links();
    CHECK(udp_tx_pending(&conn[0]) == 0);
    small_packets = 0;
}

/* The last five segments of a burst lost: the timer resends the oldest, and once that arrives the
   other four, sent before it, are known lost and resent at once (not one timeout each). */
static void test_tail_loss(void)
{
    setup(1000, 1000, 1024 * 1024);
    for (int k = 0; k < 5; k++)
        sim.drop_seq_once[k] = 1005 + k;
    sim.ndrop_seq = 5;
    small_packets = 1;
    for (long i = 0; i < 10; i++)
        CHECK(try_send(0, i) == EMPI_OK);
    CHECK(sim.dropped == 5);
    for (int round = 0; round < 400 && rcv[1].delivered < 10; round++) {
        pump_links();
        tick(5000);
    }
    CHECK(rcv[1].delivered == 10);
    CHECK(eng[0].n_timeouts == 1 && eng[0].n_retx == 5);
    small_packets = 0;
}

/*
 * Every segment in flight held by the receiver and only its cumulative ack missing: the timeout
 * has nothing to resend, so it must ask for the ack. The state arises when the receiver answers
 * from inside the delivery of its held datagrams: the reply carries the ack of that moment (whose
 * next segments the sender already knows as held), and the standalone ack for the rest is lost.
 */
static void test_lost_ack_of_held_segments(void)
{
    setup(1000, 1000, 1024 * 1024);
    small_packets = 1;
    sim.drop_seq_once[0] = 1000;
    sim.ndrop_seq = 1;
    reply_after = 1;
    for (long i = 0; i < 10; i++)
        CHECK(try_send(0, i) == EMPI_OK);
    pump_links(); /* 1001..1009 held at the receiver */
    udp_engine_poll_timers(&eng[1]); /* its ack: 1000 missing, 1001..1009 held */
    eng[0].now += 300000;
    pump_links(); /* the sender resends 1000 */
    CHECK(eng[0].n_retx == 1 && conn[0].tx.ring[1001 & conn[0].tx.mask].sacked);
    sim.drop_acks[1] = 1;
    pump_links(); /* all ten delivered; the reply from inside says "up to 1001" */
    CHECK(rcv[1].delivered == 10 && rcv[1].next_index == 10);
    tick(100000); /* the receiver's ack of the rest is lost */
    CHECK(sim.drop_acks[1] == 0);
    pump_links();
    CHECK(rcv[0].delivered == 1);
    CHECK(conn[0].tx.una == 1002 && conn[0].tx.ring[1002 & conn[0].tx.mask].sacked);
    for (int rounds = 0; udp_tx_pending(&conn[0]) || udp_tx_pending(&conn[1]); rounds++) {
        CHECK(rounds < 10000); /* 10 s of virtual time: every timeout found nothing to resend */
        tick(1000000);
        pump_links();
    }
    CHECK(eng[0].n_probes >= 1 && eng[0].n_retx == 1 && conn[0].tx.una == 1010);
    reply_after = -1;
    small_packets = 0;
}

/* Everything reversed on the wire: the reorder buffer must put it back in order. */
static void test_reorder_buffer(void)
{
    setup(50, 500, 1024 * 1024);
    small_packets = 1;
    for (long i = 0; i < 40; i++)
        CHECK(try_send(0, i) == EMPI_OK);
    link_t *l = &links[1];
    for (int a = l->head, b = l->tail - 1; a < b; a++, b--) {
        wire_dgram_t t = l->q[a % LINK_CAP];
        l->q[a % LINK_CAP] = l->q[b % LINK_CAP];
        l->q[b % LINK_CAP] = t;
    }
    long n_on_wire = l->tail - l->head;
    pump_links();
    CHECK(eng[1].n_early == (uint64_t)n_on_wire - 1 && eng[1].n_dup == 0);
    CHECK(rcv[1].delivered > 0);
    for (int rounds = 0; rcv[1].delivered < 40 || udp_tx_pending(&conn[0]); rounds++) {
        CHECK(rounds < 100000);
        tick(5000);
        pump_links();
    }
    CHECK(rcv[1].next_index == 40);
    small_packets = 0;
}

static void test_duplicates_and_reordering(void)
{
    setup(7, 1400, 256 * 1024);
    sim.dup_pct = 10;
    sim.reorder_pct = 10;
    sim.drop_pct = 3;
    exchange(400, 1);
    CHECK(eng[1].n_dup > 0);
}

/* The link heals: run until everything rank 0 sent is acknowledged. */
static void heal(void)
{
    sim.drop_pct = 0;
    while (udp_tx_pending(&conn[0])) {
        pump_links();
        tick(1000000);
    }
}

/* Retransmission with backoff: while everything is lost the timeout doubles up to rto_max. */
static void test_backoff(void)
{
    setup(0, 1400, 64 * 1024);
    sim.drop_pct = 100;
    rcv[1].next_index = 1;
    CHECK(try_send(0, 1) == EMPI_OK);
    uint64_t start = eng[0].now;
    for (int i = 0; i < 2000; i++)
        tick(100000);
    CHECK(eng[0].n_timeouts >= 10 && eng[0].n_timeouts <= 16); /* 1+2+4+8+16 ms, then every 20 */
    CHECK(conn[0].tx.rto == eng[0].rto_max);
    CHECK(eng[0].now - start == 200000000ull);
    heal();
    CHECK(rcv[1].delivered == 1);
}

/*
 * A peer that sends nothing back for 30 s while we resend is reported once (a firewall dropping
 * its datagrams hung jobs without a word); hearing from it again re-arms the report. With away_ns,
 * both ranks first spend that long without a progress pass (computing outside MPI, a packet in
 * flight and its ack lost): the 30 s count from the return, not from the peer's last datagram
 * (the report came at the first resend after a long computation).
 */
static void silence_case(uint64_t away_ns)
{
    setup(0, 1400, 64 * 1024);
    sim.drop_pct = 100;
    rcv[1].next_index = 1;
    CHECK(try_send(0, 1) == EMPI_OK);
    tick(1000000);
    for (int d = 0; d < 2; d++)
        eng[d].now += away_ns;
    for (int i = 0; i < 1400; i++) /* 28 s of resending */
        tick(20000000);
    CHECK(!conn[0].silence_told);
    for (int i = 0; i < 150; i++) /* 31 s */
        tick(20000000);
    CHECK(conn[0].silence_told);
    heal();
    CHECK(rcv[1].delivered == 1 && !conn[0].silence_told);
}

/* The send side pushes back when its ring or byte budget is full, and accepts again after acks. */
static void test_backpressure(void)
{
    setup(0, 1400, 64 * 1024);
    long i = 0;
    while (try_send(0, i) == EMPI_OK)
        i++;
    CHECK(i > 0 && conn[0].tx.queued <= 2 * 64 * 1024 + 256 * 1024);
    CHECK(conn[0].tx.snd - conn[0].tx.una <= conn[0].tx.wnd_max);
    CHECK(conn[0].tx.inflight < 64 * 1024 + conn[0].tx.seg_max);
    rcv[1].next_index = 0;
    while (rcv[1].delivered < i || udp_tx_pending(&conn[0])) {
        pump_links();
        tick(5000);
    }
    CHECK(conn[0].tx.queued == 0);
    CHECK(try_send(0, i) == EMPI_OK);
}

/* One-way traffic is acknowledged by a standalone ack after the delay, and only then. */
static void test_delayed_ack(void)
{
    setup(0, 1400, 256 * 1024);
    rcv[1].next_index = 1;
    CHECK(try_send(0, 1) == EMPI_OK);
    pump_links();
    CHECK(rcv[1].delivered == 1 && udp_rx_ack_pending(&conn[1]));
    tick(5000);
    CHECK(links[0].tail == links[0].head); /* not yet */
    tick(20000);
    CHECK(links[0].tail == links[0].head + 1 && eng[1].n_acks_sent == 1);
    pump_links();
    CHECK(udp_tx_pending(&conn[0]) == 0);
    /* A reply piggybacks the ack instead. */
    CHECK(try_send(0, 2) == EMPI_OK);
    pump_links();
    rcv[0].next_index = 3;
    CHECK(try_send(1, 3) == EMPI_OK);
    CHECK(!udp_rx_ack_pending(&conn[1]));
    pump_links();
    CHECK(udp_tx_pending(&conn[0]) == 0 && eng[1].n_acks_sent == 1);
}

/* Partial sends (the socket took only part of a batch) keep order and lose nothing. */
static void test_partial_xmit(void)
{
    setup(123456, 1400, 512 * 1024);
    sim.refuse_pct = 30;
    sim.drop_pct = 2;
    exchange(300, 1);
}

int main(void)
{
    test_lossless();
    test_wraparound();
    test_loss(1, 0);
    test_loss(5, 0xFFFFFFF0u);
    test_loss(20, 0);
    test_loss(50, 0x7FFFFFF0u);
    test_sack_fast_retransmit();
    test_tail_loss();
    test_lost_ack_of_held_segments();
    test_reorder_buffer();
    test_duplicates_and_reordering();
    test_backoff();
    silence_case(0);
    silence_case(40000000000ull);
    test_backpressure();
    test_delayed_ack();
    test_partial_xmit();
    setup(0, 1400, 1024);
    udp_conn_fini(&conn[0]);
    udp_conn_fini(&conn[1]);
    printf("PASS\n");
    return 0;
}
