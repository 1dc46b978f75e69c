/* The receiving side: match arriving packets to posted receives, run rendezvous, and complete. */
#include <stdlib.h>
#include <string.h>

#include "core/copy.h"
#include "core/error.h"
#include "core/global.h"
#include "core/tunables.h"
#include "pt2pt/coop.h"
#include "pt2pt/pt2pt_internal.h"
#include "pt2pt/stats.h"
#include "pt2pt/stream_choice.h"

#define EMPI_GET_BOUNCE 262144 /* single-copy reads into a noncontiguous buffer go through this */

/* Small unexpected payloads live inside pooled records. A sender running ahead of its receiver (a
   chain of exscans, a stream of small sends) queues many, then the receiver frees them all, which
   overflows malloc's small per-thread cache and costs as much as the message itself. */
#define EMPI_UNEXPECTED_INLINE 48
typedef struct {
    empi_unexpected_t msg;
    char payload[EMPI_UNEXPECTED_INLINE];
} pooled_unexpected_t;
static empi_pool_t unexpected_pool = EMPI_POOL_INITIALIZER(pooled_unexpected_t, "unexpected message");

static uint64_t capacity_of(const empi_request_t *req)
{
    return (uint64_t)(req->count * req->dt->size);
}

/* Record what arrived; a message longer than the buffer is cut and flagged MPI_ERR_TRUNCATE. */
static uint64_t set_recv_status(empi_request_t *req, int src, int tag, uint64_t bytes)
{
    uint64_t cap = capacity_of(req);
    req->status.MPI_SOURCE = src;
    req->status.MPI_TAG = tag;
    req->status.MPI_ERROR = bytes > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    empi_status_set_bytes(&req->status, (MPI_Count)(bytes > cap ? cap : bytes));
    empi_pt2pt_stats.receives++;
    empi_pt2pt_stats.bytes_received += bytes > cap ? cap : bytes;
    return bytes > cap ? cap : bytes;
}

static void unpack_into(empi_request_t *req, uint64_t offset, const void *data, uint64_t len)
{
    uint64_t cap = capacity_of(req);
    if (offset >= cap)
        return;
    if (offset + len > cap)
        len = cap - offset;
    char *dst = (char *)req->buf + req->dt->true_lb + offset;
    if (req->dt->is_contig)
        empi_copy_for(dst, data, len, req->bytes, empi_tunables.copy_stream_threshold);
    else
        empi_dt_unpack(req->buf, req->count, req->dt, (MPI_Count)offset, data, (MPI_Count)len);
}

static void send_ack(int peer, uint8_t type, uint64_t sreq)
{
    empi_hdr_ack_t ack = {.type = type, .sreq = sreq};
    empi_send_ctrl(peer, &ack, sizeof ack);
}

/* Read the sender's buffer directly; 0 on success, -1 if this pair cannot (fall back to CTS). */
static int rndv_get(empi_request_t *req, int world_src, uint64_t addr, uint64_t len)
{
    empi_transport_t *tp = empi_p2p.peer_tp[world_src];
    if (!tp->has_get)
        return -1;
    if (req->dt->is_contig)
        return tp->get(world_src, (char *)req->buf + req->dt->true_lb, (const void *)(uintptr_t)addr, len) == EMPI_OK
                   ? 0 : -1;
    char *bounce = malloc(EMPI_GET_BOUNCE);
    if (!bounce)
        return -1;
    for (uint64_t off = 0; off < len; off += EMPI_GET_BOUNCE) {
        uint64_t n = len - off < EMPI_GET_BOUNCE ? len - off : EMPI_GET_BOUNCE;
        if (tp->get(world_src, bounce, (const void *)(uintptr_t)(addr + off), n) != EMPI_OK) {
            free(bounce);
            return -1;
        }
        empi_dt_unpack(req->buf, req->count, req->dt, (MPI_Count)off, bounce, (MPI_Count)n);
    }
    free(bounce);
    return 0;
}

/* Read a noncontiguous sender's runs in place; 0 on success, -1 to fall back to the rings. */
static int rndv_get_runs(empi_request_t *req, int world_src, uint64_t addr, uint64_t nruns, uint64_t take)
{
    empi_transport_t *tp = empi_p2p.peer_tp[world_src];
    if (!tp->get_iov || !tp->has_get || nruns == 0 || nruns > take)
        return -1;
    size_t nlocal;
    struct iovec whole = {(char *)req->buf + req->dt->true_lb, (size_t)take}, *local = &whole, *remote = NULL;
    if (req->dt->is_contig)
        nlocal = 1;
    else if (!(local = empi_pt2pt_runs(req->buf, req->count, req->dt, take, &nlocal)))
        return -1;
    int rc = -1;
    if ((remote = malloc((size_t)nruns * sizeof *remote)) &&
        tp->get(world_src, remote, (const void *)(uintptr_t)addr, (size_t)nruns * sizeof *remote) == EMPI_OK)
        rc = tp->get_iov(world_src, local, nlocal, remote, (size_t)nruns) == EMPI_OK ? 0 : -1;
    if (rc == 0)
        empi_pt2pt_stats.runs_recvs++;
    free(remote);
    if (local != &whole)
        free(local);
    return rc;
}

