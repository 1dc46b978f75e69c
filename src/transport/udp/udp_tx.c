/*
 * The send window and retransmission. A packet handed to udp_tx_send is copied once into a kept
 * buffer (am_send lets the caller reuse its buffers at return, and a lost datagram must be sent
 * again) and described as segments in the ring; the pump transmits segments as far as the window
 * allows: the smallest of our own byte window, the receiver's advertised window and a congestion
 * window that halves on every timeout and grows back with acks. Acks release segments (cumulative)
 * or mark them held by the receiver (selective); a hole is resent at once when a segment
 * transmitted after it has arrived (datagrams on one path are not reordered, so it was lost: the
 * idea of TCP's RACK), and the oldest segments are resent when the retransmission timer (RFC 6298
 * estimator, exponential backoff) expires; when everything in flight is already held by the
 * receiver, the timeout sends a probe that asks for the cumulative ack instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/copy.h"
#include "transport/udp/udp_conn.h"

/* Segments the ring may hold for this peer: a full window plus a largest packet queued behind it. */
static uint32_t ring_limit(const udp_engine_t *e, const udp_tx_t *tx)
{
    return 2 * tx->wnd_max + udp_seg_count(e->max_packet, tx->seg_max);
}

/* The ring starts small (most peers exchange a few small packets) and doubles on demand up to
   ring_limit, so memory per peer follows the traffic. Returns -1 when it may not or cannot grow. */
static int grow_ring(const udp_engine_t *e, udp_tx_t *tx, uint32_t need)
{
    uint32_t size = tx->ring ? tx->mask + 1 : 64, most = 64;
    while (size < need)
        size *= 2;
    while (most < ring_limit(e, tx))
        most *= 2;
    if (size > most)
        return -1;
    udp_txseg_t *ring = calloc(size, sizeof *ring);
    if (!ring)
        return -1;
    for (uint32_t s = tx->una; s != tx->nxt; s++)
        ring[s & (size - 1)] = tx->ring[s & tx->mask];
    free(tx->ring);
    tx->ring = ring;
    tx->mask = size - 1;
    return 0;
}

static void release_seg(udp_tx_t *tx, udp_txseg_t *s)
{
    udp_txpkt_t *pkt = s->pkt;
    s->pkt = NULL;
    if (pkt && --pkt->unacked == 0) {
        tx->queued -= pkt->len;
        free(pkt);
    }
}

void udp_tx_release_all(udp_tx_t *tx)
{
    if (tx->ring)
        for (uint32_t s = tx->una; s != tx->nxt; s++)
            release_seg(tx, &tx->ring[s & tx->mask]);
    free(tx->ring);
    tx->ring = NULL;
}

static void fill_dgram(udp_engine_t *e, udp_conn_t *c, udp_dgram_t *d, uint32_t seq)
{
    udp_txseg_t *s = &c->tx.ring[seq & c->tx.mask];
    d->hdr.job = e->job;
    d->hdr.src = (uint32_t)e->me;
    d->hdr.type = UDP_T_DATA;
    d->hdr.flags = s->flags;
    d->hdr.seq = seq;
    d->hdr.pkt_len = s->pkt->len;
    udp_rx_fill_ack(e, c, &d->hdr);
    d->data.iov_base = s->pkt->data + s->off;
    d->data.iov_len = s->len;
}

static uint32_t window(const udp_tx_t *tx)
{
    uint32_t w = tx->cwnd < tx->wnd_max ? tx->cwnd : tx->wnd_max;
    return tx->peer_wnd < w ? tx->peer_wnd : w;
}

static void arm_timer(udp_engine_t *e, udp_tx_t *tx)
{
    tx->rto_at = tx->una != tx->snd ? e->now + tx->rto : 0;
}

