/* One-sided cases between ranks 0 (origin) and 1 (target) of a window over
 * those two ranks. The -s option picks the synchronisation per operation
 * (latency) or per window of operations (bandwidth):
 *   fence: op; MPI_Win_fence         lock:  lock; op; unlock
 *   flush: op; MPI_Win_flush         pscw:  start; op; complete / post; wait */
#include "bench.h"
#include "rma_ops.h"

#include <string.h>

typedef struct {
    MPI_Comm comm; /* ranks 0 and 1 of MPI_COMM_WORLD */
    MPI_Win win;
    MPI_Group peer_grp;
    char *base;  /* window memory */
    char *local; /* origin's buffer */
    int me, peer;
    enum rma_sync sync;
} rma_ctx;

static const int ORIGIN = 0, TARGET = 1;

/* Opens whatever epoch spans a whole size (fence, flush), on both ranks. */
static void size_begin(rma_ctx *r)
{
    if (r->sync == SYNC_FENCE)
        MPI_Win_fence(0, r->win);
    else if (r->sync == SYNC_FLUSH && r->me == ORIGIN)
        MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, r->win);
}

static void size_end(rma_ctx *r)
{
    if (r->sync == SYNC_FENCE)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, r->win);
    else if (r->sync == SYNC_FLUSH && r->me == ORIGIN)
        MPI_Win_unlock(TARGET, r->win);
}

/* Opens an access (origin) or exposure (target) epoch for one sync unit. */
static void unit_begin(rma_ctx *r)
{
    if (r->sync == SYNC_LOCK && r->me == ORIGIN)
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, TARGET, 0, r->win);
    else if (r->sync == SYNC_PSCW)
        r->me == ORIGIN ? MPI_Win_start(r->peer_grp, 0, r->win)
                        : MPI_Win_post(r->peer_grp, 0, r->win);
}

static void unit_end(rma_ctx *r)
{
    switch (r->sync) {
    case SYNC_FENCE: MPI_Win_fence(0, r->win); break;
    case SYNC_LOCK: if (r->me == ORIGIN) MPI_Win_unlock(TARGET, r->win); break;
    case SYNC_FLUSH: if (r->me == ORIGIN) MPI_Win_flush(TARGET, r->win); break;
    case SYNC_PSCW:
        r->me == ORIGIN ? MPI_Win_complete(r->win) : MPI_Win_wait(r->win);
        break;
    }
}

/* Target-side access to its own window memory outside any other epoch. */
static void self_lock(rma_ctx *r)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r->me, 0, r->win);
}

static void self_unlock(rma_ctx *r)
{
    MPI_Win_unlock(r->me, r->win);
}

static int is_bw(int op)
{
    return op == RMA_PUT_BW || op == RMA_GET_BW;
}

/* Runs one size; returns errors found on this rank, *secs = origin's time. */
static long rma_size(rma_ctx *r, const bench_opts *o, int op, size_t size, int iters, int skip,
                     int win, double *secs)
{
    long errs = 0;
    int count = (int)(size / sizeof(int32_t));
    bench_timer tm = {0};

    /* Prepare the target's memory: known data for gets, zeros otherwise. */
    if (r->me == TARGET) {
        self_lock(r);
        if (op == RMA_GET_LAT || op == RMA_GET_BW)
            for (int w = 0; w < win; w++)
                pattern_fill(r->base + (size_t)w * size, size, size, -1, TARGET + 2 * w);
        else
            memset(r->base, 0, (size_t)win * size);
        self_unlock(r);
    }
    MPI_Barrier(r->comm);
    size_begin(r);
    for (int i = 0; i < skip + iters; i++) {
        if (i == skip && r->me == ORIGIN)
            timer_start(&tm);
        if (o->validate && r->me == ORIGIN && (op == RMA_PUT_LAT || op == RMA_PUT_BW)) {
            timer_pause(&tm);
            for (int w = 0; w < win; w++)
                pattern_fill(r->local + (size_t)w * size, size, size, i, ORIGIN + 2 * w);
            timer_resume(&tm);
        }
        if (o->validate && r->me == ORIGIN && op == RMA_ACC_LAT) {
            timer_pause(&tm);
            for (int k = 0; k < count; k++)
                ((int32_t *)r->local)[k] = pattern_int((size_t)k, i, ORIGIN);
            timer_resume(&tm);
        }
        unit_begin(r);
        for (int w = 0; r->me == ORIGIN && w < win; w++) {
            char *l = r->local + (size_t)w * size;
            MPI_Aint disp = (MPI_Aint)((size_t)w * size);
            if (op == RMA_PUT_LAT || op == RMA_PUT_BW)
                MPI_Put(l, (int)size, MPI_BYTE, TARGET, disp, (int)size, MPI_BYTE, r->win);
            else if (op == RMA_GET_LAT || op == RMA_GET_BW)
                MPI_Get(l, (int)size, MPI_BYTE, TARGET, disp, (int)size, MPI_BYTE, r->win);
            else
                MPI_Accumulate(l, count, MPI_INT, TARGET, 0, count, MPI_INT, MPI_SUM, r->win);
        }
        unit_end(r);
        if (o->validate && r->me == ORIGIN && (op == RMA_GET_LAT || op == RMA_GET_BW)) {
            timer_pause(&tm);
            for (int w = 0; w < win; w++)
                errs += (long)pattern_check(r->local + (size_t)w * size, size, size, -1, TARGET + 2 * w);
            memset(r->local, 0, (size_t)win * size); /* so a skipped get is caught */
            timer_resume(&tm);
        }
    }
    if (r->me == ORIGIN)
        *secs = timer_stop(&tm);
    size_end(r);
    MPI_Barrier(r->comm);

    /* Puts are checked at the end: the last iteration's data must be there.
     * Accumulates: the sum of every iteration's contribution. */
    if (o->validate && r->me == TARGET && op != RMA_GET_LAT && op != RMA_GET_BW) {
        int last = skip + iters - 1;
        self_lock(r);
        if (op == RMA_ACC_LAT) {
            const int32_t *t = (const int32_t *)r->base;
            for (int k = 0; k < count; k++) {
                int32_t want = 0;
                for (int i = 0; i <= last; i++)
                    want += pattern_int((size_t)k, i, ORIGIN);
                errs += t[k] != want;
            }
        } else {
            for (int w = 0; w < win; w++)
                errs += (long)pattern_check(r->base + (size_t)w * size, size, size, last, ORIGIN + 2 * w);
        }
        self_unlock(r);
    }
    return errs;
}

