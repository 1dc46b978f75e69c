/*
 * Scatter, binomial tree: the root packs the blocks in relative order; relative rank v receives
 * its subtree's blocks [v, v + lowbit(v)) from its parent, keeps its own and forwards each child
 * its part. Good for small blocks.
 * Cost: ceil(log2 p) alpha + (p-1)/p N beta, N = p n.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_scatter_binomial)
{
    int p = s->comm->size, rank = s->comm->rank, root = a->root;
    int v = (rank - root + p) % p;
    MPI_Count nb = rank == root ? a->scount * a->sdt->size : a->rcount * a->rdt->size;
    int span = v ? (v & -v) : (empi_coll_is_pow2(p) ? p : 2 * empi_coll_pow2_floor(p));
    int end = v + span < p ? v + span : p;
    if (v && end - v == 1) {
        EMPI_TRY(empi_sched_recv(s, a->rbuf, a->rcount, a->rdt, (v - span + root) % p));
        return empi_sched_fence(s);
    }
    char *pk = empi_sched_tmp(s, (size_t)(nb * (end - v)));
    if (!pk)
        return MPI_ERR_NO_MEM;
    if (v) {
        EMPI_TRY(empi_sched_recv(s, pk, nb * (end - v), empi_byte_type, (v - span + root) % p));
    } else {
        for (int j = 1; j < p; j++)
            EMPI_TRY(empi_sched_copy(s, empi_coll_off(a->sbuf, (MPI_Count)((j + root) % p) * a->scount, a->sdt),
                                     a->scount, a->sdt, pk + nb * j, nb, empi_byte_type));
    }
    EMPI_TRY(empi_sched_fence(s));
    for (int m = span >> 1; m > 0; m >>= 1) {
        if (v + m >= p)
            continue;
        int cend = v + 2 * m < end ? v + 2 * m : end;
        EMPI_TRY(empi_sched_send(s, pk + nb * m, nb * (cend - v - m), empi_byte_type, (v + m + root) % p));
    }
    if (v)
        EMPI_TRY(empi_sched_copy(s, pk, nb, empi_byte_type, a->rbuf, a->rcount, a->rdt));
    else if (!a->in_place)
        EMPI_TRY(empi_sched_copy(s, empi_coll_off(a->sbuf, (MPI_Count)root * a->scount, a->sdt), a->scount, a->sdt,
                                 a->rbuf, a->rcount, a->rdt));
    return empi_sched_fence(s);
}