/* Rendezvous receives whose transfer time teaches the choice of streamed ring copies. */
static int stream_timed(const empi_transport_t *tp, uint64_t bytes)
{
    return tp->stream_send && bytes >= empi_tunables.shm_stream_min;
}

/* What an RTS offers, whether it just came or waited as an unexpected message. */
typedef struct {
    uint64_t sreq, bytes, addr, runs;
    int flags;
} rndv_offer_t;

/*
 * Whether a rendezvous receive whose sender offers single copy should go through the rings after
 * all: where the transport reads single copy only from a size (get_min, a host where CMA is slow)
 * and both sides are sending (the receiver has sends in flight, or the sender had receives posted
 * when it sent the RTS: either may come first in an MPI_Sendrecv), both cores are busy, and two
 * copies each at cache speed beat one slow single copy up to EMPI_SHM_CMA_EXCHANGE_MAX.
 */
static int in_exchange(int world_src, const rndv_offer_t *o, uint64_t bytes)
{
    int sending = empi_p2p.inflight_sends > 0 && empi_p2p.inflight_sends <= EMPI_EXCHANGE_MAX_PENDING;
    return empi_p2p.peer_tp[world_src]->get_min && bytes <= empi_tunables.shm_cma_exchange_max &&
           (sending || (o->flags & EMPI_RTS_EXCHANGE));
}

static int read_in_place(empi_request_t *req, int world_src, const rndv_offer_t *o, uint64_t take)
{
    if (in_exchange(world_src, o, take))
        return 0;
    if (o->flags & EMPI_RTS_GETTABLE)
        return (req->dt->is_contig && empi_coop_recv(world_src, (char *)req->buf + req->dt->true_lb, o->addr,
                                                     take) == 0) ||
               rndv_get(req, world_src, o->addr, take) == 0;
    return (o->flags & EMPI_RTS_GETTABLE_RUNS) && rndv_get_runs(req, world_src, o->addr, o->runs, take) == 0;
}

/*
 * A message that is all its receiver expects (no other receive posted, no send of its own in
 * flight, not half of an exchange whose other half went first: a ping-pong) and that the packet
 * channel's cells hold whole goes there, not on bulk: the cells are in its sender's cache, the
 * bulk ring's lines in the reader's (256 KiB ping-pong 7.5-8.6 against 10.2-10.9 us,
 * docs/PERFORMANCE.md run AG). Windows and exchanges keep the bulk ring.
 */
static int travels_alone(const empi_transport_t *tp, const rndv_offer_t *o, uint64_t bytes)
{
    return bytes <= tp->lone_max && empi_p2p.posted.length == 0 && empi_p2p.inflight_sends == 0 &&
           !(o->flags & EMPI_RTS_EXCHANGE);
}

static void recv_rndv(empi_request_t *req, int world_src, const rndv_offer_t *o)
{
    uint64_t sreq = o->sreq, bytes = o->bytes;
    uint64_t take = set_recv_status(req, req->status.MPI_SOURCE, req->status.MPI_TAG, bytes);
    if (read_in_place(req, world_src, o, take)) {
        empi_pt2pt_stats.single_copy_recvs++;
        send_ack(world_src, EMPI_PKT_FIN, sreq);
        empi_request_set_complete(req);
        return;
    }
    req->bytes = bytes;
    req->done_bytes = 0;
    req->proto_state = EMPI_RECV_DATA;
    empi_p2p.rndv_recvs++;
    req->world_peer = world_src;
    /* The receiver picks the channel and says so in the CTS: the two sides cannot disagree. */
    empi_transport_t *tp = empi_p2p.peer_tp[world_src];
    req->bulk = tp->bulk_max_packet != 0 && bytes >= empi_tunables.bulk_threshold && !travels_alone(tp, o, bytes);
    if (req->bulk) {
        empi_pt2pt_stats.bulk_recvs++;
        tp->bulk_expect(world_src, +1);
    }
    req->stream = tp->stream_send ? empi_stream_choose(bytes) : 0;
    empi_hdr_cts_t cts = {.type = EMPI_PKT_CTS,
                          .flags = (uint8_t)((req->bulk ? EMPI_CTS_BULK : 0) | (req->stream ? EMPI_CTS_STREAM : 0)),
                          .sreq = sreq,
                          .rreq = (uint64_t)(uintptr_t)req};
    if (stream_timed(tp, bytes))
        req->t_cts = PMPI_Wtime();
    empi_send_ctrl(world_src, &cts, sizeof cts);
}