/* Room for segment `seq` in the window: datagram count and bytes (at least one datagram). */
static int fits(const udp_engine_t *e, const udp_tx_t *tx, uint32_t seq, uint32_t limit, size_t bytes)
{
    return seq != tx->nxt && udp_seq_lt(seq, limit) && (seq == tx->una || bytes < e->window_bytes);
}

void udp_tx_pump(udp_engine_t *e, udp_conn_t *c)
{
    udp_tx_t *tx = &c->tx;
    udp_dgram_t batch[UDP_BATCH];
    uint32_t limit = tx->una + window(tx);
    if (tx->una == tx->snd)
        c->busy_since = e->now; /* a silence before this is the pair's own business (tell_silence) */
    while (fits(e, tx, tx->snd, limit, tx->inflight)) {
        int n = 0;
        size_t bytes = tx->inflight;
        uint32_t s = tx->snd;
        for (; n < UDP_BATCH && fits(e, tx, s, limit, bytes); s++) {
            fill_dgram(e, c, &batch[n++], s);
            bytes += tx->ring[s & tx->mask].len;
        }
        /* The window closes on fewer datagrams than the receiver acknowledges at once (a congestion
           window cut by timeouts): ask for an ack now rather than after the delay. A larger window
           gets acks as it goes; asking on every batch would return one ack per few datagrams. */
        if (s != tx->nxt && !fits(e, tx, s, limit, bytes) && s - tx->una < 2 * UDP_ACK_EVERY)
            batch[n - 1].hdr.flags |= UDP_F_ACKREQ;
        int sent = e->xmit(e, c, batch, n);
        for (int i = 0; i < sent; i++) {
            udp_txseg_t *seg = &tx->ring[(tx->snd + (uint32_t)i) & tx->mask];
            seg->ntx = 1;
            seg->last_tx = e->now;
            tx->inflight += seg->len;
        }
        tx->snd += (uint32_t)(sent > 0 ? sent : 0);
        e->n_sent += (uint64_t)(sent > 0 ? sent : 0);
        if (sent < n)
            break; /* socket full: the rest goes on a later pass */
    }
    if (!tx->rto_at)
        arm_timer(e, tx);
}

