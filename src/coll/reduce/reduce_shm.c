/*
 * Reduce, shared memory: every rank copies its piece into its slot; pieces up to 64 KiB (2 KiB for
 * allreduce, where every rank would fold everything; any size for reduce when ranks outnumber
 * cores) are folded by the root alone (the others are done once their data is posted; the root
 * reads its own from its buffer), larger ones in p disjoint slices folded in parallel into the
 * highest rank's slot, then copied out by the root.
 * Any op: folds run right to left (acc = d_i op acc), keeping rank order. Contiguous types.
 * Cost per piece: copy in + (small) 1 sync + (p-1) n gamma at the root, the others done at once /
 * (large) 2 syncs + (p-1) n/p gamma per rank; + copy out at the root.
 *
 * empi_shm_reduce_step is also the allreduce's step (o->all: every rank gets the result).
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

/* Rank r's data of the current piece; a root that folds alone reads its own from its buffer. */
static const char *piece_data(empi_shm_op_t *o, int r, int own_posted)
{
    if (r == o->m->me && !own_posted)
        return o->sbuf + o->off0;
    return empi_shm_data(o->m, o->e, r, o->len);
}

int empi_shm_fold(empi_shm_op_t *o, size_t off, MPI_Count cnt, char *acc, int own_posted)
{
    struct empi_coll_shm *m = o->m;
    if (cnt == 0)
        return MPI_SUCCESS;
    empi_copy(acc, piece_data(o, m->p - 1, own_posted) + off, (size_t)cnt * o->esize);
    for (int i = m->p - 2; i >= 0; i--) {
        int rc = empi_op_apply_data(o->op, piece_data(o, i, own_posted) + off, acc, cnt, o->dt);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int empi_shm_reduce_step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    int me = m->me, p = m->p, P = o->parity;
    uint64_t e = o->e;
    /* When ranks outnumber cores the root folds alone at any size: the others copy in and leave
       (4 ranks on 2 cores, calls separated by barriers, 128 KiB-1 MiB: 0.4-0.65 of the parallel
       fold's time, averaged over the ranks; back to back level). */
    int small = o->all ? o->len <= EMPI_SHM_SMALL_REDUCE : m->crowded || o->len <= EMPI_SHM_SMALL_ROOT_REDUCE;
    int gets = o->all || me == o->root;
    /* a small reduce's root folds alone: it reads its own input from its buffer, unless the fold
       overwrites it there (in place) */
    int own_from_sbuf = small && !o->all && me == o->root && o->sbuf != o->rbuf;
    if (o->phase == 0) {
        if (!empi_shm_all_done(m, e, o->len))
            return 0;
        if (!own_from_sbuf)
            empi_copy(empi_shm_data(m, o->e, me, o->len), o->sbuf + o->off0, o->len);
        empi_shm_post(m, o->e, 2 * e + 1);
        if (small && !gets) {
            empi_shm_set_done(m, e, 0);   /* reads nothing */
            return 1;
        }
        o->phase = 1;
    }
    if (o->phase == 1) {
        if (!empi_shm_all_posted(m, o->e, 2 * e + 1))
            return 0;
        if (small) {
            int rc = empi_shm_fold(o, 0, o->cnt, o->rbuf + o->off0, !own_from_sbuf);
            if (rc != MPI_SUCCESS)
                return -rc;
            empi_shm_set_done(m, e, o->all);
            return 1;
        }
        /* slice `me` of the piece, accumulated into the highest rank's slot */
        MPI_Count per = o->cnt / p, extra = o->cnt % p;
        MPI_Count lo = per * me + (me < extra ? me : extra), n = per + (me < extra);
        size_t off = (size_t)lo * o->esize;
        char *acc = empi_shm_slot(m, P, p - 1) + off;
        for (int i = p - 2; n && i >= 0; i--) {
            int rc = empi_op_apply_data(o->op, empi_shm_slot(m, P, i) + off, acc, n, o->dt);
            if (rc != MPI_SUCCESS)
                return -rc;
        }
        empi_shm_post(m, o->e, 2 * e + 2);
        o->phase = 2;
    }
    if (!empi_shm_all_posted(m, o->e, 2 * e + 2))
        return 0;
    if (gets)
        empi_copy(o->rbuf + o->off0, empi_shm_slot(m, P, p - 1), o->len);
    empi_shm_set_done(m, e, 1);
    return 1;
}

int empi_shm_reduce_op(empi_comm_t *comm, const empi_coll_args_t *a, int all, empi_shm_op_t *o)
{
    struct empi_coll_shm *m;
    empi_datatype_t *dt = a->rdt;
    if (!dt->is_contig || dt->size == 0 || (size_t)dt->size > EMPI_SHM_SLOT_MIN || a->rcount == 0 ||
        !(m = empi_coll_shm_get(comm)))
        return 0;
    const void *in = a->in_place ? a->rbuf : a->sbuf;
    int gets = all || comm->rank == a->root;
    *o = (empi_shm_op_t){.step = empi_shm_reduce_step, .m = m, .root = a->root, .count = a->rcount, .dt = dt,
                         .op = a->op, .esize = (size_t)dt->size, .sbuf = (const char *)in + dt->true_lb,
                         .rbuf = gets ? (char *)a->rbuf + dt->true_lb : NULL, .all = all};
    o->piece = (MPI_Count)m->slot / (MPI_Count)o->esize;
    return 1;
}

EMPI_ALG(empi_reduce_shm)
{
    empi_shm_op_t o;
    if (!empi_shm_reduce_op(s->comm, a, 0, &o))
        return empi_reduce_binomial(s, a);
    return empi_shm_build(s, &o);
}

int empi_reduce_shm_fast(const empi_coll_args_t *a, int *rc)
{
    empi_shm_op_t o;
    if (!empi_shm_reduce_op(a->comm, a, 0, &o))
        return 0;
    *rc = empi_shm_run_direct(&o);
    return 1;
}
