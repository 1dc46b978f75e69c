/*
 * Operations on memory mapped in this process (the DIRECT path): a put is a copy into the target's
 * memory, a get a copy out of it, both through the datatype engine; accumulates update elements
 * with hardware atomics (rma_atomic.c) or under the target's accumulate lock.
 *
 * The lock path works on an "image" of the target buffer: its real memory here, a local copy
 * for CMA (rma_cma.c). It reduces with the datatype layer's own function on the target datatype,
 * so every type the standard allows (pair types included) is handled in one place.
 */
#include <stdlib.h>
#include <string.h>

#include "core/copy.h"
#include "core/tunables.h"
#include "rma/win.h"

const void *empi_rma_stream(const void *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count bytes,
                            void **tmp)
{
    *tmp = NULL;
    if (dt->is_contig)
        return (const char *)buf + dt->true_lb;
    *tmp = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (*tmp)
        empi_dt_pack(buf, count, dt, 0, *tmp, bytes);
    return *tmp;
}

char *empi_rma_sink(void *buf, const empi_datatype_t *dt, MPI_Count bytes, void **tmp)
{
    *tmp = NULL;
    if (dt->is_contig)
        return (char *)buf + dt->true_lb;
    return *tmp = malloc(bytes > 0 ? (size_t)bytes : 1);
}

int empi_rma_acc_image(const empi_rma_op_t *op, char *tmem)
{
    const empi_datatype_t *tdt = op->tdt;
    void *tmp = NULL, *img = NULL;
    int rc = MPI_SUCCESS;
    if (op->rbuf && tdt->is_contig && op->rdt->is_contig) {
        empi_copy((char *)op->rbuf + op->rdt->true_lb, tmem + tdt->true_lb, (size_t)op->bytes);
    } else if (op->rbuf) {
        void *res = malloc(op->bytes > 0 ? (size_t)op->bytes : 1);
        if (!res)
            return MPI_ERR_NO_MEM;
        empi_dt_pack(tmem, op->tcount, tdt, 0, res, op->bytes);
        empi_dt_unpack(op->rbuf, op->rcount, op->rdt, 0, res, op->bytes);
        free(res);
    }
    if (op->op->handle == MPI_NO_OP)
        return MPI_SUCCESS;
    const char *in = op->obuf;
    if (op->odt != tdt || op->ocount != op->tcount) {
        /* the origin's elements laid out as the target datatype lays them */
        const void *stream = empi_rma_stream(op->obuf, op->ocount, op->odt, op->bytes, &tmp);
        MPI_Aint lo, span = empi_dt_span(op->tcount, tdt, &lo);
        img = malloc(span > 0 ? (size_t)span : 1);
        if (!stream || !img) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
        in = (char *)img - lo;
        empi_dt_unpack((char *)in, op->tcount, tdt, 0, stream, op->bytes);
    }
    rc = empi_op_apply(op->op, in, tmem, op->tcount, tdt);
out:
    free(tmp);
    free(img);
    return rc;
}

void empi_rma_put_bytes(empi_win_t *w, char *dst, const char *src, size_t bytes)
{
    /* Large puts skip reading the lines they overwrite, unless they rewrite the place the last
       one wrote (a loop over one buffer) in sizes whose source and target lines stay in the
       cache: put latency 128-512 KiB 2x, 1 MiB 1.15x; from 2 MiB streaming wins again (1.3x).
       A loop over many places is streamed (put bandwidth 512 KiB-4 MiB 1.4x). */
    size_t stream_min = empi_tunables.rma_put_stream_threshold;
    if (w && stream_min && bytes >= stream_min) {
        if (dst == w->last_put_dst && bytes <= empi_tunables.rma_put_repeat_cached)
            stream_min = 0;
        w->last_put_dst = dst;
    }
    empi_copy_for(dst, src, bytes, bytes, stream_min);
}

void empi_rma_get_bytes(empi_win_t *w, char *dst, const char *src, size_t bytes)
{
    /* A get into the buffer the last large get wrote finds its lines in the cache (a loop
       re-reading the same data): cached stores keep them there, where streaming would evict them
       again (1-4 MiB: 1.2-1.3x). A new buffer, as in a loop over many, is streamed (1.5x). */
    size_t stream_min = empi_tunables.rma_get_stream_threshold;
    if (stream_min && bytes >= stream_min) {
        if (dst == w->last_get_dst)
            stream_min = 0;
        w->last_get_dst = dst;
    }
    empi_copy_for(dst, src, bytes, bytes, stream_min);
}

/* ---- runs of the target, for puts, gets and atomic accumulates ---- */

typedef struct {
    const empi_rma_op_t *op;
    char *tmem;          /* target buffer origin */
    _Atomic uint32_t *acc_lock;
    int locked;          /* acc_lock held exclusive */
    int shared;          /* acc_lock held shared (around hardware atomics) */
    char *scratch;       /* origin elements / fetched values of one run */
    size_t scratch_len;
} direct_ctx_t;

