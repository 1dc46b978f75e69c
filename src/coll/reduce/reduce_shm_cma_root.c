/*
 * Reduce, single copy on one node, the root alone: every rank publishes its send buffer's address
 * and waits; the root reads each input straight from its owner's memory (CMA) a chunk at a time,
 * the highest rank's into the receive buffer and the others into scratch, and folds them right to
 * left (acc = d_i op acc), so any op keeps rank order. Nothing is copied into a shared buffer and
 * the inputs need not be written by their owners first (they stay clean in the shared cache).
 * Cost: 1 sync + (p-1) n read + (p-1) n gamma, all at the root: for few ranks per node, where the
 * slices of reduce shm_cma cost more in syncs and second reads than they save in parallel folds.
 * Contiguous types of elements up to 32 KiB, a communicator whose pairs all read each other's
 * memory; otherwise shm.
 * allreduce shm_cma_each runs the same step on every rank.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

/* Rank r's chunk [at, at+n) for the fold: our own from sbuf (or the copy of it kept in `mine`
   when the receive buffer is our input), a peer's read into `into`. */
static int input(empi_shm_op_t *o, int r, size_t at, size_t n, char *into, const char *mine, const char **out)
{
    if (r == o->m->me) {
        *out = mine ? mine : o->sbuf + at;
        return MPI_SUCCESS;
    }
    *out = into;
    return empi_shm_read(o->m, r, into, empi_shm_peer_addr(o->m, o->e, r, 0) + at, n);
}

/* rbuf = the fold of every rank's input, one chunk at a time (half the scratch buffer each when
   the root's input is its receive buffer: its chunk is kept aside before the fold overwrites it). */
static int fold_all(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    char *scratch = empi_shm_scratch(m);
    if (!scratch)
        return MPI_ERR_NO_MEM;
    int in_place = o->sbuf == o->rbuf;
    size_t chunk = (in_place ? EMPI_SHM_CMA_CHUNK / 2 : EMPI_SHM_CMA_CHUNK) / o->esize * o->esize;
    char *mine = in_place ? scratch + chunk : NULL;
    for (size_t at = 0; at < o->len; at += chunk) {
        size_t n = o->len - at < chunk ? o->len - at : chunk;
        char *acc = o->rbuf + at;
        if (mine)
            empi_copy(mine, acc, n);
        const char *d;
        int rc = input(o, m->p - 1, at, n, acc, mine, &d);
        if (rc == MPI_SUCCESS && d != acc)
            empi_copy(acc, d, n);
        for (int i = m->p - 2; i >= 0 && rc == MPI_SUCCESS; i--) {
            rc = input(o, i, at, n, scratch, mine, &d);
            if (rc == MPI_SUCCESS)
                rc = empi_op_apply_data(o->op, d, acc, (MPI_Count)(n / o->esize), o->dt);
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* One piece (the whole message). The others are done once they have published; the piece ends for
   them when the root is, since it reads their buffers until then. With o->all every rank folds
   everything (allreduce shm_cma_each). */
static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    if (!empi_shm_cma_publish(o))
        return 0;
    if (o->phase == 1) {
        if (m->me == o->root || o->all) {
            if (!empi_shm_all_posted(m, o->e, 2 * o->e + 1))
                return 0;
            o->err = fold_all(o);
        }
        empi_shm_set_done(m, o->e, 0);
        o->phase = 2;
    }
    return empi_shm_cma_finish(o);
}

int empi_shm_cma_fold_all_op(empi_comm_t *comm, const empi_coll_args_t *a, int all, empi_shm_op_t *o)
{
    /* in place, every rank would fold over the input the others are reading; an element must fit
       half the scratch buffer (an in-place root's chunks) */
    if ((all && a->in_place) || !empi_shm_reduce_op(comm, a, all, o) || !o->m->cma || o->m->p < 2 ||
        o->esize > EMPI_SHM_CMA_CHUNK / 2)
        return 0;
    o->step = step;
    o->piece = o->count;
    return 1;
}

EMPI_ALG(empi_reduce_shm_cma_root)
{
    empi_shm_op_t o;
    if (!empi_shm_cma_fold_all_op(s->comm, a, 0, &o))
        return empi_reduce_shm(s, a);
    return empi_shm_build(s, &o);
}

int empi_reduce_shm_cma_root_fast(const empi_coll_args_t *a, int *rc)
{
    empi_shm_op_t o;
    if (!empi_shm_cma_fold_all_op(a->comm, a, 0, &o))
        return empi_reduce_shm_fast(a, rc);
    *rc = empi_shm_run_direct(&o);
    return 1;
}
