/*
 * Where the bytes of (count, datatype) live, as contiguous runs in packed-stream order. Layers
 * that cannot move data with memcpy use it: RMA writes a remote process's memory with one iovec
 * per run, applies element-wise atomics run by run, and sends one active message per run. Adjacent
 * runs are merged before the callback sees them, so a contiguous type is always a single run.
 */
#include "datatype/dt_internal.h"

typedef struct {
    empi_dt_run_fn fn;
    void *ctx;
    MPI_Aint disp;      /* pending run, not reported yet */
    MPI_Count len;
    MPI_Count stream;   /* stream offset of the pending run */
    int stop;
} run_walk_t;

static void emit(run_walk_t *w, MPI_Aint disp, MPI_Count len)
{
    if (w->stop || len == 0)
        return;
    if (w->len > 0 && w->disp + (MPI_Aint)w->len == disp) {
        w->len += len;
        return;
    }
    if (w->len > 0)
        w->stop = w->fn(w->ctx, w->disp, w->stream, w->len);
    w->stream += w->len;
    w->disp = disp;
    w->len = len;
}

static void walk(run_walk_t *w, const empi_dt_layout_t *l, MPI_Aint at)
{
    switch (l->kind) {
    case EMPI_NODE_RUNS:
        for (MPI_Count i = 0; i < l->n && !w->stop; i++)
            emit(w, at + l->disp[i], l->len[i]);
        break;
    case EMPI_NODE_VEC:
        for (MPI_Count i = 0; i < l->n && !w->stop; i++)
            walk(w, l->child, at + l->disp0 + (MPI_Aint)i * l->stride);
        break;
    case EMPI_NODE_BLOCKS:
        for (MPI_Count i = 0; i < l->n && !w->stop; i++)
            for (MPI_Count j = 0; j < l->len[i] && !w->stop; j++)
                walk(w, l->kids[i], at + l->disp[i] + (MPI_Aint)j * l->kext[i]);
        break;
    }
}

int empi_dt_runs(MPI_Count count, const empi_datatype_t *dt, empi_dt_run_fn fn, void *ctx)
{
    if (count <= 0 || dt->size == 0)
        return 0;
    if (dt->is_contig)
        return fn(ctx, dt->true_lb, 0, count * dt->size);
    run_walk_t w = {fn, ctx, 0, 0, 0, 0};
    for (MPI_Count i = 0; i < count && !w.stop; i++)
        walk(&w, dt->layout, (MPI_Aint)i * dt->extent);
    if (!w.stop && w.len > 0)
        w.stop = fn(ctx, w.disp, w.stream, w.len);
    return w.stop;
}