static int put_run(void *c, MPI_Aint disp, MPI_Count s, MPI_Count len)
{
    direct_ctx_t *d = c;
    const empi_datatype_t *odt = d->op->odt;
    if (odt->is_contig) {
        empi_rma_put_bytes(NULL, d->tmem + disp, (const char *)d->op->obuf + odt->true_lb + s, (size_t)len);
        return 0;
    }
    empi_dt_pack(d->op->obuf, d->op->ocount, d->op->odt, s, d->tmem + disp, len);
    return 0;
}

static int get_run(void *c, MPI_Aint disp, MPI_Count s, MPI_Count len)
{
    direct_ctx_t *d = c;
    empi_dt_unpack((void *)d->op->obuf, d->op->ocount, d->op->odt, s, d->tmem + disp, len);
    return 0;
}

static int grow_scratch(direct_ctx_t *d, size_t len)
{
    if (d->scratch_len >= len)
        return 0;
    free(d->scratch);
    d->scratch = malloc(len);
    d->scratch_len = d->scratch ? len : 0;
    return d->scratch ? 0 : -1;
}

/* One run of whole elements: origin elements from the packed stream, old values to the result. */
static int acc_run(void *c, MPI_Aint disp, MPI_Count s, MPI_Count len)
{
    direct_ctx_t *d = c;
    const empi_rma_op_t *op = d->op;
    char *t = d->tmem + disp;
    int atomics = empi_rma_atomic_ok(op->elem, t);
    if (!atomics && !d->locked) {   /* a misaligned element: the lock, like every origin uses for it */
        if (d->shared)
            empi_win_acc_shared_release(d->acc_lock);
        d->shared = 0;
        empi_win_spin_acquire(d->acc_lock);
        d->locked = 1;
    }
    /* Contiguous origin and result buffers are used in place: a counter update costs no copy. */
    int pack_in = op->op->handle != MPI_NO_OP && !op->odt->is_contig;
    int unpack_out = op->rbuf && !op->rdt->is_contig;
    size_t need = (size_t)len * (size_t)(pack_in + unpack_out);
    if (need && grow_scratch(d, need) != 0)
        return MPI_ERR_NO_MEM;
    const char *in = (const char *)op->obuf + op->odt->true_lb + s;
    if (pack_in) {
        empi_dt_pack(op->obuf, op->ocount, op->odt, s, d->scratch, len);
        in = d->scratch;
    }
    char *fetch = !op->rbuf ? NULL : unpack_out ? d->scratch + (pack_in ? len : 0)
                                                : (char *)op->rbuf + op->rdt->true_lb + s;
    empi_rma_apply(op->op, op->elem, in, t, fetch, len / op->elem->size, atomics);
    if (unpack_out)
        empi_dt_unpack(op->rbuf, op->rcount, op->rdt, s, fetch, len);
    return 0;
}

int empi_rma_direct(empi_win_t *w, empi_rma_op_t *op)
{
    empi_win_peer_t *p = &w->peers[op->target];
    char *tmem = (char *)((uintptr_t)p->base + (uintptr_t)op->offset);
    direct_ctx_t d = {op, tmem, p->slot ? &p->slot->acc_lock : NULL, 0, 0, NULL, 0};
    switch (op->kind) {
    case EMPI_RMA_PUT:
        if (op->odt->is_contig && op->tdt->is_contig) {
            empi_rma_put_bytes(w, tmem + op->tdt->true_lb, (const char *)op->obuf + op->odt->true_lb,
                               (size_t)op->bytes);
            return MPI_SUCCESS;
        }
        empi_dt_runs(op->tcount, op->tdt, put_run, &d);
        return MPI_SUCCESS;
    case EMPI_RMA_GET:
        if (op->odt->is_contig && op->tdt->is_contig) {
            empi_rma_get_bytes(w, (char *)op->obuf + op->odt->true_lb, tmem + op->tdt->true_lb, (size_t)op->bytes);
            return MPI_SUCCESS;
        }
        empi_dt_runs(op->tcount, op->tdt, get_run, &d);
        return MPI_SUCCESS;
    case EMPI_RMA_CAS: {
        char *t = tmem + op->tdt->true_lb;
        int atomics = p->atomics && empi_rma_atomic_ok(op->elem, t);
        empi_win_acc_hold(d.acc_lock, atomics);
        empi_rma_cas(op->elem, op->obuf, op->cbuf, op->rbuf, t, atomics);
        empi_win_acc_drop(d.acc_lock, atomics);
        return MPI_SUCCESS;
    }
    default: {
        int rc = 0;
        if (p->atomics && empi_rma_atomic_ok(op->elem, NULL) && !empi_rma_acc_bulk(op->bytes, op->elem)) {
            empi_win_acc_shared_acquire(d.acc_lock);
            d.shared = 1;
            rc = op->tdt->is_contig ? acc_run(&d, op->tdt->true_lb, 0, op->bytes)
                                    : empi_dt_runs(op->tcount, op->tdt, acc_run, &d);
        } else {
            empi_win_spin_acquire(d.acc_lock);
            d.locked = 1;
            rc = empi_rma_acc_image(op, tmem);
        }
        if (d.shared)
            empi_win_acc_shared_release(d.acc_lock);
        if (d.locked)
            empi_win_spin_release(d.acc_lock);
        free(d.scratch);
        return rc;
    }
    }
}
