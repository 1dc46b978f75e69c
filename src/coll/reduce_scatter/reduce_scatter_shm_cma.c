/*
 * Reduce_scatter (and _block), single copy on one node (CMA): every rank publishes its input's
 * address, then folds its own block reading the others' inputs straight from their memory, a chunk
 * at a time while it is in cache, into its receive buffer; a last wait keeps every input untouched
 * until its readers are through. The first phase of allreduce shm_cma with the blocks as slices.
 * Commutative ops, contiguous types, not in place (a result would overwrite input others still
 * read), a communicator whose pairs all read each other's memory; otherwise shm.
 * Cost: 2 syncs + (p-1) n read and (p-1) n gamma per rank for its n elements.
 */
#include "coll/shm/coll_shm.h"

EMPI_ALG(empi_reduce_scatter_shm_cma)
{
    int p = s->comm->size;
    MPI_Count total = empi_coll_sum(a->rcounts, p);
    empi_coll_args_t r = *a;
    r.rcount = total;
    r.root = 0;
    empi_shm_op_t o;
    if (a->in_place || total == 0 || !empi_shm_cma_reduce_op(s->comm, &r, 1, &o))
        return empi_reduce_scatter_shm(s, a);
    MPI_Count *at = empi_sched_tmp(s, sizeof *at * (size_t)(p + 1));
    if (!at)
        return MPI_ERR_NO_MEM;
    at[0] = 0;
    for (int i = 0; i < p; i++)
        at[i + 1] = at[i] + a->rcounts[i];
    o.plan = at;
    o.all = 0;
    o.root = -1;   /* nobody gathers the slices */
    return empi_shm_build(s, &o);
}
