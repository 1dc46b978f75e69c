/*
 * The receive side: duplicate suppression, the reorder buffer, in-order delivery and the decision
 * when to acknowledge. A datagram behind the next expected one is a duplicate (our ack was lost or
 * the sender timed out early): dropped, and acknowledged at once so the sender stops. One ahead of
 * it is copied into a reorder slot and acknowledged at once, so the sender learns of the hole from
 * the selective-ack bitmap. The expected one is handed to reassembly straight from where it was
 * received, then any held successors follow. In-order arrivals are acknowledged by piggybacking on
 * reverse traffic, or by a standalone ack after `ack_delay` or every few datagrams, whichever
 * comes first.
 */
#include <stdlib.h>
#include <string.h>

#include "core/copy.h"
#include "transport/udp/udp_conn.h"

#define UDP_RX_MASK (UDP_RX_SLOTS - 1)

static void hold_early(udp_engine_t *e, udp_conn_t *c, const udp_hdr_t *h, const void *payload, size_t len)
{
    udp_rx_t *rx = &c->rx;
    if (h->seq - rx->nxt >= UDP_RX_SLOTS)
        return; /* beyond the window we advertised: the sender will resend */
    if (!rx->slots && !(rx->slots = calloc(UDP_RX_SLOTS, sizeof *rx->slots)))
        return;
    udp_rxslot_t *slot = &rx->slots[h->seq & UDP_RX_MASK];
    if (slot->data) {
        e->n_dup++;
        return;
    }
    slot->data = malloc(len ? len : 1);
    if (!slot->data)
        return;
    empi_copy(slot->data, payload, len);
    slot->len = (uint32_t)len;
    slot->pkt_len = h->pkt_len;
    slot->seq = h->seq;
    slot->flags = h->flags;
    rx->held++;
    e->n_early++;
}

/* Acknowledge at once after a quarter of the sender's window (datagrams or bytes; the byte window
   is a job-wide setting, so the receiver knows it) so a streaming sender never runs dry, else after
   the delay unless reverse traffic carries the ack first. */
static void schedule_ack(udp_engine_t *e, udp_conn_t *c, size_t len)
{
    udp_rx_t *rx = &c->rx;
    uint32_t every = c->tx.wnd_max / 4;
    every = every < 1 ? 1 : every > UDP_ACK_EVERY ? UDP_ACK_EVERY : every;
    rx->unacked_bytes += len;
    if (++rx->unacked >= every || rx->unacked_bytes >= e->window_bytes / 4)
        rx->ack_now = 1;
    else if (!rx->ack_at)
        rx->ack_at = e->now + e->ack_delay;
}

int udp_rx_on_data(udp_engine_t *e, udp_conn_t *c, const udp_hdr_t *h, const void *payload, size_t len)
{
    udp_rx_t *rx = &c->rx;
    udp_conn_activate(e, c);
    if (h->flags & UDP_F_ACKREQ)
        rx->ack_now = 1;
    if (udp_seq_lt(h->seq, rx->nxt)) {
        e->n_dup++;
        rx->ack_now = 1;
        return 0;
    }
    if (h->seq != rx->nxt) {
        hold_early(e, c, h, payload, len);
        rx->ack_now = 1;
        return 0;
    }
    rx->nxt++;
    schedule_ack(e, c, len);
    int delivered = udp_reasm_push(e, c, h->flags, h->pkt_len, payload, len);
    while (rx->held) {
        udp_rxslot_t *slot = &rx->slots[rx->nxt & UDP_RX_MASK];
        if (!slot->data || slot->seq != rx->nxt)
            break;
        udp_rxslot_t held = *slot; /* detach first: delivery may lead back here through a send */
        slot->data = NULL;
        rx->held--;
        rx->nxt++;
        schedule_ack(e, c, held.len);
        delivered += udp_reasm_push(e, c, held.flags, held.pkt_len, held.data, held.len);
        free(held.data);
    }
    return delivered;
}

void udp_rx_fill_ack(udp_engine_t *e, udp_conn_t *c, udp_hdr_t *h)
{
    (void)e;
    udp_rx_t *rx = &c->rx;
    uint64_t sack = 0;
    if (rx->held)
        for (uint32_t i = 0; i < UDP_SACK_BITS; i++) {
            const udp_rxslot_t *slot = &rx->slots[(rx->nxt + 1 + i) & UDP_RX_MASK];
            if (slot->data && slot->seq == rx->nxt + 1 + i)
                sack |= (uint64_t)1 << i;
        }
    h->ack = rx->nxt;
    h->sack = sack;
    h->wnd = UDP_RX_SLOTS - 1;
    rx->unacked = 0;
    rx->unacked_bytes = 0;
    rx->ack_at = 0;
    rx->ack_now = 0;
}

int udp_rx_send_ack(udp_engine_t *e, udp_conn_t *c, uint8_t flags)
{
    udp_dgram_t d;
    memset(&d, 0, sizeof d);
    d.hdr.job = e->job;
    d.hdr.src = (uint32_t)e->me;
    d.hdr.type = UDP_T_ACK;
    d.hdr.flags = flags;
    udp_rx_fill_ack(e, c, &d.hdr);
    if (e->xmit(e, c, &d, 1) == 1)
        return 1;
    c->rx.ack_now = 1; /* socket full: the ack state it carried goes out on the next pass */
    return 0;
}

void udp_rx_on_timer(udp_engine_t *e, udp_conn_t *c)
{
    udp_rx_t *rx = &c->rx;
    if (!rx->ack_now && !(rx->ack_at && e->now >= rx->ack_at))
        return;
    if (udp_rx_send_ack(e, c, 0))
        e->n_acks_sent++;
}

void udp_rx_release_all(udp_rx_t *rx)
{
    if (rx->slots)
        for (uint32_t i = 0; i < UDP_RX_SLOTS; i++)
            free(rx->slots[i].data);
    free(rx->slots);
    rx->slots = NULL;
    rx->held = 0;
    udp_reasm_fini(rx);
}