long run_rma(const bench_case *c, const bench_opts *o)
{
    int rank, np, op = c->op;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2)
        bench_die("one-sided cases need at least 2 processes");

    static const report_col lat_cols[] = {{"latency_us", "Latency (us)", 0}};
    static const report_col bw_cols[] = {{"bandwidth_MBps", "Bandwidth (MB/s)", 0}};
    char title[96];
    snprintf(title, sizeof title, "%s test (%s)", c->name, sync_name(o->sync));
    if (is_bw(op))
        report_begin(o, c, title, bw_cols, 1, "bandwidth_MBps");
    else
        report_begin(o, c, title, lat_cols, 1, "latency_us");
    report_note("Synchronization: %s, window creation: MPI_Win_allocate", sync_name(o->sync));
    if (is_bw(op))
        report_note("Window size: %d", o->window);

    rma_ctx r;
    memset(&r, 0, sizeof r);
    r.sync = o->sync;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &r.comm);

    size_t slot = o->max_size ? o->max_size : sizeof(int32_t);
    size_t bytes = is_bw(op) ? bw_window_bytes(o, slot) : slot;
    if (r.comm != MPI_COMM_NULL) {
        MPI_Comm_rank(r.comm, &r.me);
        r.peer = 1 - r.me;
        MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, r.comm, &r.base, &r.win);
        MPI_Group g;
        MPI_Comm_group(r.comm, &g);
        MPI_Group_incl(g, 1, &r.peer, &r.peer_grp);
        MPI_Group_free(&g);
        r.local = bench_alloc(bytes);
    }

    long total = 0;
    size_t first = o->min_size;
    if (op == RMA_ACC_LAT && first < sizeof(int32_t))
        first = sizeof(int32_t); /* accumulate works on int32 elements */
    for (size_t size = first; size <= o->max_size; size = next_size(size)) {
        int iters, skip, win = is_bw(op) ? bw_window(o, size) : 1;
        double secs = 0.0;
        long errs = 0, g = 0;
        iters_for_size(o, size, &iters, &skip);
        size_t sz = op == RMA_ACC_LAT ? size / sizeof(int32_t) * sizeof(int32_t) : size;
        if (r.comm != MPI_COMM_NULL)
            errs = rma_size(&r, o, op, sz, iters, skip, win, &secs);
        MPI_Reduce(&errs, &g, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        double v = is_bw(op) ? (secs > 0 ? (double)sz * win * iters / secs / 1e6 : 0.0)
                             : secs * 1e6 / iters;
        report_row((long)sz, iters, &v, g);
        total += g;
    }

    if (r.comm != MPI_COMM_NULL) {
        bench_free(r.local);
        MPI_Group_free(&r.peer_grp);
        MPI_Win_free(&r.win);
        MPI_Comm_free(&r.comm);
    }
    return total;
}
