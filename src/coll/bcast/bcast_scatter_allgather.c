/*
 * Bcast, scatter + allgather (van de Geijn): the message is cut into p chunks, scattered down a
 * binomial tree, then reassembled everywhere with a ring allgather. For large messages on many
 * ranks: every link carries about 2n bytes instead of n log p.
 * Cost: (log2 p + p - 1) alpha + 2 (p-1)/p n beta.
 */
#include "coll/coll_algs.h"

static MPI_Count clampc(MPI_Count x, MPI_Count n) { return x < n ? x : n; }

EMPI_ALG(empi_bcast_scatter_allgather)
{
    int p = s->comm->size, rank = s->comm->rank, root = a->root;
    if (p == 1 || a->rcount * a->rdt->size == 0)
        return MPI_SUCCESS;
    empi_bytes_view_t bv;
    EMPI_TRY(empi_bytes_begin(s, &bv, a->rbuf, a->rcount, a->rdt, rank == root));
    MPI_Count n = bv.len, cs = (n + p - 1) / p;
    int v = (rank - root + p) % p;
    int span = v ? (v & -v) : empi_coll_pow2_floor(p) * (empi_coll_is_pow2(p) ? 1 : 2);
    /* binomial scatter: v holds chunks [v, v + span) */
    if (v) {
        MPI_Count lo = clampc((MPI_Count)v * cs, n), hi = clampc((MPI_Count)(v + span) * cs, n);
        EMPI_TRY(empi_sched_recv(s, bv.bytes + lo, hi - lo, empi_byte_type, (v - span + root) % p));
        EMPI_TRY(empi_sched_fence(s));
    }
    for (int m = span >> 1; m > 0; m >>= 1) {
        if (v + m >= p)
            continue;
        MPI_Count lo = clampc((MPI_Count)(v + m) * cs, n), hi = clampc((MPI_Count)(v + 2 * m) * cs, n);
        EMPI_TRY(empi_sched_send(s, bv.bytes + lo, hi - lo, empi_byte_type, (v + m + root) % p));
    }
    EMPI_TRY(empi_sched_fence(s));
    /* ring allgather of the chunks among relative ranks */
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int k = 0; k < p - 1; k++) {
        int sb = (v - k + p) % p, rb = (v - k - 1 + p) % p;
        MPI_Count slo = clampc((MPI_Count)sb * cs, n), shi = clampc((MPI_Count)(sb + 1) * cs, n);
        MPI_Count rlo = clampc((MPI_Count)rb * cs, n), rhi = clampc((MPI_Count)(rb + 1) * cs, n);
        EMPI_TRY(empi_sched_recv(s, bv.bytes + rlo, rhi - rlo, empi_byte_type, left));
        EMPI_TRY(empi_sched_send(s, bv.bytes + slo, shi - slo, empi_byte_type, right));
        EMPI_TRY(empi_sched_fence(s));
    }
    return rank == root ? MPI_SUCCESS : empi_bytes_finish(s, &bv);
}
