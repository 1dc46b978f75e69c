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
    MPI_Count mine = a->rcounts[rank];
    /* In place, the result overwrites the first `mine` elements of the input: only the blocks
       reaching into them (and our own, when it moves) are copied aside, not all N elements. */
    MPI_Count saved = 0;
    const char *copy = NULL;
    if (a->in_place && p > 1) {
        for (int i = 0; i < p; i++)
            if (a->rcounts[i] > 0 && disp[i] < mine && (i != rank || disp[i] != 0) &&
                disp[i] + a->rcounts[i] > saved)
                saved = disp[i] + a->rcounts[i];
        if (saved > 0) {
            char *c = empi_sched_tmp_dt(s, saved, dt);
            if (!c)
                return MPI_ERR_NO_MEM;
            EMPI_TRY(empi_sched_copy(s, in, saved, dt, c, saved, dt));
            EMPI_TRY(empi_sched_fence(s));
            copy = c;
        }
    }
#define BLOCK(i) (copy && disp[i] + a->rcounts[i] <= saved ? empi_coll_off(copy, disp[i], dt) : empi_coll_off(in, disp[i], dt))
    if (BLOCK(rank) != a->rbuf) {
        EMPI_TRY(empi_sched_copy(s, BLOCK(rank), mine, dt, a->rbuf, mine, dt));
        EMPI_TRY(empi_sched_fence(s));
    }
    char *tmp = empi_sched_tmp_dt(s, mine, dt);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    for (int k = 1; k < p; k++) {
        int dst = (rank + k) % p, src = (rank - k + p) % p;
        EMPI_TRY(empi_sched_recv(s, tmp, mine, dt, src));
        EMPI_TRY(empi_sched_send(s, BLOCK(dst), a->rcounts[dst], dt, dst));
        EMPI_TRY(empi_sched_fence(s));
        EMPI_TRY(empi_sched_reduce(s, tmp, a->rbuf, mine, dt, a->op));
    }
#undef BLOCK
    return empi_sched_fence(s);
}
