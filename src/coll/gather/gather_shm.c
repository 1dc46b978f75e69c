/*
 * Gather, shared memory: every rank but the root copies its block into its own slot (inline in its
 * flag line up to 56 bytes) and raises its flag, then leaves; the root copies its own block
 * straight across and every other block out once its flag is up. Blocks over a slot go in
 * slot-sized pieces, one epoch each. Blocks of 2-32 KiB are deep pieces (coll_shm.h): a sender
 * may leave 8-64 calls ahead of the root. Non-contiguous types are packed.
 * Cost per piece: 2 copies of each block + 1 flag transfer per rank; only the root waits.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

/* Rank r's block of the current piece: mid-size ones deep, so that senders run ahead. */
static char *block(empi_shm_op_t *o, int r)
{
    return empi_shm_deep_data(o->m, o->e, r, o->len);
}

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    if (m->me != o->root) {
        if (!empi_shm_deep_free(m, o->e, o->len))
            return 0;
        empi_copy(block(o, m->me), o->sbuf + o->off0, o->len);
        empi_shm_post(m, o->e, 2 * o->e + 1);
        empi_shm_set_done(m, o->e, 0);
        return 1;
    }
    if (o->phase == 0) {
        if (o->sbuf)
            empi_copy(o->rbuf + o->nb * (size_t)m->me + o->off0, o->sbuf + o->off0, o->len);
        o->phase = 1;
    }
    for (int i = 0; i < m->p; i++)
        if (i != m->me && !empi_shm_posted(m, i, o->e, 2 * o->e + 1))
            return 0;
    for (int i = 0; i < m->p; i++)
        if (i != m->me)
            empi_shm_copy_out(o->rbuf + o->nb * (size_t)i + o->off0, block(o, i), o->len,
                              o->nb * (size_t)m->p);
    /* every other rank posted this piece, so each has finished the one before */
    empi_shm_set_done(m, o->e, 1);
    return 1;
}

static empi_shm_op_t op_for(struct empi_coll_shm *m, const empi_coll_args_t *a, size_t nb)
{
    return (empi_shm_op_t){.step = step, .m = m, .root = a->root, .count = (MPI_Count)nb, .esize = 1, .nb = nb,
                           .piece = (MPI_Count)m->slot};
}

EMPI_ALG(empi_gather_shm)
{
    struct empi_coll_shm *m;
    size_t nb = (size_t)empi_coll_msg_bytes(a);   /* one rank's block */
    if (nb == 0 || !(m = empi_coll_shm_get(s->comm)))
        return empi_gather_linear(s, a);
    empi_shm_op_t o = op_for(m, a, nb);
    empi_bytes_view_t sv = {0}, rv = {0};
    int root = s->comm->rank == a->root;
    if (!a->in_place) {
        EMPI_TRY(empi_bytes_begin(s, &sv, (void *)a->sbuf, a->scount, a->sdt, 1));
        o.sbuf = sv.bytes;
    }
    if (root) {
        /* in place, a packed receive buffer must hold the root's own block before the others land */
        EMPI_TRY(empi_bytes_begin(s, &rv, a->rbuf, a->rcount * s->comm->size, a->rdt, a->in_place));
        o.rbuf = rv.bytes;
    }
    EMPI_TRY(empi_shm_build(s, &o));
    return root ? empi_bytes_finish(s, &rv) : MPI_SUCCESS;
}

int empi_gather_shm_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_shm *m;
    int root = a->comm->rank == a->root;
    size_t nb = (size_t)empi_coll_msg_bytes(a);   /* one rank's block */
    if (nb == 0 || (!a->in_place && !a->sdt->is_contig) || (root && !a->rdt->is_contig) ||
        !(m = empi_coll_shm_get(a->comm)))
        return 0;
    empi_shm_op_t o = op_for(m, a, nb);
    if (!a->in_place)
        o.sbuf = (const char *)a->sbuf + a->sdt->true_lb;
    if (root)
        o.rbuf = (char *)a->rbuf + a->rdt->true_lb;
    *rc = empi_shm_run_direct(&o);
    return 1;
}
