/*
 * Reduce_scatter (and _block), pairwise: in step k a rank sends rank+k its block of the input and
 * folds in the block arriving from rank-k. Commutative ops only.
 * Cost: (p-1) alpha + (N - n) beta + (N - n) gamma, n = own block, N = total.
 */
#include "coll/coll_algs.h"

/* Block i of the input: from the copy set aside (its first `saved` elements) when it lies there. */
static const char *block_of(int i, const char *in, const char *copy, MPI_Count saved, const MPI_Count *disp,
                            const empi_coll_args_t *a)
{
    if (copy && disp[i] + a->rcounts[i] <= saved)
        return empi_coll_off(copy, disp[i], a->rdt);
    return empi_coll_off(in, disp[i], a->rdt);
}

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
    const char *own = block_of(rank, in, copy, saved, disp, a);
    if (mine > 0 && own != a->rbuf) {
        EMPI_TRY(empi_sched_copy(s, own, mine, dt, a->rbuf, mine, dt));
        EMPI_TRY(empi_sched_fence(s));
    }
    char *tmp = empi_sched_tmp_dt(s, mine, dt);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    for (int k = 1; k < p; k++) {
        int dst = (rank + k) % p, src = (rank - k + p) % p;
        EMPI_TRY(empi_sched_recv(s, tmp, mine, dt, src));
        EMPI_TRY(empi_sched_send(s, block_of(dst, in, copy, saved, disp, a), a->rcounts[dst], dt, dst));
        EMPI_TRY(empi_sched_fence(s));
        EMPI_TRY(empi_sched_reduce(s, tmp, a->rbuf, mine, dt, a->op));
    }
    return empi_sched_fence(s);
}
