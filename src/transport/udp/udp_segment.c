/*
 * Segmentation and reassembly. A packet larger than one datagram goes out as consecutive sequence
 * numbers, FIRST on the first and LAST on the last; because the receive side hands segments over
 * strictly in order, reassembly is an append. The receive path may read the next expected segment
 * straight into the reassembly buffer (udp_reasm_target), in which case the append copies nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "core/copy.h"
#include "transport/udp/udp_conn.h"

/* Reassembly buffers up to this size are kept for the next packet; larger ones are given back, so
   memory per peer stays small however many peers once sent a large message. */
#define UDP_REASM_KEEP (16u * 1024u)

void udp_seg_split(udp_tx_t *tx, udp_txpkt_t *pkt, uint32_t nseg)
{
    uint32_t off = 0;
    for (uint32_t i = 0; i < nseg; i++) {
        udp_txseg_t *s = &tx->ring[(tx->nxt + i) & tx->mask];
        uint32_t n = pkt->len - off < tx->seg_max ? pkt->len - off : tx->seg_max;
        *s = (udp_txseg_t){.pkt = pkt, .off = off, .len = n};
        s->flags = (uint8_t)((i == 0 ? UDP_F_FIRST : 0) | (i + 1 == nseg ? UDP_F_LAST : 0));
        off += n;
    }
}

void *udp_reasm_target(udp_rx_t *rx, size_t *room)
{
    if (!rx->in_packet)
        return NULL;
    *room = rx->pkt_len - rx->fill;
    return rx->buf + rx->fill;
}

static void reasm_reset(udp_rx_t *rx)
{
    rx->in_packet = 0;
    rx->fill = 0;
    if (rx->cap > UDP_REASM_KEEP) {
        free(rx->buf);
        rx->buf = NULL;
        rx->cap = 0;
    }
}

int udp_reasm_push(udp_engine_t *e, udp_conn_t *c, uint8_t flags, uint32_t pkt_len, const void *data, size_t len)
{
    udp_rx_t *rx = &c->rx;
    if (flags & UDP_F_FIRST) {
        if ((flags & UDP_F_LAST) && len == pkt_len) {
            e->deliver(c->peer, data, len); /* one datagram: straight from the receive buffer */
            return 1;
        }
        if (rx->cap < pkt_len) {
            unsigned char *nb = malloc(pkt_len);
            if (!nb)
                return 0; /* cannot happen in practice; the packet is lost, like a bad datagram */
            free(rx->buf);
            rx->buf = nb;
            rx->cap = pkt_len;
        }
        rx->in_packet = 1;
        rx->pkt_len = pkt_len;
        rx->fill = 0;
    } else if (!rx->in_packet) {
        return 0;
    }
    if (rx->fill + len > rx->pkt_len) { /* malformed: drop the packet rather than overrun */
        reasm_reset(rx);
        return 0;
    }
    if (data != rx->buf + rx->fill)
        empi_copy(rx->buf + rx->fill, data, len);
    rx->fill += len;
    if (!(flags & UDP_F_LAST))
        return 0;
    int complete = rx->fill == rx->pkt_len;
    /* Clear the state before delivering: deliver may send, and a later packet starts afresh. */
    rx->in_packet = 0;
    if (complete)
        e->deliver(c->peer, rx->buf, rx->fill);
    reasm_reset(rx);
    return complete;
}

void udp_reasm_fini(udp_rx_t *rx)
{
    free(rx->buf);
    rx->buf = NULL;
    rx->cap = 0;
    rx->in_packet = 0;
}
