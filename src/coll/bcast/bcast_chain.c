/*
 * Bcast, pipelined chain: the message is cut into segments that flow root -> root+1 -> ... ->
 * root+p-1; each rank forwards segment i while receiving segment i+1. For large messages.
 * Cost: (p - 2 + nseg) (alpha + (n/nseg) beta).
 */
#include "coll/coll_algs.h"

#define CHAIN_SEGMENT (64 * 1024)

EMPI_ALG(empi_bcast_chain)
{
    int p = s->comm->size, rank = s->comm->rank, root = a->root;
    if (p == 1 || a->rcount * a->rdt->size == 0)
        return MPI_SUCCESS;
    empi_bytes_view_t bv;
    EMPI_TRY(empi_bytes_begin(s, &bv, a->rbuf, a->rcount, a->rdt, rank == root));
    MPI_Count n = bv.len, seg = CHAIN_SEGMENT;
    int nseg = (int)((n + seg - 1) / seg);
    int v = (rank - root + p) % p;
    int prev = (rank - 1 + p) % p, next = (rank + 1) % p;
    int has_next = v < p - 1;
    for (int i = 0; i <= nseg; i++) {
        if (i < nseg && v > 0) {
            MPI_Count lo = (MPI_Count)i * seg, len = n - lo < seg ? n - lo : seg;
            EMPI_TRY(empi_sched_recv(s, bv.bytes + lo, len, empi_byte_type, prev));
        }
        int fwd = v == 0 ? i : i - 1;   /* the root sends segment i at once, others the one they have */
        if (has_next && fwd >= 0 && fwd < nseg) {
            MPI_Count lo = (MPI_Count)fwd * seg, len = n - lo < seg ? n - lo : seg;
            EMPI_TRY(empi_sched_send(s, bv.bytes + lo, len, empi_byte_type, next));
        }
        EMPI_TRY(empi_sched_fence(s));
    }
    return rank == root ? MPI_SUCCESS : empi_bytes_finish(s, &bv);
}