static void recv_eager(empi_request_t *req, const void *data, uint64_t bytes)
{
    uint64_t take = set_recv_status(req, req->status.MPI_SOURCE, req->status.MPI_TAG, bytes);
    unpack_into(req, 0, data, take);
    empi_request_set_complete(req);
}

void empi_unexpected_free(empi_unexpected_t *msg)
{
    if (msg->pooled) {
        empi_pool_free(&unexpected_pool, msg);
        return;
    }
    msg->magic = EMPI_MAGIC_FREED;
    free(msg);
}

void empi_recv_matched_unexpected(empi_request_t *req, empi_unexpected_t *msg)
{
    req->status.MPI_SOURCE = msg->src;
    req->status.MPI_TAG = msg->tag;
    if (msg->type == EMPI_PKT_RTS) {
        rndv_offer_t o = {msg->sreq, msg->bytes, msg->addr, msg->runs, msg->rts_flags};
        recv_rndv(req, msg->world_src, &o);
    } else {
        if (msg->type == EMPI_PKT_EAGER_SYNC)
            send_ack(msg->world_src, EMPI_PKT_SYNC_ACK, msg->sreq);
        recv_eager(req, msg->data, msg->bytes);
    }
    empi_unexpected_free(msg);
}

int empi_recv_start(empi_request_t *req)
{
    req->complete = 0;
    empi_status_empty(&req->status);
    if (req->peer == MPI_PROC_NULL) {
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        empi_request_set_complete(req);
        return MPI_SUCCESS;
    }
    empi_unexpected_t *msg = empi_unexpected_find(&empi_p2p.unexpected, req->ctx, req->peer, req->tag);
    if (msg) {
        empi_unexpected_remove(&empi_p2p.unexpected, msg);
        empi_recv_matched_unexpected(req, msg);
        return MPI_SUCCESS;
    }
    req->proto_state = EMPI_RECV_POSTED;
    empi_posted_append(&empi_p2p.posted, req);
    return MPI_SUCCESS;
}

/* A message nobody waits for yet: keep its envelope, and its payload if it came eagerly. */
static void store_unexpected(int world_src, const empi_hdr_match_t *m, const void *pkt, size_t len)
{
    size_t hdr_len = m->type == EMPI_PKT_EAGER ? sizeof(empi_hdr_match_t)
                     : m->type == EMPI_PKT_EAGER_SYNC ? sizeof(empi_hdr_eager_sync_t) : len;
    size_t payload = len - hdr_len;
    empi_unexpected_t *msg;
    if (payload <= EMPI_UNEXPECTED_INLINE && (msg = empi_pool_alloc(&unexpected_pool))) {
        msg->pooled = 1;
    } else {
        msg = malloc(sizeof *msg + payload);
        if (!msg)
            abort();
        memset(msg, 0, sizeof *msg);
    }
    msg->type = m->type;
    msg->ctx = m->ctx;
    msg->src = m->src;
    msg->tag = m->tag;
    msg->world_src = world_src;
    msg->data = msg + 1;
    if (m->type == EMPI_PKT_RTS) {
        const empi_hdr_rts_t *rts = pkt;
        msg->bytes = rts->bytes;
        msg->sreq = rts->sreq;
        msg->addr = rts->addr;
        msg->runs = rts->runs;
        msg->rts_flags = m->flags;
    } else {
        msg->bytes = payload;
        if (m->type == EMPI_PKT_EAGER_SYNC)
            msg->sreq = ((const empi_hdr_eager_sync_t *)pkt)->sreq;
        empi_copy(msg->data, (const char *)pkt + hdr_len, payload);
    }
    empi_unexpected_append(&empi_p2p.unexpected, msg);
    empi_pt2pt_stats.unexpected++;
    if (empi_p2p.unexpected.length > empi_pt2pt_stats.unexpected_hwm)
        empi_pt2pt_stats.unexpected_hwm = empi_p2p.unexpected.length;
}

static void on_match_packet(int world_src, const void *pkt, size_t len)
{
    const empi_hdr_match_t *m = pkt;
    empi_request_t *req = empi_posted_take(&empi_p2p.posted, m->ctx, m->src, m->tag);
    if (!req) {
        store_unexpected(world_src, m, pkt, len);
        return;
    }
    req->status.MPI_SOURCE = m->src;
    req->status.MPI_TAG = m->tag;
    switch (m->type) {
    case EMPI_PKT_EAGER:
        recv_eager(req, m + 1, len - sizeof *m);
        break;
    case EMPI_PKT_EAGER_SYNC: {
        const empi_hdr_eager_sync_t *s = pkt;
        send_ack(world_src, EMPI_PKT_SYNC_ACK, s->sreq);
        recv_eager(req, s + 1, len - sizeof *s);
        break;
    }
    default: {
        const empi_hdr_rts_t *rts = pkt;
        rndv_offer_t o = {rts->sreq, rts->bytes, rts->addr, rts->runs, m->flags};
        recv_rndv(req, world_src, &o);
    }
    }
}

