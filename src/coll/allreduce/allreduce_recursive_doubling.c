/*
 * Allreduce, recursive doubling: in round k every rank exchanges its whole partial result with
 * rank ^ 2^k and combines (lower rank's data on the left, so non-commutative ops are fine). For
 * p not a power of two the first 2r ranks (r = p - 2^floor(log2 p)) pair up first: even ranks
 * hand their data to the odd neighbour and get the result back at the end.
 * Cost: (log2 p + 2) alpha + log2 p n (beta + gamma). Best for small messages.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_allreduce_recursive_doubling)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (n == 0)
        return MPI_SUCCESS;
    if (!a->in_place)
        EMPI_TRY(empi_sched_copy(s, a->sbuf, n, dt, a->rbuf, n, dt));
    if (p == 1)
        return empi_sched_fence(s);
    EMPI_TRY(empi_sched_fence(s));
    int p2 = empi_coll_pow2_floor(p), rem = p - p2, newrank;
    void *cur = a->rbuf, *other = empi_sched_tmp_dt(s, n, dt);
    if (!other)
        return MPI_ERR_NO_MEM;
    EMPI_TRY(empi_build_fold_to_pow2(s, cur, other, n, dt, a->op, &newrank));
    if (newrank >= 0) {
        for (int mask = 1; mask < p2; mask <<= 1) {
            int dst = empi_coll_fold_peer(newrank ^ mask, rem);
            EMPI_TRY(empi_sched_recv(s, other, n, dt, dst));
            EMPI_TRY(empi_sched_send(s, cur, n, dt, dst));
            EMPI_TRY(empi_sched_fence(s));
            if (dst < rank) {
                EMPI_TRY(empi_sched_reduce(s, other, cur, n, dt, a->op));
            } else {
                EMPI_TRY(empi_sched_reduce(s, cur, other, n, dt, a->op));
                void *t = cur;
                cur = other;
                other = t;
            }
        }
        if (cur != a->rbuf)
            EMPI_TRY(empi_sched_copy(s, cur, n, dt, a->rbuf, n, dt));
        EMPI_TRY(empi_sched_fence(s));
    }
    if (rank < 2 * rem) {
        if (rank % 2)
            EMPI_TRY(empi_sched_send(s, a->rbuf, n, dt, rank - 1));
        else
            EMPI_TRY(empi_sched_recv(s, a->rbuf, n, dt, rank + 1));
        EMPI_TRY(empi_sched_fence(s));
    }
    return MPI_SUCCESS;
}
