/*
 * Reduce_scatter (and _block), pairwise: in step k a rank sends rank+k its block of the input and
 * folds in the block arriving from rank-k. Commutative ops only.
 * Cost: (p-1) alpha + (N - n) beta + (N - n) gamma, n = own block, N = total.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_reduce_scatter_pairwise)
{
    int p = s->comm->size, rank = s->comm->rank;
    empi_datatype_t *dt = a->rdt;
    MPI_Count total = 0;
    MPI_Count *disp = empi_sched_tmp(s, (size_t)(p + 1) * sizeof *disp);
    if (!disp)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p; i++) {
        disp[i] = total;
        total += a->rcounts[i];
    }
    if (total == 0)
        return MPI_SUCCESS;
    const char *in = a->in_place ? a->rbuf : a->sbuf;
    if (a->in_place && p > 1) {
        char *copy = empi_sched_tmp_dt(s, total, dt);
        if (!copy)
            return MPI_ERR_NO_MEM;
        EMPI_TRY(empi_sched_copy(s, in, total, dt, copy, total, dt));
        EMPI_TRY(empi_sched_fence(s));
        in = copy;
    }
    MPI_Count mine = a->rcounts[rank];
    EMPI_TRY(empi_sched_copy(s, empi_coll_off(in, disp[rank], dt), mine, dt, a->rbuf, mine, dt));
    EMPI_TRY(empi_sched_fence(s));
    char *tmp = empi_sched_tmp_dt(s, mine, dt);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    for (int k = 1; k < p; k++) {
        int dst = (rank + k) % p, src = (rank - k + p) % p;
        EMPI_TRY(empi_sched_recv(s, tmp, mine, dt, src));
        EMPI_TRY(empi_sched_send(s, empi_coll_off(in, disp[dst], dt), a->rcounts[dst], dt, dst));
        EMPI_TRY(empi_sched_fence(s));
        EMPI_TRY(empi_sched_reduce(s, tmp, a->rbuf, mine, dt, a->op));
    }
    return empi_sched_fence(s);
}
