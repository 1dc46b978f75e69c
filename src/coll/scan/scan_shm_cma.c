/*
 * Scan and exscan, single copy on one node (CMA): every rank publishes its input's address, then
 * folds the prefix it needs straight from the lower ranks' inputs, a chunk at a time while it is in
 * cache, into its receive buffer: its own chunk (scan only), then ranks me-1 down to 0 each
 * combined on the left, which keeps rank order for any op. No rank waits for another's result, so
 * ranks that outnumber cores do not pass the prefix along a chain of wake-ups. A rank in place
 * publishes a copy of its input, which its result overwrites. A last wait keeps every input
 * untouched until its readers are through. Contiguous types, a communicator whose pairs all read
 * each other's memory; otherwise linear.
 * Cost: 2 syncs + r n read and r n gamma at rank r (the last: (p-1) n).
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

/* rbuf = the fold of ranks [0, me) (exclusive) or [0, me] of every rank's input. */
static int fold_prefix(empi_shm_op_t *o, int exclusive)
{
    struct empi_coll_shm *m = o->m;
    int top = exclusive ? m->me - 1 : m->me;   /* highest rank folded in */
    if (top < 0)
        return MPI_SUCCESS;
    char *scratch = empi_shm_scratch(m);
    if (!scratch)
        return MPI_ERR_NO_MEM;
    size_t len = (size_t)o->count * o->esize, chunk = EMPI_SHM_CMA_CHUNK / o->esize * o->esize;
    for (size_t c = 0; c < len; c += chunk) {
        size_t n = len - c < chunk ? len - c : chunk;
        char *acc = o->rbuf + c;
        int rc = MPI_SUCCESS;
        if (exclusive)
            rc = empi_shm_read(m, top, acc, empi_shm_peer_addr(m, o->e, top, 0) + c, n);
        else
            empi_copy(acc, o->sbuf + c, n);
        for (int r = top - 1; r >= 0 && rc == MPI_SUCCESS; r--) {
            rc = empi_shm_read(m, r, scratch, empi_shm_peer_addr(m, o->e, r, 0) + c, n);
            if (rc == MPI_SUCCESS)
                rc = empi_op_apply_data(o->op, scratch, acc, (MPI_Count)(n / o->esize), o->dt);
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* One piece (the whole message). A failing read is remembered, not returned at once: the others
   may be reading this rank's input, so it goes through every phase and reports at the end. */
static int step(empi_shm_op_t *o, int exclusive)
{
    if (o->phase == 0 && !empi_shm_all_done(o->m, o->e, 0))
        return 0;   /* as empi_shm_cma_publish, first: the copy below is made once */
    if (o->phase == 0 && o->uses_slice) {
        /* In place: the input moves to the segment's slice buffer before the result overwrites
           it. Out of memory, sbuf is NULL and the fold reports it. */
        size_t len = (size_t)o->count * o->esize;
        char *copy;
        if (!empi_shm_slice_buf(o->m, o->e, len, &copy))
            return 0;
        if (copy)
            memcpy(copy, o->rbuf, len);
        o->sbuf = copy;
    }
    if (!empi_shm_cma_publish(o))
        return 0;
    if (o->phase == 1) {
        if (!empi_shm_all_posted(o->m, o->e, 2 * o->e + 1))
            return 0;
        o->err = o->sbuf ? fold_prefix(o, exclusive) : MPI_ERR_NO_MEM;
        empi_shm_set_done(o->m, o->e, 0);
        o->phase = 2;
    }
    return empi_shm_cma_finish(o);
}

static int scan_step(empi_shm_op_t *o)
{
    return step(o, 0);
}

static int exscan_step(empi_shm_op_t *o)
{
    return step(o, 1);
}

static int build(empi_sched_t *s, const empi_coll_args_t *a, int exclusive)
{
    empi_shm_op_t o;
    if (a->rcount == 0 || s->comm->size < 2 || !empi_shm_reduce_op(s->comm, a, 1, &o) || !o.m->cma)
        return exclusive ? empi_exscan_linear(s, a) : empi_scan_linear(s, a);
    o.step = exclusive ? exscan_step : scan_step;
    o.piece = o.count;
    o.uses_slice = a->in_place;
    return empi_shm_build(s, &o);
}

EMPI_ALG(empi_scan_shm_cma)
{
    return build(s, a, 0);
}

EMPI_ALG(empi_exscan_shm_cma)
{
    return build(s, a, 1);
}
