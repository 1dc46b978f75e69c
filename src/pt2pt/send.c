/* The sending side of the protocols: choose eager or rendezvous, and push packets out. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/tunables.h"
#include "pt2pt/pt2pt_internal.h"
#include "pt2pt/stats.h"
#include "pt2pt/stream_choice.h"

void empi_send_complete(empi_request_t *req)
{
    free(req->tmp);   /* the runs an RTS offered, read or not by now */
    req->tmp = NULL;
    empi_p2p.inflight_sends--;
    empi_request_set_complete(req);
}

static int msg_is_contig(const empi_request_t *req)
{
    return req->dt->is_contig;
}

static const void *contig_base(const empi_request_t *req)
{
    return (const char *)req->buf + req->dt->true_lb;
}

/* Bytes [offset, offset + len) of a noncontiguous message, packed where the transport says. */
typedef struct {
    const empi_request_t *req;
    MPI_Count offset, len;
} pack_piece_t;

static void pack_piece(void *arg, void *dst, int stream)
{
    const pack_piece_t *p = arg;
    (stream ? empi_dt_pack_stream : empi_dt_pack)(p->req->buf, p->req->count, p->req->dt, p->offset, dst,
                                                  p->len);
}

/*
 * Send hdr followed by message bytes [offset, offset + len) of a noncontiguous message: packed
 * straight into the transport's buffer when it can take that (with non-temporal stores when
 * `stream`, as stream_send writes contiguous ones), else through the scratch buffer.
 */
static int send_packed(empi_request_t *req, empi_transport_t *tp, int bulk, const struct iovec *hdr,
                       size_t offset, size_t len, int stream)
{
    if (tp->send_fill) {
        pack_piece_t piece = {req, (MPI_Count)offset, (MPI_Count)len};
        return tp->send_fill(req->world_peer, bulk, hdr, 1, len, pack_piece, &piece, stream);
    }
    empi_dt_pack(req->buf, req->count, req->dt, (MPI_Count)offset, empi_p2p.scratch, (MPI_Count)len);
    struct iovec iov[2] = {*hdr, {empi_p2p.scratch, len}};
    return (bulk ? tp->bulk_send : tp->am_send)(req->world_peer, iov, 2);
}

/* Whether `peer` asked for eager payloads streamed into the ring (pt2pt/stream_choice.h). */
static int peer_wants_stream(empi_transport_t *tp, int peer)
{
    return tp->stream_send && tp->shared_line &&
           atomic_load_explicit(&tp->shared_line(peer)[EMPI_STREAM_LINE_WORD], memory_order_relaxed);
}

/* One eager packet: header plus the whole message, packed if the type is not contiguous. */
static int push_eager(empi_request_t *req, empi_transport_t *tp)
{
    union {
        empi_hdr_match_t m;
        empi_hdr_eager_sync_t s;
    } hdr;
    int sync = req->mode == EMPI_MODE_SYNC;
    hdr.m.type = sync ? EMPI_PKT_EAGER_SYNC : EMPI_PKT_EAGER;
    hdr.m.flags = 0;
    hdr.m.reserved = 0;
    hdr.m.ctx = req->ctx;
    hdr.m.src = req->comm->rank;
    hdr.m.tag = req->tag;
    if (sync)
        hdr.s.sreq = (uint64_t)(uintptr_t)req;
    struct iovec iov[2] = {{&hdr, sync ? sizeof hdr.s : sizeof hdr.m}, {NULL, req->bytes}};
    int rc;
    int stream = req->bytes >= EMPI_STREAM_EAGER_MIN && peer_wants_stream(tp, req->world_peer);
    if (req->bytes && !msg_is_contig(req)) {
        rc = send_packed(req, tp, 0, iov, 0, req->bytes, stream);
    } else if (stream) {
        iov[1].iov_base = (void *)contig_base(req);
        rc = tp->stream_send(req->world_peer, 0, iov, 2);
    } else {
        if (req->bytes)
            iov[1].iov_base = (void *)contig_base(req);
        /* Past the eager limit a message is eager only because a cell the sender holds takes it:
           it must not stream past the cell into the ring */
        int one_way_ok = req->bytes && req->bytes <= empi_tunables.eager_limit && tp->eager_send;
        rc = (one_way_ok ? tp->eager_send : tp->am_send)(req->world_peer, iov, req->bytes ? 2 : 1);
    }
    if (rc != EMPI_OK)
        return rc;
    if (sync)
        req->proto_state = EMPI_SEND_WAIT_ACK;
    else
        empi_send_complete(req);
    return EMPI_OK;
}

static int push_rts(empi_request_t *req, empi_transport_t *tp)
{
    empi_hdr_rts_t rts;
    memset(&rts, 0, sizeof rts);
    rts.m.type = EMPI_PKT_RTS;
    rts.m.ctx = req->ctx;
    rts.m.src = req->comm->rank;
    rts.m.tag = req->tag;
    rts.sreq = (uint64_t)(uintptr_t)req;
    rts.bytes = req->bytes;
    size_t nruns;
    free(req->tmp);   /* from an earlier try that found no room for the RTS */
    req->tmp = NULL;
    /* Where get() is only for large messages, collectives do without it: their exchanges keep
       both cores copying, and there two copies each through the rings beat one slow single copy
       (2-rank allgather 1 MiB 104 -> 538 us with it, docs/PERFORMANCE.md run AE). */
    int gettable = tp->has_get && req->bytes >= tp->get_min && !(tp->get_min && EMPI_CONTEXT_IS_COLL(req->ctx));
    if (msg_is_contig(req) && gettable) {
        rts.m.flags |= EMPI_RTS_GETTABLE;
        rts.addr = (uint64_t)(uintptr_t)contig_base(req);
    } else if (gettable && tp->get_iov &&
               (req->tmp = empi_pt2pt_runs(req->buf, req->count, req->dt, req->bytes, &nruns))) {
        rts.m.flags |= EMPI_RTS_GETTABLE_RUNS;
        rts.addr = (uint64_t)(uintptr_t)req->tmp;
        rts.runs = nruns;
    }
    uint64_t receiving = empi_p2p.posted.length + (uint64_t)empi_p2p.rndv_recvs;
    if (receiving > 0 && receiving <= EMPI_EXCHANGE_MAX_PENDING)
        rts.m.flags |= EMPI_RTS_EXCHANGE;
    struct iovec iov = {&rts, sizeof rts};
    int rc = tp->am_send(req->world_peer, &iov, 1);
    if (rc == EMPI_OK)
        req->proto_state = EMPI_SEND_WAIT_ACK;
    return rc;
}

