/* Point-to-point setup and the internal send/receive entry points used by every layer. */
#include <stdio.h>
#include <stdlib.h>

#include "core/global.h"
#include "core/progress.h"
#include "core/tunables.h"
#include "pt2pt/args.h"
#include "pt2pt/pt2pt_internal.h"
#include "pt2pt/stats.h"
#include "pt2pt/stream_choice.h"

empi_pt2pt_t empi_p2p;
empi_datatype_t *empi_byte_type;
empi_pt2pt_stats_t empi_pt2pt_stats;

uint64_t empi_pt2pt_posted_length(void)
{
    return empi_p2p.posted.length;
}

uint64_t empi_pt2pt_unexpected_length(void)
{
    return empi_p2p.unexpected.length;
}

/* Per-peer state for indices [npeers, n): what reaches each, and room for its packets. */
static int add_peers(int n)
{
    empi_transport_t **tp = realloc(empi_p2p.peer_tp, (size_t)n * sizeof *tp);
    if (tp)
        empi_p2p.peer_tp = tp;
    empi_outq_t *outq = realloc(empi_p2p.outq, (size_t)n * sizeof *outq);
    if (outq)
        empi_p2p.outq = outq;
    int *busy = realloc(empi_p2p.busy_peers, (size_t)n * sizeof *busy);
    if (busy)
        empi_p2p.busy_peers = busy;
    if (!tp || !outq || !busy)
        return MPI_ERR_NO_MEM;
    size_t max_packet = empi_p2p.scratch_size;
    for (int r = empi_p2p.npeers; r < n; r++) {
        outq[r] = (empi_outq_t){0};
        tp[r] = empi_transport_for(r);
        if (!tp[r])
            return MPI_ERR_INTERN;
        /* Noncontiguous data is packed here one packet at a time, on either channel. */
        if (tp[r]->max_packet > max_packet)
            max_packet = tp[r]->max_packet;
        if (tp[r]->bulk_max_packet > max_packet)
            max_packet = tp[r]->bulk_max_packet;
    }
    empi_p2p.npeers = n;
    if (max_packet > empi_p2p.scratch_size) {
        void *scratch = realloc(empi_p2p.scratch, max_packet);
        if (!scratch)
            return MPI_ERR_NO_MEM;
        empi_p2p.scratch = scratch;
        empi_p2p.scratch_size = max_packet;
    }
    return MPI_SUCCESS;
}

int empi_pt2pt_init(void)
{
    int rc = add_peers(empi_g.boot.size);
    if (rc != MPI_SUCCESS)
        return rc;
    empi_byte_type = empi_datatype_get(MPI_BYTE);
    empi_stream_reset();
    empi_progress_add_hook(empi_outq_progress);
    empi_stream_start();
    return MPI_SUCCESS;
}

int empi_pt2pt_add_peers(int total)
{
    int rc = empi_transport_add_peers(total);
    return rc == MPI_SUCCESS && total > empi_p2p.npeers ? add_peers(total) : rc;
}

/*
 * Everyone is finalizing (init.c's barrier), so no receive will be posted any more: a send still
 * waiting once nothing has moved for EMPI_FINALIZE_STALL seconds was never matched (an erroneous
 * program, MPI 4.1 11.2.2). Say so and go on rather than hang.
 */
void empi_pt2pt_finalize(void)
{
    int idle = 0;
    double quiet_since = PMPI_Wtime();
    while (empi_p2p.inflight_sends != 0 || empi_p2p.nbusy != 0) {
        if (empi_progress_poll() != 0) {
            idle = 0;
            quiet_since = PMPI_Wtime();
            continue;
        }
        if (PMPI_Wtime() - quiet_since > (double)empi_tunables.finalize_stall) {
            fprintf(stderr, "EtherMPI: rank %d: MPI_Finalize: %d send(s) were never received; dropped\n",
                    empi_g.boot.rank, empi_p2p.inflight_sends);
            break;
        }
        empi_progress_idle(&idle);
    }
    while (empi_p2p.unexpected.head) {
        empi_unexpected_t *msg = empi_p2p.unexpected.head;
        empi_unexpected_remove(&empi_p2p.unexpected, msg);
        empi_unexpected_free(msg);
    }
    free(empi_p2p.peer_tp);
    free(empi_p2p.outq);
    free(empi_p2p.busy_peers);
    free(empi_p2p.scratch);
    empi_p2p = (empi_pt2pt_t){0};
}

static empi_request_t *new_p2p_request(empi_req_kind_t kind, void *buf, MPI_Count count, empi_datatype_t *dt,
                                       int peer, int tag, empi_comm_t *comm, uint32_t ctx)
{
    empi_request_t *req = empi_request_new(kind, comm);
    if (!req)
        return NULL;
    req->buf = buf;
    req->count = count;
    req->dt = dt;
    empi_datatype_retain(dt);
    req->peer = peer;
    req->tag = tag;
    req->ctx = ctx;
    return req;
}

