/*
 * Scatter, shared memory: the root copies every other rank's block into shared memory (blocks up
 * to 2 KiB into the reader's own flag line or medium buffer, larger ones side by side in the root's
 * slot) and raises its flag; each rank copies its block out and leaves. Blocks that do not fit a
 * slot together go in pieces of a slot / p bytes, one epoch each (piece k of every block).
 * Non-contiguous types are packed. Receivers never wait for each other; the root waits only before
 * reusing memory the readers may still be in: pieces of 2-32 KiB are deep (coll_shm.h), so it may
 * run 8-64 calls ahead.
 * Cost per piece: 2 copies of each block + 1 flag transfer.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

/* Where block `i` of piece e goes: up to EMPI_SHM_MEDIUM bytes in rank i's own line or medium
   buffer (the root writes them; i reads only), beyond in the root's slot, p blocks side by side. */
static char *block_at(struct empi_coll_shm *m, uint64_t e, int root, int i, size_t n)
{
    if (n <= EMPI_SHM_MEDIUM)
        return empi_shm_data(m, e, i, n);
    return empi_shm_deep_data(m, e, root, n * (size_t)m->p) + n * (size_t)i;
}

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    int p = m->p, me = m->me;
    size_t n = o->len;   /* this piece's bytes of each block */
    if (me == o->root) {
        if (!empi_shm_deep_free(m, o->e, n <= EMPI_SHM_MEDIUM ? n : n * (size_t)p))
            return 0;
        for (int i = 0; i < p; i++)
            if (i != me)
                empi_copy(block_at(m, o->e, me, i, n), o->sbuf + o->nb * (size_t)i + o->off0, n);
        empi_shm_post(m, o->e, 2 * o->e + 1);
        if (o->rbuf)
            empi_copy(o->rbuf + o->off0, o->sbuf + o->nb * (size_t)me + o->off0, n);
    } else {
        if (!empi_shm_posted(m, o->root, o->e, 2 * o->e + 1))
            return 0;
        empi_copy(o->rbuf + o->off0, block_at(m, o->e, o->root, me, n), n);
    }
    empi_shm_set_done(m, o->e, 0);
    return 1;
}

/* p blocks of a piece share one slot. */
static empi_shm_op_t op_for(struct empi_coll_shm *m, const empi_coll_args_t *a, size_t nb)
{
    return (empi_shm_op_t){.step = step, .m = m, .root = a->root, .count = (MPI_Count)nb, .esize = 1, .nb = nb,
                           .piece = (MPI_Count)(m->slot / (size_t)m->p)};
}

static int fits(const empi_comm_t *comm)
{
    return (size_t)comm->size <= EMPI_SHM_SLOT_MIN;
}

EMPI_ALG(empi_scatter_shm)
{
    struct empi_coll_shm *m;
    size_t nb = (size_t)empi_coll_msg_bytes(a);   /* one rank's block */
    if (nb == 0 || !fits(s->comm) || !(m = empi_coll_shm_get(s->comm)))
        return empi_scatter_linear(s, a);
    empi_shm_op_t o = op_for(m, a, nb);
    empi_bytes_view_t sv = {0}, rv = {0};
    if (s->comm->rank == a->root) {
        EMPI_TRY(empi_bytes_begin(s, &sv, (void *)a->sbuf, a->scount * s->comm->size, a->sdt, 1));
        o.sbuf = sv.bytes;
    }
    if (!a->in_place) {
        EMPI_TRY(empi_bytes_begin(s, &rv, a->rbuf, a->rcount, a->rdt, 0));
        o.rbuf = rv.bytes;
    }
    EMPI_TRY(empi_shm_build(s, &o));
    return a->in_place ? MPI_SUCCESS : empi_bytes_finish(s, &rv);
}

int empi_scatter_shm_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_shm *m;
    int root = a->comm->rank == a->root;
    size_t nb = (size_t)empi_coll_msg_bytes(a);   /* one rank's block */
    if (nb == 0 || !fits(a->comm) || (root && !a->sdt->is_contig) || (!a->in_place && !a->rdt->is_contig) ||
        !(m = empi_coll_shm_get(a->comm)))
        return 0;
    empi_shm_op_t o = op_for(m, a, nb);
    if (root)
        o.sbuf = (const char *)a->sbuf + a->sdt->true_lb;
    if (!a->in_place)
        o.rbuf = (char *)a->rbuf + a->rdt->true_lb;
    *rc = empi_shm_run_direct(&o);
    return 1;
}
