/*
 * Allgather, shared memory: every rank copies its block into its slot (inline in its flag line up
 * to 56 bytes), one synchronization, every rank copies all blocks out. Blocks over a slot go in
 * slot-sized pieces, one epoch each (piece k of every block). Non-contiguous types are packed.
 * Cost: (p + 1) block copies + 1 sync per 64 KiB of block.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    int p = m->p;
    size_t nb = o->nb, len = o->len;
    if (o->phase == 0) {
        if (!empi_shm_all_done(m, o->e, len))
            return 0;
        empi_copy(empi_shm_data(m, o->e, m->me, len), o->sbuf + o->off0, len);
        empi_shm_post(m, o->e, 2 * o->e + 1);
        o->phase = 1;
    }
    if (!empi_shm_all_posted(m, o->e, 2 * o->e + 1))
        return 0;
    for (int i = 0; i < p; i++)
        empi_shm_copy_out(o->rbuf + nb * (size_t)i + o->off0, empi_shm_data(m, o->e, i, len), len, nb * (size_t)p);
    empi_shm_set_done(m, o->e, 1);
    return 1;
}

EMPI_ALG(empi_allgather_shm)
{
    struct empi_coll_shm *m;
    int p = s->comm->size, rank = s->comm->rank;
    size_t nb = (size_t)(a->rcount * a->rdt->size);
    if (nb == 0 || !(m = empi_coll_shm_get(s->comm)))
        return empi_allgather_ring(s, a);
    empi_bytes_view_t rv;
    EMPI_TRY(empi_bytes_begin(s, &rv, a->rbuf, a->rcount * p, a->rdt, a->in_place));
    const char *mine;
    if (a->in_place) {
        mine = rv.bytes + nb * (size_t)rank;
    } else {
        empi_bytes_view_t sv;
        EMPI_TRY(empi_bytes_begin(s, &sv, (void *)a->sbuf, a->scount, a->sdt, 1));
        mine = sv.bytes;
    }
    empi_shm_op_t o = {.step = step, .m = m, .count = (MPI_Count)nb, .piece = EMPI_SHM_SLOT_MIN, .esize = 1, .nb = nb,
                       .sbuf = mine, .rbuf = rv.bytes};
    EMPI_TRY(empi_shm_build(s, &o));
    return empi_bytes_finish(s, &rv);
}