/*
 * After a CTS: stream the message in DATA packets as fast as the transport takes them, on its bulk
 * channel when the CTS asked for it (the receiver polls that channel until the data is in).
 */
static int push_data(empi_request_t *req, empi_transport_t *tp, int bulk)
{
    int (*send)(int, const struct iovec *, int) = bulk ? tp->bulk_send : tp->am_send;
    size_t chunk = (bulk ? tp->bulk_max_packet : tp->max_packet) - sizeof(empi_hdr_data_t);
    size_t cap = tp->data_chunk ? tp->data_chunk : empi_tunables.rndv_chunk;
    if (chunk > cap)
        chunk = cap;
    if (chunk >= 8192)
        chunk &= ~(size_t)4095;   /* whole pages: chunks of a page-aligned buffer stay aligned */
    int contig = msg_is_contig(req), stream = req->stream && tp->stream_send;
    while (req->done_bytes < req->bytes) {
        size_t n = req->bytes - req->done_bytes < chunk ? req->bytes - req->done_bytes : chunk;
        empi_hdr_data_t hdr = {.type = EMPI_PKT_DATA, .rreq = req->remote_id, .offset = req->done_bytes};
        struct iovec iov[2] = {{&hdr, sizeof hdr}, {NULL, n}};
        int rc;
        if (contig) {
            iov[1].iov_base = (char *)contig_base(req) + req->done_bytes;
            rc = stream ? tp->stream_send(req->world_peer, bulk, iov, 2) : send(req->world_peer, iov, 2);
        } else {
            rc = send_packed(req, tp, bulk, iov, req->done_bytes, n, stream);
        }
        if (rc != EMPI_OK)
            return rc;
        req->done_bytes += n;
    }
    empi_send_complete(req);
    return EMPI_OK;
}

int empi_send_push(empi_request_t *req)
{
    empi_transport_t *tp = empi_p2p.peer_tp[req->world_peer];
    switch (req->proto_state) {
    case EMPI_SEND_EAGER_QUEUED: return push_eager(req, tp);
    case EMPI_SEND_RTS_QUEUED: return push_rts(req, tp);
    case EMPI_SEND_DATA: return push_data(req, tp, 0);
    case EMPI_SEND_DATA_BULK: return push_data(req, tp, 1);
    default: return EMPI_OK;
    }
}

int empi_send_start(empi_request_t *req)
{
    req->complete = 0;
    req->done_bytes = 0;
    req->cancel_sent = 0;
    empi_status_empty(&req->status);
    if (req->peer == MPI_PROC_NULL) {
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        empi_request_set_complete(req);
        return MPI_SUCCESS;
    }
    req->world_peer = req->comm->world_ranks[req->peer];
    req->bytes = (uint64_t)(req->count * req->dt->size);
    empi_transport_t *tp = empi_p2p.peer_tp[req->world_peer];
    if (!tp)
        return MPI_ERR_RANK;
    size_t pkt = req->bytes + (req->mode == EMPI_MODE_SYNC ? sizeof(empi_hdr_eager_sync_t) : sizeof(empi_hdr_match_t));
    int queued = empi_p2p.outq[req->world_peer].head != NULL;
    /* Beyond the eager limit, or from rndv_min (single copy), a message still goes eagerly
       through a shared cell the sender holds: a stream keeps both cores copying. With single copy
       a contiguous one does so only behind other sends in flight; alone, it goes by rendezvous,
       whose one copy out of the sender's buffer (still clean in the shared cache) beats two
       (ping-pong 16-32 KiB 0.61-0.68, bandwidth 0.97-0.98). */
    int eager = pkt <= tp->max_packet &&
                ((req->bytes <= empi_tunables.eager_limit && !(tp->rndv_min && req->bytes >= tp->rndv_min)) ||
                 (!queued && (!tp->rndv_min || !req->dt->is_contig || empi_p2p.inflight_sends > 0) &&
                  tp->eager_fits && tp->eager_fits(req->world_peer, pkt)));
    req->proto_state = eager ? EMPI_SEND_EAGER_QUEUED : EMPI_SEND_RTS_QUEUED;
    empi_pt2pt_stats.sends++;
    empi_pt2pt_stats.bytes_sent += req->bytes;
    if (eager)
        empi_pt2pt_stats.eager_sends++;
    else
        empi_pt2pt_stats.rndv_sends++;
    empi_p2p.inflight_sends++;
    /* Behind queued packets to the same peer we must wait our turn: FIFO per pair is what keeps
       messages from overtaking each other. */
    int rc = queued ? EMPI_AGAIN : empi_send_push(req);
    if (rc == EMPI_AGAIN)
        empi_outq_push_req(req->world_peer, req);
    else if (rc != EMPI_OK)
        empi_outq_send_failed(req->world_peer);
    return MPI_SUCCESS;
}
