/*
 * Allreduce, shared memory: every rank copies its piece into its slot (inline with its flag up to
 * 56 bytes). Pieces up to 2 KiB: one synchronization, then every rank folds all p inputs itself
 * (right to left, so every rank computes the same bits and non-commutative ops keep rank order).
 * Larger pieces: every rank folds a disjoint 1/p slice in parallel into the shared buffer, a
 * second synchronization, everyone copies the result out. Contiguous types.
 * Cost per piece: small: 1 sync + (p-1) n gamma; large: 2 syncs + 2 copies + (p-1)/p n gamma.
 */
#include "coll/shm/coll_shm.h"

EMPI_ALG(empi_allreduce_shm)
{
    empi_shm_op_t o;
    if (!empi_shm_reduce_op(s->comm, a, 1, &o))
        return empi_allreduce_recursive_doubling(s, a);
    return empi_shm_build(s, &o);
}

int empi_allreduce_shm_fast(const empi_coll_args_t *a, int *rc)
{
    empi_shm_op_t o;
    if (!empi_shm_reduce_op(a->comm, a, 1, &o))
        return 0;
    *rc = empi_shm_run_direct(&o);
    return 1;
}
