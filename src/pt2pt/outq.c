/*
 * Per-peer queues of what could not go out yet because the transport had no room. Anything for a
 * peer goes behind what already waits for it, so packets leave in the order they were issued.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/global.h"
#include "pt2pt/pt2pt_internal.h"
#include "pt2pt/stats.h"

static empi_pool_t item_pool = EMPI_POOL_INITIALIZER(empi_outq_item_t, "outq item");

static void outq_append(int peer, empi_outq_item_t *item)
{
    empi_outq_t *q = &empi_p2p.outq[peer];
    item->next = NULL;
    if (q->tail)
        q->tail->next = item;
    else
        q->head = item;
    q->tail = item;
    if (!q->listed) {
        q->listed = 1;
        empi_p2p.busy_peers[empi_p2p.nbusy++] = peer;
    }
}

void empi_outq_push_req(int peer, empi_request_t *req)
{
    empi_outq_item_t *item = empi_pool_alloc(&item_pool);
    if (!item)
        abort(); /* nothing sensible to do without memory for a queue entry */
    item->req = req;
    outq_append(peer, item);
    empi_pt2pt_stats.deferred_sends++;
}

void empi_send_ctrl(int peer, const void *pkt, size_t len)
{
    if (!empi_p2p.outq[peer].head) {
        struct iovec iov = {(void *)pkt, len};
        if (empi_p2p.peer_tp[peer]->am_send(peer, &iov, 1) == EMPI_OK)
            return;
    }
    empi_outq_item_t *item = empi_pool_alloc(&item_pool);
    if (!item)
        abort();
    item->req = NULL;
    item->len = (uint32_t)len;
    memcpy(&item->ctrl, pkt, len);
    outq_append(peer, item);
}

/* A transport refusing a packet for good (not "again") leaves the pair unable to keep MPI's
   order: the job ends with the reason rather than hanging on a request that will never finish. */
void empi_outq_send_failed(int peer)
{
    char msg[160];
    snprintf(msg, sizeof msg, "sending to rank %d over %s failed", peer, empi_p2p.peer_tp[peer]->name);
    empi_fatal(MPI_ERR_OTHER, msg);
}

/* Push one peer's queue as far as the transport takes it; returns items sent. */
static int drain_peer(int peer)
{
    empi_outq_t *q = &empi_p2p.outq[peer];
    int sent = 0;
    while (q->head) {
        empi_outq_item_t *item = q->head;
        int rc;
        if (item->req) {
            rc = empi_send_push(item->req);
        } else {
            struct iovec iov = {&item->ctrl, item->len};
            rc = empi_p2p.peer_tp[peer]->am_send(peer, &iov, 1);
        }
        if (rc == EMPI_AGAIN)
            break;
        if (rc != EMPI_OK)
            empi_outq_send_failed(peer);
        q->head = item->next;
        if (!q->head)
            q->tail = NULL;
        empi_pool_free(&item_pool, item);
        sent++;
    }
    return sent;
}

int empi_outq_progress(void)
{
    int events = 0;
    for (int i = 0; i < empi_p2p.nbusy;) {
        int peer = empi_p2p.busy_peers[i];
        events += drain_peer(peer);
        if (!empi_p2p.outq[peer].head) {
            empi_p2p.outq[peer].listed = 0;
            empi_p2p.busy_peers[i] = empi_p2p.busy_peers[--empi_p2p.nbusy];
        } else {
            i++;
        }
    }
    return events;
}
