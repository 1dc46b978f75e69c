/*
 * Alltoall, shared memory: every rank copies its p - 1 outgoing blocks into its slot, one
 * synchronization, every rank copies its block out of every other slot. Where p blocks do not fit a
 * slot, the blocks go in pieces of a slot / p bytes, one epoch each (piece k of every block).
 * The blocks go in with non-temporal stores where that has measured cheaper
 * (coll/shm/shm_stream.c). Non-contiguous types are packed.
 * Cost: 2 copies of p - 1 blocks + 1 local copy + 1 sync per piece.
 */
#include "coll/shm/coll_shm.h"
#include "coll/shm/shm_stream.h"
#include "core/copy.h"

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    int me = m->me, p = m->p;
    size_t nb = o->nb, n = o->len, all = n * (size_t)p;   /* n: this piece's bytes of each block */
    if (o->phase == 0) {
        if (!empi_shm_all_done(m, o->e, all))
            return 0;
        /* Our own block never passes through the segment: the others' go in, ours straight across
           once they can start reading. */
        char *mine = empi_shm_data(m, o->e, me, all);
        o->streamed = empi_shm_stream_choose(EMPI_SHM_STREAM_ALLTOALL, n, n * (size_t)(p - 1));
        uint64_t t0 = empi_shm_stream_clock(n);
        if (n == nb) {
            empi_copy_way(mine, o->sbuf, n * (size_t)me, o->streamed);
            empi_copy_way(mine + n * (size_t)(me + 1), o->sbuf + n * (size_t)(me + 1), n * (size_t)(p - me - 1),
                          o->streamed);
        } else {
            for (int i = 0; i < p; i++)
                if (i != me)
                    empi_copy_way(mine + n * (size_t)i, o->sbuf + nb * (size_t)i + o->off0, n, o->streamed);
        }
        o->copy_in_ns = empi_shm_stream_clock(n) - t0;
        empi_shm_post(m, o->e, 2 * o->e + 1);
        empi_copy(o->rbuf + nb * (size_t)me + o->off0, o->sbuf + nb * (size_t)me + o->off0, n);
        o->phase = 1;
    }
    if (!empi_shm_all_posted(m, o->e, 2 * o->e + 1))
        return 0;
    uint64_t t0 = empi_shm_stream_clock(n);
    for (int i = 0; i < p; i++)
        if (i != me)
            empi_shm_copy_out(o->rbuf + nb * (size_t)i + o->off0, empi_shm_data(m, o->e, i, all) + n * (size_t)me, n,
                              nb * (size_t)p);
    double secs = (double)(o->copy_in_ns + empi_shm_stream_clock(n) - t0) * 1e-9;
    empi_shm_stream_learn(EMPI_SHM_STREAM_ALLTOALL, o->streamed, n, n * (size_t)(p - 1), secs);
    empi_shm_set_done(m, o->e, 1);
    return 1;
}

EMPI_ALG(empi_alltoall_shm)
{
    struct empi_coll_shm *m;
    int p = s->comm->size;
    size_t nb = (size_t)(a->rcount * a->rdt->size);
    if (a->in_place || nb == 0 || (size_t)p > EMPI_SHM_SLOT_MIN || !(m = empi_coll_shm_get(s->comm)))
        return empi_alltoall_pairwise(s, a);
    empi_bytes_view_t sv, rv;
    EMPI_TRY(empi_bytes_begin(s, &sv, (void *)a->sbuf, a->scount * p, a->sdt, 1));
    EMPI_TRY(empi_bytes_begin(s, &rv, a->rbuf, a->rcount * p, a->rdt, 0));
    empi_shm_op_t o = {.step = step, .m = m, .count = (MPI_Count)nb, .piece = (MPI_Count)(m->slot / (size_t)p),
                       .esize = 1, .nb = nb, .sbuf = sv.bytes, .rbuf = rv.bytes};
    EMPI_TRY(empi_shm_build(s, &o));
    return empi_bytes_finish(s, &rv);
}
