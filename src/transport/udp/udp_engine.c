/*
 * Per-peer connection state and the engine's timer pass. Only peers with something in flight,
 * queued or waiting to be acknowledged sit on the active list, so a progress pass costs nothing per
 * idle peer however large the job; a conn leaves the list when it has gone quiet.
 */
#include <string.h>

#include "transport/udp/udp_conn.h"

void udp_conn_init(udp_engine_t *e, udp_conn_t *c, int peer, uint32_t seg_max)
{
    memset(c, 0, sizeof *c);
    c->peer = peer;
    c->tx.seg_max = seg_max;
    c->tx.wnd_max = UDP_MAX_INFLIGHT;
    c->tx.cwnd = c->tx.wnd_max;
    c->tx.peer_wnd = UDP_RX_SLOTS - 1;
    c->tx.rto = e->rto_init;
    c->tx.una = c->tx.snd = c->tx.nxt = e->first_seq;
    c->rx.nxt = e->first_seq;
}

void udp_conn_fini(udp_conn_t *c)
{
    udp_tx_release_all(&c->tx);
    udp_rx_release_all(&c->rx);
}

void udp_conn_activate(udp_engine_t *e, udp_conn_t *c)
{
    if (c->active)
        return;
    c->active = 1;
    c->next_active = e->active;
    e->active = c;
}

#define UDP_AWAY_NS 1000000000ull

void udp_engine_poll_timers(udp_engine_t *e)
{
    if (e->now - e->timers_at > UDP_AWAY_NS)
        e->resumed_at = e->now;
    e->timers_at = e->now;
    udp_conn_t **link = &e->active;
    while (*link) {
        udp_conn_t *c = *link;
        udp_tx_on_timer(e, c);
        if (c->tx.snd != c->tx.nxt)
            udp_tx_pump(e, c);
        udp_rx_on_timer(e, c);
        if (udp_tx_pending(c) == 0 && !udp_rx_ack_pending(c)) {
            *link = c->next_active;
            c->active = 0;
            c->next_active = NULL;
        } else {
            link = &c->next_active;
        }
    }
}

int udp_conn_receive(udp_engine_t *e, udp_conn_t *c, const udp_hdr_t *h, const void *payload, size_t len)
{
    c->heard_at = e->now;
    c->silence_told = 0;
    udp_tx_on_ack(e, c, h->ack, h->sack, h->wnd);
    if (h->type == UDP_T_DATA)
        return udp_rx_on_data(e, c, h, payload, len);
    if (h->flags & UDP_F_ACKREQ) {
        c->rx.ack_now = 1;
        udp_conn_activate(e, c);
    }
    return 0;
}
