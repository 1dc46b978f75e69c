/*
 * Allgather and allgatherv, shared memory: every rank copies its block into its slot (inline in its
 * flag line up to 56 bytes), one synchronization, every rank copies all blocks out. Blocks over a
 * slot go in slot-sized pieces, one epoch each (piece k of every block; allgatherv's blocks differ,
 * the largest sets how many). Whole slots, not 64 KiB: when ranks outnumber cores every piece's
 * synchronization costs a round of time slices (np4 on 2 cores, 256 KiB blocks: 200 -> 139 us).
 * A block goes in with non-temporal stores where that has measured cheaper (coll/shm/shm_stream.c).
 * Non-contiguous types are packed.
 * Cost: (p + 1) block copies + 1 sync per slot (64 KiB-1 MiB) of the largest block.
 */
#include "coll/allgather/allgather_blocks.h"
#include "coll/shm/shm_stream.h"
#include "core/copy.h"

/* Bytes of block i in the current piece (blocks shorter than the largest run out early). */
static size_t piece_len(const empi_shm_op_t *o, int i)
{
    size_t n = empi_ag_len(o, i);
    return n <= o->off0 ? 0 : (n - o->off0 < o->len ? n - o->off0 : o->len);
}

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    const empi_ag_blocks_t *b = o->plan;
    int p = m->p;
    size_t len = o->len;   /* where the data lives (inline, medium, slot) follows the largest block */
    if (o->phase == 0) {
        if (!empi_shm_all_done(m, o->e, len))
            return 0;
        size_t mine = piece_len(o, m->me), have = b->sbytes > o->off0 ? b->sbytes - o->off0 : 0;
        o->streamed = empi_shm_stream_choose(EMPI_SHM_STREAM_ALLGATHER, len, len * (size_t)p);
        uint64_t t0 = empi_shm_stream_clock(len);
        empi_copy_way(empi_shm_data(m, o->e, m->me, len), o->sbuf + o->off0, mine < have ? mine : have,
                      o->streamed);
        empi_shm_post(m, o->e, 2 * o->e + 1);
        /* our own block while the others post theirs (2 ranks, 2-8 KiB: 0.81-0.85 of copying it
           with theirs) */
        empi_shm_copy_out(o->rbuf + empi_ag_off(o, m->me) + o->off0, empi_shm_data(m, o->e, m->me, len),
                          piece_len(o, m->me), b->total);
        o->copy_in_ns = empi_shm_stream_clock(len) - t0;
        o->phase = 1;
    }
    if (!empi_shm_all_posted(m, o->e, 2 * o->e + 1))
        return 0;
    uint64_t t0 = empi_shm_stream_clock(len);
    for (int i = 0; i < p; i++)
        if (i != m->me)
            empi_shm_copy_out(o->rbuf + empi_ag_off(o, i) + o->off0, empi_shm_data(m, o->e, i, len),
                              piece_len(o, i), b->total);
    double secs = (double)(o->copy_in_ns + empi_shm_stream_clock(len) - t0) * 1e-9;
    empi_shm_stream_learn(EMPI_SHM_STREAM_ALLGATHER, o->streamed, len, len * (size_t)p, secs);
    empi_shm_set_done(m, o->e, 1);
    return 1;
}

static int build(empi_sched_t *s, const empi_coll_args_t *a, int (*fallback)(empi_sched_t *, const empi_coll_args_t *))
{
    struct empi_coll_shm *m;
    size_t largest = empi_ag_largest(a);
    if (largest == 0 || !(m = empi_coll_shm_get(s->comm)))
        return fallback(s, a);
    empi_shm_op_t o = {.step = step, .m = m, .count = (MPI_Count)largest, .piece = (MPI_Count)m->slot, .esize = 1};
    return empi_ag_build(s, a, &o);
}

EMPI_ALG(empi_allgather_shm)
{
    return build(s, a, empi_allgather_ring);
}

EMPI_ALG(empi_allgatherv_shm)
{
    return build(s, a, empi_allgatherv_ring);
}

/* Allgatherv's blocks as contiguous bytes: in the user's buffer for a contiguous type, else in a
   packed copy (blocks back to back). */
