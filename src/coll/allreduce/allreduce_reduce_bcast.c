/*
 * Allreduce as a binomial reduce to rank 0 followed by a binomial bcast. Simple and safe for any
 * op; rarely the fastest.
 * Cost: 2 ceil(log2 p) alpha + 2 log2 p n beta + log2 p n gamma.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_allreduce_reduce_bcast)
{
    const void *in = a->in_place ? a->rbuf : a->sbuf;
    if (a->rcount == 0)
        return MPI_SUCCESS;
    EMPI_TRY(empi_build_reduce_binomial(s, in, a->rbuf, a->rcount, a->rdt, a->op, 0));
    EMPI_TRY(empi_sched_fence(s));
    return empi_build_bcast_binomial(s, a->rbuf, a->rcount, a->rdt, 0);
}