void (*empi_pt2pt_rma_handler)(int src, const void *pkt, size_t len);

int empi_pt2pt_read(int world_peer, void *local, const void *remote, size_t len)
{
    const empi_transport_t *tp = empi_p2p.peer_tp[world_peer];
    return tp && tp->has_get && tp->get(world_peer, local, remote, len) == EMPI_OK ? 0 : -1;
}

int empi_pt2pt_can_read(int world_peer)
{
    const empi_transport_t *tp = empi_p2p.peer_tp[world_peer];
    return tp && tp->has_get && tp->get_min == 0;
}

int empi_pt2pt_write(int world_peer, const void *local, void *remote, size_t len)
{
    const empi_transport_t *tp = empi_p2p.peer_tp[world_peer];
    return tp && tp->has_get && tp->put && tp->put(world_peer, local, remote, len) == EMPI_OK ? 0 : -1;
}

int empi_pt2pt_packet_send(int world_peer, const struct iovec *iov, int iovcnt)
{
    return empi_p2p.peer_tp[world_peer]->am_send(world_peer, iov, iovcnt);
}

size_t empi_pt2pt_packet_max(int world_peer)
{
    return empi_p2p.peer_tp[world_peer]->max_packet;
}

int empi_isend(const void *buf, MPI_Count count, empi_datatype_t *dt, int dest, int tag, empi_comm_t *comm,
               uint32_t ctx, empi_send_mode_t mode, empi_request_t **out)
{
    empi_request_t *req = new_p2p_request(EMPI_REQ_SEND, (void *)buf, count, dt, dest, tag, comm, ctx);
    if (!req)
        return MPI_ERR_NO_MEM;
    req->mode = mode;
    int rc = empi_send_start(req);
    if (rc != MPI_SUCCESS) {
        empi_request_release(req);
        return rc;
    }
    *out = req;
    return MPI_SUCCESS;
}

int empi_irecv(void *buf, MPI_Count count, empi_datatype_t *dt, int source, int tag, empi_comm_t *comm,
               uint32_t ctx, empi_request_t **out)
{
    empi_request_t *req = new_p2p_request(EMPI_REQ_RECV, buf, count, dt, source, tag, comm, ctx);
    if (!req)
        return MPI_ERR_NO_MEM;
    empi_recv_start(req);
    *out = req;
    return MPI_SUCCESS;
}

int empi_message_arrived(int source, int tag, uint32_t ctx)
{
    return empi_unexpected_find(&empi_p2p.unexpected, ctx, source, tag) != NULL;
}

int empi_wait_release(empi_request_t *req, MPI_Status *status)
{
    empi_request_wait(req);
    int rc = req->status.MPI_ERROR;
    if (status)
        empi_status_out(status, &req->status);
    empi_request_release(req);
    return rc;
}

int empi_waitall_release(int n, empi_request_t **reqs)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int r = empi_wait_release(reqs[i], NULL);
        if (r != MPI_SUCCESS)
            rc = r;
    }
    return rc;
}

int empi_send(const void *buf, MPI_Count count, empi_datatype_t *dt, int dest, int tag, empi_comm_t *comm,
              uint32_t ctx)
{
    empi_request_t *req;
    int rc = empi_isend(buf, count, dt, dest, tag, comm, ctx, EMPI_MODE_STANDARD, &req);
    return rc != MPI_SUCCESS ? rc : empi_wait_release(req, NULL);
}

int empi_recv(void *buf, MPI_Count count, empi_datatype_t *dt, int source, int tag, empi_comm_t *comm,
              uint32_t ctx, MPI_Status *status)
{
    empi_request_t *req;
    int rc = empi_irecv(buf, count, dt, source, tag, comm, ctx, &req);
    return rc != MPI_SUCCESS ? rc : empi_wait_release(req, status);
}

int empi_sendrecv(const void *sbuf, MPI_Count scount, empi_datatype_t *sdt, int dest, int stag, void *rbuf,
                  MPI_Count rcount, empi_datatype_t *rdt, int source, int rtag, empi_comm_t *comm, uint32_t ctx,
                  MPI_Status *status)
{
    empi_request_t *rreq, *sreq;
    int rc = empi_irecv(rbuf, rcount, rdt, source, rtag, comm, ctx, &rreq);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = empi_isend(sbuf, scount, sdt, dest, stag, comm, ctx, EMPI_MODE_STANDARD, &sreq);
    if (rc != MPI_SUCCESS) {
        empi_wait_release(rreq, status);
        return rc;
    }
    empi_wait_release(sreq, NULL);
    return empi_wait_release(rreq, status);
}
