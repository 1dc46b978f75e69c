/*
 * Gather, binomial tree: relative rank v collects the packed blocks of its subtree
 * [v, v + lowbit(v)) from its children and sends them to its parent in one message; the root
 * unpacks the blocks into place. Good for small blocks.
 * Cost: ceil(log2 p) alpha + (p-1)/p N beta, N = p n.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_gather_binomial)
{
    int p = s->comm->size, rank = s->comm->rank, root = a->root;
    int v = (rank - root + p) % p;
    MPI_Count nb = rank == root ? a->rcount * a->rdt->size : a->scount * a->sdt->size;
    int span = v ? (v & -v) : (empi_coll_is_pow2(p) ? p : 2 * empi_coll_pow2_floor(p));
    int end = v + span < p ? v + span : p;   /* subtree is relative ranks [v, end) */
    if (v && end - v == 1) {
        EMPI_TRY(empi_sched_send(s, a->sbuf, a->scount, a->sdt, (v - span + root) % p));
        return empi_sched_fence(s);
    }
    char *pk = empi_sched_tmp(s, (size_t)(nb * (end - v)));
    if (!pk)
        return MPI_ERR_NO_MEM;
    if (v)
        EMPI_TRY(empi_sched_copy(s, a->sbuf, a->scount, a->sdt, pk, nb, empi_byte_type));
    for (int m = 1; m < span && v + m < p; m <<= 1) {
        int cend = v + 2 * m < end ? v + 2 * m : end;
        EMPI_TRY(empi_sched_recv(s, pk + nb * m, nb * (cend - v - m), empi_byte_type, (v + m + root) % p));
    }
    EMPI_TRY(empi_sched_fence(s));
    if (v) {
        EMPI_TRY(empi_sched_send(s, pk, nb * (end - v), empi_byte_type, (v - span + root) % p));
        return empi_sched_fence(s);
    }
    for (int j = 1; j < p; j++)
        EMPI_TRY(empi_sched_copy(s, pk + nb * j, nb, empi_byte_type,
                                 empi_coll_off(a->rbuf, (MPI_Count)((j + root) % p) * a->rcount, a->rdt), a->rcount,
                                 a->rdt));
    if (!a->in_place)
        EMPI_TRY(empi_sched_copy(s, a->sbuf, a->scount, a->sdt,
                                 empi_coll_off(a->rbuf, (MPI_Count)root * a->rcount, a->rdt), a->rcount, a->rdt));
    return empi_sched_fence(s);
}
