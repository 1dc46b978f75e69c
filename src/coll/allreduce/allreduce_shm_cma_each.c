/*
 * Allreduce, single copy on one node, every rank on its own: each rank reads every other input
 * straight from its owner's memory (CMA) a chunk at a time and folds the whole vector itself,
 * right to left (any op; every rank computes the same bits). Reduce shm_cma_root's step
 * (reduce/reduce_shm_cma_root.c) run by every rank.
 * Cost: 1 sync + (p-1) n read + (p-1) n gamma per rank. Against shm_cma's slices it folds p times
 * the work but saves two syncs and the read of slices another core has just written: a win at 2
 * ranks for medium vectors, a loss as soon as ranks share cores.
 * Not in place, contiguous types of elements up to 32 KiB, a communicator whose pairs all read
 * each other's memory; otherwise shm.
 */
#include "coll/shm/coll_shm.h"

EMPI_ALG(empi_allreduce_shm_cma_each)
{
    empi_shm_op_t o;
    if (!empi_shm_cma_fold_all_op(s->comm, a, 1, &o))
        return empi_allreduce_shm(s, a);
    return empi_shm_build(s, &o);
}

int empi_allreduce_shm_cma_each_fast(const empi_coll_args_t *a, int *rc)
{
    empi_shm_op_t o;
    if (!empi_shm_cma_fold_all_op(a->comm, a, 1, &o))
        return empi_allreduce_shm_fast(a, rc);
    *rc = empi_shm_run_direct(&o);
    return 1;
}
