/*
 * Reduce_scatter (and _block), shared memory. Vectors up to the allreduce's one-sync size: the
 * shared-memory allreduce, every rank keeping its block. Larger: in pieces of a slot, every rank
 * copies the piece of its input into its slot, one synchronization, then every rank folds the
 * part of its own block that lies in the piece from all slots straight into its receive buffer.
 * Any op (folds run right to left, keeping rank order); contiguous types, else reduce_scatterv.
 * In place is safe: a rank's result goes below the piece whose input it has already copied.
 * Cost: small: copy in + 1 sync + (p-1) N gamma; large, per piece: copy in + 1 sync +
 * (p-1) n gamma for this rank's n elements in it.
 */
#include "coll/shm/coll_shm.h"

/* This rank's block: elements [lo, lo + n) of the vector. */
typedef struct {
    MPI_Count lo, n;
} rs_block_t;

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    const rs_block_t *b = o->plan;
    uint64_t e = o->e;
    if (o->phase == 0) {
        if (!empi_shm_all_done(m, e, o->len))
            return 0;
        empi_copy(empi_shm_data(m, e, m->me, o->len), o->sbuf + o->off0, o->len);
        empi_shm_post(m, e, 2 * e + 1);
        o->phase = 1;
    }
    if (!empi_shm_all_posted(m, e, 2 * e + 1))
        return 0;
    MPI_Count first = o->done_elems, lo = b->lo > first ? b->lo : first;
    MPI_Count hi = b->lo + b->n < first + o->cnt ? b->lo + b->n : first + o->cnt;
    if (hi > lo) {
        int rc = empi_shm_fold(o, (size_t)(lo - first) * o->esize, hi - lo,
                               o->rbuf + (size_t)(lo - b->lo) * o->esize, 1);
        if (rc != MPI_SUCCESS)
            return -rc;
    }
    empi_shm_set_done(m, e, 1);
    return 1;
}

EMPI_ALG(empi_reduce_scatter_shm)
{
    int p = s->comm->size, rank = s->comm->rank;
    empi_datatype_t *dt = a->rdt;
    MPI_Count total = empi_coll_sum(a->rcounts, p);
    if (total == 0)
        return MPI_SUCCESS;
    int small = (size_t)total * (size_t)dt->size <= EMPI_SHM_SMALL_REDUCE;
    char *res = small ? empi_sched_tmp_dt(s, total, dt) : NULL;
    if (small && !res)
        return MPI_ERR_NO_MEM;
    empi_coll_args_t r = *a;
    r.sbuf = a->in_place ? a->rbuf : a->sbuf;
    r.rbuf = small ? res : a->rbuf;
    r.in_place = 0;
    r.rcount = total;
    r.root = 0;
    empi_shm_op_t o;
    if (!empi_shm_reduce_op(s->comm, &r, 1, &o))
        return empi_reduce_scatter_reduce_scatterv(s, a);
    if (!small) {
        rs_block_t *b = empi_sched_tmp(s, sizeof *b);
        if (!b)
            return MPI_ERR_NO_MEM;
        *b = (rs_block_t){empi_coll_sum(a->rcounts, rank), a->rcounts[rank]};
        o.step = step;
        o.plan = b;
        return empi_shm_build(s, &o);
    }
    EMPI_TRY(empi_shm_build(s, &o));
    MPI_Count mine = a->rcounts[rank];
    EMPI_TRY(empi_sched_copy(s, empi_coll_off(res, empi_coll_sum(a->rcounts, rank), dt), mine, dt, a->rbuf, mine, dt));
    return empi_sched_fence(s);
}
