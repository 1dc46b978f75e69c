/*
 * Allreduce and reduce, single copy on one node (CMA): every rank publishes its buffers' addresses
 * in the shared segment, reduces its own 1/p slice reading the others' inputs straight from their
 * memory (a chunk at a time, reduced while it is in cache), then reads every other slice's result
 * from the rank that reduced it: every rank (allreduce), or the root alone (reduce: the others
 * reduce their slice into a buffer of the segment's, kept from call to call, and publish that).
 * Nothing passes through a shared buffer. Commutative ops, contiguous types, a communicator whose
 * pairs all read each other's memory; otherwise the shared-buffer algorithm.
 * Cost: 3 syncs + (p-1)/p n read and (p-1)/p n gamma per rank + (p-1)/p n read (reduce: by the
 * root only); the shared-buffer algorithm copies n in and n out besides its reduction.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

/* Slices start on cache-line boundaries where the element size allows; a reduce_scatter's are its
   blocks (plan: p + 1 element offsets). */
static void slice_of(const empi_shm_op_t *o, int r, size_t *off, size_t *len)
{
    if (o->plan) {
        const MPI_Count *at = o->plan;
        *off = (size_t)at[r] * o->esize;
        *len = (size_t)(at[r + 1] - at[r]) * o->esize;
        return;
    }
    MPI_Count q = 64 % o->esize == 0 ? 64 / (MPI_Count)o->esize : 1;
    MPI_Count per = (o->count + o->m->p - 1) / o->m->p;
    per = (per + q - 1) / q * q;
    MPI_Count lo = per * r < o->count ? per * r : o->count;
    MPI_Count hi = lo + per < o->count ? lo + per : o->count;
    *off = (size_t)lo * o->esize;
    *len = (size_t)(hi - lo) * o->esize;
}

/* Whether rank r holds the whole result, so that its slice lies at its own offset in rbuf;
   otherwise (reduce, not the root; reduce_scatter, root -1) rbuf is the slice alone. */
static int holds_all(const empi_shm_op_t *o, int r)
{
    return o->all || r == o->root;
}

/* This rank's rbuf[off, off+len) = the op over every rank's input there. */
static int reduce_slice(empi_shm_op_t *o, size_t off, size_t len)
{
    struct empi_coll_shm *m = o->m;
    char *scratch = empi_shm_scratch(m);
    if (!scratch)
        return MPI_ERR_NO_MEM;
    size_t chunk = EMPI_SHM_CMA_CHUNK / o->esize * o->esize;
    int in_place = o->sbuf == o->rbuf;
    char *out = holds_all(o, m->me) ? o->rbuf + off : o->rbuf;
    for (size_t c = 0; c < len; c += chunk) {
        size_t n = len - c < chunk ? len - c : chunk;
        char *acc = out + c;
        for (int k = 1; k < m->p; k++) {
            int r = (m->me + k) % m->p;
            /* Not in place, the first peer's chunk lands in the output directly and ours is folded
               into it; otherwise the output holds ours and every peer's goes through scratch. */
            int direct = k == 1 && !in_place;
            int rc = empi_shm_read(m, r, direct ? acc : scratch, empi_shm_peer_addr(m, o->e, r, 0) + off + c, n);
            if (rc == MPI_SUCCESS)
                rc = empi_op_apply_data(o->op, direct ? o->sbuf + off + c : scratch, acc, (MPI_Count)(n / o->esize),
                                        o->dt);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    return MPI_SUCCESS;
}

/* One piece (the whole message). A failing read is remembered, not returned at once: the others
   wait for this rank's posts, so it goes through every phase and reports at the end. */
static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    uint64_t e = o->e;
    size_t off, len;
    if (o->phase == 0 && o->uses_slice) {
        /* Out of memory, rbuf is NULL and the fold reports it: the others have chosen this
           algorithm too and must not wait for one that fell back. */
        slice_of(o, m->me, &off, &len);
        if (!empi_shm_slice_buf(m, e, len ? len : 1, &o->rbuf))
            return 0;
    }
    if (!empi_shm_cma_publish(o))
        return 0;
    if (o->phase == 1) {
        if (!empi_shm_all_posted(m, e, 2 * e + 1))
            return 0;
        slice_of(o, m->me, &off, &len);
        o->err = o->uses_slice && !o->rbuf ? MPI_ERR_NO_MEM : reduce_slice(o, off, len);
        empi_shm_post_status(m, e, o->err);   /* the ranks taking our slice fail too, not return a wrong result */
        empi_shm_post(m, e, 2 * e + 2);
        o->phase = 2;
    }
    if (o->phase == 2) {
        if (holds_all(o, m->me) && !empi_shm_all_posted(m, e, 2 * e + 2))
            return 0;
        for (int k = 1; k < m->p && holds_all(o, m->me); k++) {
            int r = (m->me + k) % m->p;
            slice_of(o, r, &off, &len);
            const char *at = empi_shm_peer_addr(m, e, r, 1) + (holds_all(o, r) ? off : 0);
            int rc = empi_shm_peer_status(m, e, r);
            if (rc == MPI_SUCCESS && len)
                rc = empi_shm_read(m, r, o->rbuf + off, at, len);
            if (rc != MPI_SUCCESS && o->err == MPI_SUCCESS)
                o->err = rc;
        }
        empi_shm_set_done(m, e, 0);
        o->phase = 3;
    }
    return empi_shm_cma_finish(o);
}

int empi_shm_cma_reduce_op(empi_comm_t *comm, const empi_coll_args_t *a, int all, empi_shm_op_t *o)
{
    if (!a->op->commutative || !empi_shm_reduce_op(comm, a, all, o) || !o->m->cma || o->m->p < 2)
        return 0;
    o->step = step;
    o->piece = o->count;
    o->uses_slice = !holds_all(o, o->m->me);   /* a reduce's rank other than the root has no rbuf */
    return 1;
}

EMPI_ALG(empi_allreduce_shm_cma)
{
    empi_shm_op_t o;
    if (!empi_shm_cma_reduce_op(s->comm, a, 1, &o))
        return empi_allreduce_shm(s, a);
    return empi_shm_build(s, &o);
}

int empi_allreduce_shm_cma_fast(const empi_coll_args_t *a, int *rc)
{
    empi_shm_op_t o;
    if (!empi_shm_cma_reduce_op(a->comm, a, 1, &o))
        return empi_allreduce_shm_fast(a, rc);
    *rc = empi_shm_run_direct(&o);
    return 1;
}

EMPI_ALG(empi_reduce_shm_cma)
{
    empi_shm_op_t o;
    if (!empi_shm_cma_reduce_op(s->comm, a, 0, &o))
        return empi_reduce_shm(s, a);
    return empi_shm_build(s, &o);
}

int empi_reduce_shm_cma_fast(const empi_coll_args_t *a, int *rc)
{
    empi_shm_op_t o;
    if (!empi_shm_cma_reduce_op(a->comm, a, 0, &o))
        return empi_reduce_shm_fast(a, rc);
    *rc = empi_shm_run_direct(&o);
    return 1;
}
