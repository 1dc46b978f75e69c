/*
 * Reduce_scatter (and _block), shared memory. Vectors up to the allreduce's one-sync size: the
 * shared-memory allreduce, every rank keeping its block. Larger: the shared-memory reduce of the
 * whole vector to rank 0 (the others only copy their input in and go on), then rank 0 sends every
 * rank its block. Any op (both keep rank order); contiguous types, else reduce_scatterv.
 * Cost: small: copy in + 1 sync + (p-1) N gamma; large: copy in + 1 sync + (p-1) N gamma at
 * rank 0, then (p-1) alpha + (N - n) beta from rank 0.
 */
#include "coll/shm/coll_shm.h"

EMPI_ALG(empi_reduce_scatter_shm)
{
    int p = s->comm->size, rank = s->comm->rank;
    empi_datatype_t *dt = a->rdt;
    MPI_Count total = empi_coll_sum(a->rcounts, p);
    if (total == 0)
        return MPI_SUCCESS;
    int small = (size_t)total * (size_t)dt->size <= EMPI_SHM_SMALL_REDUCE;
    char *res = rank == 0 || small ? empi_sched_tmp_dt(s, total, dt) : NULL;
    if ((rank == 0 || small) && !res)
        return MPI_ERR_NO_MEM;
    empi_coll_args_t r = *a;
    r.sbuf = a->in_place ? a->rbuf : a->sbuf;
    r.rbuf = res;
    r.in_place = 0;
    r.rcount = total;
    r.root = 0;
    empi_shm_op_t o;
    if (!empi_shm_reduce_op(s->comm, &r, small, &o))
        return empi_reduce_scatter_reduce_scatterv(s, a);
    EMPI_TRY(empi_shm_build(s, &o));
    if (!small)
        return empi_reduce_scatter_from_root(s, a, res);
    MPI_Count mine = a->rcounts[rank];
    EMPI_TRY(empi_sched_copy(s, empi_coll_off(res, empi_coll_sum(a->rcounts, rank), dt), mine, dt, a->rbuf, mine, dt));
    return empi_sched_fence(s);
}