static void on_data(const empi_hdr_data_t *hdr, size_t len)
{
    empi_request_t *req = (empi_request_t *)(uintptr_t)hdr->rreq;
    size_t n = len - sizeof *hdr;
    unpack_into(req, hdr->offset, hdr + 1, n);
    req->done_bytes += n;
    if (req->done_bytes >= req->bytes) {
        empi_transport_t *tp = empi_p2p.peer_tp[req->world_peer];
        if (stream_timed(tp, req->bytes)) {
            empi_stream_learn(req->stream, req->bytes, PMPI_Wtime() - req->t_cts);
            empi_stream_publish();
        }
        if (req->bulk)
            tp->bulk_expect(req->world_peer, -1);
        empi_p2p.rndv_recvs--;
        empi_request_set_complete(req);
    }
}

int empi_unexpected_withdraw(int world_src, uint64_t sreq)
{
    for (empi_unexpected_t *msg = empi_p2p.unexpected.head; msg; msg = msg->next) {
        if (msg->world_src == world_src && msg->sreq == sreq && msg->type != EMPI_PKT_EAGER &&
            msg->magic != EMPI_MAGIC_MESSAGE) {
            empi_unexpected_remove(&empi_p2p.unexpected, msg);
            empi_unexpected_free(msg);
            return 1;
        }
    }
    return 0;
}

/* MPI_Cancel of a send from `src`. The answer goes behind anything already sent for it (SYNC_ACK,
   CTS), so a "no" needs no request. */
static void on_cancel(int src, uint64_t sreq)
{
    empi_hdr_ack_t ack = {.type = EMPI_PKT_CANCEL_ACK, .ok = (uint8_t)empi_unexpected_withdraw(src, sreq),
                          .sreq = sreq};
    empi_send_ctrl(src, &ack, sizeof ack);
}

void empi_pt2pt_deliver(int src, const void *pkt, size_t len)
{
    const uint8_t type = *(const uint8_t *)pkt;
    switch (type) {
    case EMPI_PKT_EAGER:
    case EMPI_PKT_EAGER_SYNC:
    case EMPI_PKT_RTS:
        on_match_packet(src, pkt, len);
        break;
    case EMPI_PKT_DATA:
        on_data(pkt, len);
        break;
    case EMPI_PKT_CTS: {
        const empi_hdr_cts_t *cts = pkt;
        empi_request_t *req = (empi_request_t *)(uintptr_t)cts->sreq;
        req->remote_id = cts->rreq;
        req->proto_state = cts->flags & EMPI_CTS_BULK ? EMPI_SEND_DATA_BULK : EMPI_SEND_DATA;
        req->stream = (cts->flags & EMPI_CTS_STREAM) != 0;
        if (empi_p2p.outq[req->world_peer].head || empi_send_push(req) == EMPI_AGAIN)
            empi_outq_push_req(req->world_peer, req);
        break;
    }
    case EMPI_PKT_COOP:
        empi_coop_help(src, pkt);
        break;
    case EMPI_PKT_FIN:
    case EMPI_PKT_SYNC_ACK:
        empi_send_complete((empi_request_t *)(uintptr_t)((const empi_hdr_ack_t *)pkt)->sreq);
        break;
    case EMPI_PKT_CANCEL:
        on_cancel(src, ((const empi_hdr_ack_t *)pkt)->sreq);
        break;
    case EMPI_PKT_CANCEL_ACK:
        /* withdrawn: the send completes cancelled; otherwise it completes as it would have, and
           the request may already be gone, so it is not touched */
        if (((const empi_hdr_ack_t *)pkt)->ok) {
            empi_request_t *req = (empi_request_t *)(uintptr_t)((const empi_hdr_ack_t *)pkt)->sreq;
            empi_status_set_cancelled(&req->status, 1);
            empi_send_complete(req);
        }
        break;
    case EMPI_PKT_RMA:
        if (!empi_pt2pt_rma_handler)
            empi_fatal(MPI_ERR_INTERN, "corrupt packet: RMA packet without an RMA layer");
        empi_pt2pt_rma_handler(src, pkt, len);
        break;
    default:
        empi_fatal(MPI_ERR_INTERN, "corrupt packet: unknown type");
    }
}
