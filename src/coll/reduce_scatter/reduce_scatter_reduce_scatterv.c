/*
 * Reduce_scatter (and _block), reduce + scatterv: binomial reduce of the whole vector to rank 0
 * (rank order kept, so any op), then rank 0 sends every rank its block.
 * Cost: (log2 p + p - 1) alpha + (log2 p + 1) N beta + log2 p N gamma, N = total count.
 */
#include "coll/coll_algs.h"

/* Rank 0 hands every rank its block of the reduced vector `res`. */
static int scatter_from_root(empi_sched_t *s, const empi_coll_args_t *a, const char *res)
{
    int p = s->comm->size, rank = s->comm->rank;
    empi_datatype_t *dt = a->rdt;
    if (rank == 0) {
        MPI_Count off = 0;
        for (int i = 0; i < p; i++) {
            if (i)
                EMPI_TRY(empi_sched_send(s, empi_coll_off(res, off, dt), a->rcounts[i], dt, i));
            else
                EMPI_TRY(empi_sched_copy(s, res, a->rcounts[0], dt, a->rbuf, a->rcounts[0], dt));
            off += a->rcounts[i];
        }
    } else {
        EMPI_TRY(empi_sched_recv(s, a->rbuf, a->rcounts[rank], dt, 0));
    }
    return empi_sched_fence(s);
}

EMPI_ALG(empi_reduce_scatter_reduce_scatterv)
{
    int p = s->comm->size, rank = s->comm->rank;
    empi_datatype_t *dt = a->rdt;
    MPI_Count total = empi_coll_sum(a->rcounts, p);
    if (total == 0)
        return MPI_SUCCESS;
    const void *in = a->in_place ? a->rbuf : a->sbuf;
    char *res = rank == 0 ? empi_sched_tmp_dt(s, total, dt) : NULL;
    if (rank == 0 && !res)
        return MPI_ERR_NO_MEM;
    EMPI_TRY(empi_build_reduce_binomial(s, in, res, total, dt, a->op, 0));
    EMPI_TRY(empi_sched_fence(s));
    return scatter_from_root(s, a, res);
}