int udp_tx_send(udp_engine_t *e, udp_conn_t *c, const struct iovec *iov, int iovcnt, size_t len)
{
    udp_tx_t *tx = &c->tx;
    if (len > e->max_packet)
        return EMPI_ERROR;
    uint32_t nseg = udp_seg_count(len, tx->seg_max);
    uint32_t pending = tx->nxt - tx->una;
    /* Back-pressure: bounded bytes kept (but an idle peer always takes one packet) and segments. */
    if (pending && tx->queued + len > 2 * e->window_bytes)
        return EMPI_AGAIN;
    if ((!tx->ring || pending + nseg > tx->mask + 1) && grow_ring(e, tx, pending + nseg) != 0)
        return tx->ring ? EMPI_AGAIN : EMPI_ERROR;
    udp_txpkt_t *pkt = malloc(sizeof *pkt + len);
    if (!pkt)
        return EMPI_AGAIN;
    size_t off = 0;
    for (int i = 0; i < iovcnt; i++) {
        empi_copy(pkt->data + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    pkt->len = (uint32_t)len;
    pkt->unacked = nseg;
    udp_seg_split(tx, pkt, nseg);
    tx->nxt += nseg;
    tx->queued += len;
    udp_conn_activate(e, c);
    udp_tx_pump(e, c);
    return EMPI_OK;
}

/* Send the listed in-flight segments again. */
static void retransmit(udp_engine_t *e, udp_conn_t *c, const uint32_t *seqs, int n)
{
    udp_dgram_t batch[UDP_BATCH];
    for (int i = 0; i < n; i++)
        fill_dgram(e, c, &batch[i], seqs[i]);
    int sent = e->xmit(e, c, batch, n);
    for (int i = 0; i < sent; i++) {
        udp_txseg_t *s = &c->tx.ring[seqs[i] & c->tx.mask];
        s->ntx++;
        s->last_tx = e->now;
    }
    e->n_retx += (uint64_t)(sent > 0 ? sent : 0);
}

/* Resend unsacked segments in [from, to) for which `lost` holds, at most one batch. */
static void resend_if(udp_engine_t *e, udp_conn_t *c, uint32_t from, uint32_t to,
                      int (*lost)(const udp_tx_t *, const udp_txseg_t *, uint32_t, uint64_t), uint64_t arg)
{
    uint32_t seqs[UDP_BATCH];
    int n = 0;
    for (uint32_t s = from; s != to && n < UDP_BATCH; s++) {
        const udp_txseg_t *seg = &c->tx.ring[s & c->tx.mask];
        if (!seg->sacked && lost(&c->tx, seg, s, arg))
            seqs[n++] = s;
    }
    if (n)
        retransmit(e, c, seqs, n);
}

/* Overtaken: a segment sent after this one has arrived (one path does not reorder datagrams). */
static int overtaken(const udp_tx_t *tx, const udp_txseg_t *seg, uint32_t seq, uint64_t unused)
{
    (void)unused;
    return seg->last_tx < tx->rack_tx || (seg->last_tx == tx->rack_tx && udp_seq_lt(seq, tx->rack_seq));
}

/* Remember the latest transmission known to have arrived. */
static void note_arrived(udp_tx_t *tx, const udp_txseg_t *seg, uint32_t seq)
{
    if (seg->last_tx > tx->rack_tx || (seg->last_tx == tx->rack_tx && udp_seq_lt(tx->rack_seq, seq))) {
        tx->rack_tx = seg->last_tx;
        tx->rack_seq = seq;
    }
}

static void set_rto(udp_engine_t *e, udp_tx_t *tx)
{
    uint64_t rto = tx->srtt ? tx->srtt + 4 * tx->rttvar : e->rto_init;
    tx->rto = rto < e->rto_min ? e->rto_min : rto > e->rto_max ? e->rto_max : rto;
}

static void rtt_sample(udp_engine_t *e, udp_tx_t *tx, uint64_t r)
{
    if (!tx->srtt) {
        tx->srtt = r;
        tx->rttvar = r / 2;
    } else {
        uint64_t diff = tx->srtt > r ? tx->srtt - r : r - tx->srtt;
        tx->rttvar = (3 * tx->rttvar + diff) / 4;
        tx->srtt = (7 * tx->srtt + r) / 8;
    }
    set_rto(e, tx);
}

/* Mark the segments the receiver reports holding. */
static void apply_sack(udp_tx_t *tx, uint32_t ack, uint64_t sack, const udp_txseg_t **fresh)
{
    for (int i = 0; i < UDP_SACK_BITS && (sack >> i); i++) {
        uint32_t s = ack + 1 + (uint32_t)i;
        if (!((sack >> i) & 1) || udp_seq_lt(s, tx->una) || !udp_seq_lt(s, tx->snd))
            continue;
        udp_txseg_t *seg = &tx->ring[s & tx->mask];
        if (!seg->sacked) {
            *fresh = seg;
            note_arrived(tx, seg, s);
        }
        seg->sacked = 1;
    }
}

void udp_tx_on_ack(udp_engine_t *e, udp_conn_t *c, uint32_t ack, uint64_t sack, uint16_t wnd)
{
    udp_tx_t *tx = &c->tx;
    tx->peer_wnd = wnd ? wnd : 1;
    if (!tx->ring)
        return;
    /* The round trip is measured on the newest segment this ack is the first news of, and only
       if it was sent once (Karn): a segment the receiver already held was answered earlier. */
    const udp_txseg_t *fresh = NULL;
    int advanced = udp_seq_lt(tx->una, ack) && udp_seq_le(ack, tx->snd);
    if (advanced) {
        const udp_txseg_t *newest = &tx->ring[(ack - 1) & tx->mask];
        if (!newest->sacked)
            fresh = newest;
        uint32_t n = ack - tx->una;
        for (uint32_t s = tx->una; s != ack; s++) {
            udp_txseg_t *seg = &tx->ring[s & tx->mask];
            if (!seg->sacked)
                note_arrived(tx, seg, s);
            tx->inflight -= seg->len;
            release_seg(tx, seg); /* keeps ntx and last_tx for the sample */
        }
        tx->una = ack;
        tx->cwnd = tx->cwnd + n < tx->wnd_max ? tx->cwnd + n : tx->wnd_max;
        set_rto(e, tx); /* progress again: undo the backoff */
    }
    if (sack)
        apply_sack(tx, ack, sack, &fresh);
    if (fresh && fresh->ntx == 1)
        rtt_sample(e, tx, e->now - fresh->last_tx);
    if (advanced || fresh)
        arm_timer(e, tx);
    /* A segment is lost once something sent after it has arrived: a hole below a held segment, and
       also the tail of a burst behind a retransmission that arrived (else each segment of a lost
       tail waited for a timer of its own, doubling each time: seconds at 10% loss). Only as far
       as the acknowledgement can tell what arrived. */
    uint32_t horizon = tx->una + UDP_SACK_BITS + 1;
    resend_if(e, c, tx->una, udp_seq_lt(horizon, tx->snd) ? horizon : tx->snd, overtaken, 0);
    udp_tx_pump(e, c);
}

/*
 * Resending is all udp can do: a peer computing outside MPI does not answer either, so there is no
 * giving up. But a peer whose datagrams never arrive (a firewall dropping udp) would hang the job
 * without a word: say so once per silence.
 */
#define UDP_SILENCE_TELL_NS (30ull * 1000000000ull)

static void tell_silence(udp_engine_t *e, udp_conn_t *c)
{
    if (!c->heard_at)
        c->heard_at = e->now;
    /* silent since the latest of its last word, our first unanswered datagram and this process's
       return to MPI: two ranks that computed for minutes were not silent to each other */
    uint64_t since = c->heard_at > c->busy_since ? c->heard_at : c->busy_since;
    if (e->resumed_at > since)
        since = e->resumed_at;
    if (c->silence_told || e->now - since < UDP_SILENCE_TELL_NS)
        return;
    c->silence_told = 1;
    fprintf(stderr,
            "EtherMPI: rank %d: nothing has come from rank %d over udp for %llu s while this rank resends to it: "
            "it computes without calling MPI, or its datagrams are dropped (a firewall? EMPI_TRANSPORT=tcp); "
            "still trying\n",
            e->me, c->peer, (unsigned long long)((e->now - since) / 1000000000ull));
}

void udp_tx_on_timer(udp_engine_t *e, udp_conn_t *c)
{
    udp_tx_t *tx = &c->tx;
    if (!tx->rto_at || e->now < tx->rto_at)
        return;
    if (tx->una == tx->snd) {
        tx->rto_at = 0;
        return;
    }
    e->n_timeouts++;
    tell_silence(e, c);
    /* Only the oldest segment: a timeout is as often a peer that was descheduled as a loss, and
       resending the whole window then only adds load. Holes behind it are found by the acks the
       resent segment brings back (overtaken()), the tail by further timeouts. */
    uint32_t oldest = tx->una;
    while (oldest != tx->snd && tx->ring[oldest & tx->mask].sacked)
        oldest++;
    if (oldest != tx->snd)
        retransmit(e, c, &oldest, 1);
    else if (udp_rx_send_ack(e, c, UDP_F_ACKREQ))
        e->n_probes++; /* all of it is held by the receiver: only its cumulative ack is missing */
    tx->rto = tx->rto * 2 < e->rto_max ? tx->rto * 2 : e->rto_max;
    tx->cwnd = tx->cwnd / 2 > UDP_MIN_WINDOW ? tx->cwnd / 2 : UDP_MIN_WINDOW;
    tx->rto_at = e->now + tx->rto;
}
