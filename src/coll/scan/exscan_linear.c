/*
 * Exscan, linear chain: rank r receives the prefix of ranks 0..r-1 from r-1 (its result), adds
 * its own data on the right and passes that on to r+1. Any op.
 * Cost: (p-1) (alpha + n beta + n gamma) end to end.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_exscan_linear)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (n == 0 || p == 1)
        return MPI_SUCCESS;
    const void *in = a->in_place ? a->rbuf : a->sbuf;
    if (rank == 0) {
        EMPI_TRY(empi_sched_send(s, in, n, dt, 1));
        return empi_sched_fence(s);
    }
    char *prefix = empi_sched_tmp_dt(s, n, dt);
    if (!prefix)
        return MPI_ERR_NO_MEM;
    EMPI_TRY(empi_sched_recv(s, prefix, n, dt, rank - 1));
    EMPI_TRY(empi_sched_fence(s));
    if (rank < p - 1) {
        char *next = empi_sched_tmp_dt(s, n, dt);
        if (!next)
            return MPI_ERR_NO_MEM;
        EMPI_TRY(empi_sched_copy(s, in, n, dt, next, n, dt));
        EMPI_TRY(empi_sched_reduce(s, prefix, next, n, dt, a->op));
        EMPI_TRY(empi_sched_send(s, next, n, dt, rank + 1));
    }
    EMPI_TRY(empi_sched_copy(s, prefix, n, dt, a->rbuf, n, dt));
    return empi_sched_fence(s);
}