static int lay_out_v(empi_sched_t *s, const empi_coll_args_t *a, empi_shm_op_t *o, empi_ag_blocks_t *b)
{
    int p = s->comm->size;
    empi_datatype_t *dt = a->rdt;
    size_t *off = empi_sched_tmp(s, 2 * (size_t)p * sizeof(size_t));
    if (!off)
        return MPI_ERR_NO_MEM;
    size_t *len = off + p;
    b->packed = !dt->is_contig;
    b->total = 0;
    for (int i = 0; i < p; i++) {
        len[i] = (size_t)(a->rcounts[i] * dt->size);
        off[i] = b->packed ? b->total : (size_t)(a->rdispls[i] * dt->extent);
        b->total += len[i];
    }
    b->off = off;
    b->len = len;
    o->rbuf = (char *)a->rbuf + dt->true_lb;
    if (b->packed && !(o->rbuf = empi_sched_tmp(s, b->total)))
        return MPI_ERR_NO_MEM;
    if (b->packed && a->in_place) {
        int me = s->comm->rank;
        EMPI_TRY(empi_sched_copy(s, empi_coll_off(a->rbuf, a->rdispls[me], dt), a->rcounts[me], dt, o->rbuf + off[me],
                                 (MPI_Count)len[me], empi_byte_type));
        EMPI_TRY(empi_sched_fence(s));
    }
    return MPI_SUCCESS;
}

size_t empi_ag_largest(const empi_coll_args_t *a)
{
    size_t largest = 0;
    if (!a->rcounts)
        return (size_t)(a->rcount * a->rdt->size);
    for (int i = 0; i < a->comm->size; i++)
        if ((size_t)(a->rcounts[i] * a->rdt->size) > largest)
            largest = (size_t)(a->rcounts[i] * a->rdt->size);
    return largest;
}

/* o's sbuf, rbuf, nb and plan for the call: this rank's block and the receive buffer as contiguous
   bytes (a packed copy for non-contiguous types, unpacked by finish). */
static int begin(empi_sched_t *s, const empi_coll_args_t *a, empi_shm_op_t *o)
{
    int p = s->comm->size, me = s->comm->rank;
    empi_ag_blocks_t *b = empi_sched_tmp(s, sizeof *b);
    if (!b)
        return MPI_ERR_NO_MEM;
    *b = (empi_ag_blocks_t){0};
    o->plan = b;
    if (a->rcounts) {
        EMPI_TRY(lay_out_v(s, a, o, b));
    } else {
        o->nb = (size_t)(a->rcount * a->rdt->size);
        b->total = o->nb * (size_t)p;
        EMPI_TRY(empi_bytes_begin(s, &b->rv, a->rbuf, a->rcount * p, a->rdt, a->in_place));
        o->rbuf = b->rv.bytes;
    }
    if (a->in_place) {
        o->sbuf = o->rbuf + empi_ag_off(o, me);
        b->sbytes = empi_ag_len(o, me);
    } else {
        empi_bytes_view_t sv;
        EMPI_TRY(empi_bytes_begin(s, &sv, (void *)a->sbuf, a->scount, a->sdt, 1));
        o->sbuf = sv.bytes;
        b->sbytes = (size_t)sv.len;
    }
    return MPI_SUCCESS;
}

static int finish(empi_sched_t *s, const empi_coll_args_t *a, const empi_shm_op_t *o)
{
    empi_ag_blocks_t *b = o->plan;
    if (!a->rcounts)
        return empi_bytes_finish(s, &b->rv);
    if (!b->packed)
        return MPI_SUCCESS;
    for (int i = 0; i < s->comm->size; i++)
        if (b->len[i])
            EMPI_TRY(empi_sched_copy(s, o->rbuf + b->off[i], (MPI_Count)b->len[i], empi_byte_type,
                                     empi_coll_off(a->rbuf, a->rdispls[i], a->rdt), a->rcounts[i], a->rdt));
    return empi_sched_fence(s);
}

int empi_ag_build(empi_sched_t *s, const empi_coll_args_t *a, empi_shm_op_t *o)
{
    EMPI_TRY(begin(s, a, o));
    EMPI_TRY(empi_shm_build(s, o));
    return finish(s, a, o);
}
