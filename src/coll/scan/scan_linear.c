/*
 * Scan, linear chain: rank r waits for the prefix of ranks 0..r-1 from r-1, combines its own
 * data on the right and passes the result to r+1. Any op.
 * Cost: (p-1) (alpha + n beta + n gamma) end to end; one message per rank.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_scan_linear)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (n == 0)
        return MPI_SUCCESS;
    if (!a->in_place)
        EMPI_TRY(empi_sched_copy(s, a->sbuf, n, dt, a->rbuf, n, dt));
    if (rank > 0) {
        char *tmp = empi_sched_tmp_dt(s, n, dt);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        EMPI_TRY(empi_sched_recv(s, tmp, n, dt, rank - 1));
        EMPI_TRY(empi_sched_fence(s));
        EMPI_TRY(empi_sched_reduce(s, tmp, a->rbuf, n, dt, a->op));
    }
    if (rank < p - 1)
        EMPI_TRY(empi_sched_send(s, a->rbuf, n, dt, rank + 1));
    return empi_sched_fence(s);
}
