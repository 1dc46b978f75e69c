/*
 * Reduce_scatter (and _block), shared memory: the shared-memory reduce of the whole vector to
 * rank 0 (the others only copy their input in and go on), then rank 0 sends every rank its block.
 * Any op (the reduce keeps rank order); contiguous types, else reduce_scatterv.
 * Cost: copy in + 1 sync + (p-1) N gamma at rank 0, then (p-1) alpha + (N - n) beta from rank 0.
 */
#include "coll/shm/coll_shm.h"

EMPI_ALG(empi_reduce_scatter_shm)
{
    int p = s->comm->size, rank = s->comm->rank;
    empi_datatype_t *dt = a->rdt;
    MPI_Count total = 0;
    for (int i = 0; i < p; i++)
        total += a->rcounts[i];
    if (total == 0)
        return MPI_SUCCESS;
    char *res = rank == 0 ? empi_sched_tmp_dt(s, total, dt) : NULL;
    if (rank == 0 && !res)
        return MPI_ERR_NO_MEM;
    empi_coll_args_t r = *a;
    r.sbuf = a->in_place ? a->rbuf : a->sbuf;
    r.rbuf = res;
    r.in_place = 0;
    r.rcount = total;
    r.root = 0;
    empi_shm_op_t o;
    if (!empi_shm_reduce_op(s->comm, &r, 0, &o))
        return empi_reduce_scatter_reduce_scatterv(s, a);
    EMPI_TRY(empi_shm_build(s, &o));
    return empi_reduce_scatter_from_root(s, a, res);
}
