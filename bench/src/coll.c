/* Blocking collectives: every rank times its own iterations; the report
 * gives the average over ranks and, with -f, the fastest and slowest rank.
 * Calls are separated by an untimed barrier, as in OSU's collective
 * benchmarks, so each starts with every rank present; -b runs them back to
 * back, where a rank that returns early starts its next call ahead. */
#include "coll_ops.h"

/* Reductions work on int32 elements, so their sweep starts at 4 bytes. */
size_t coll_first_size(const coll_ctx *x, const bench_opts *o)
{
    if (coll_is_reduction(x->op) && o->min_size < sizeof(int32_t))
        return sizeof(int32_t);
    return o->min_size;
}

void coll_stats(double mine, int np, double out[3])
{
    double sum = 0.0, mn = 0.0, mx = 0.0;
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    out[0] = sum / np;
    out[1] = mn;
    out[2] = mx;
}

long coll_errors(long mine)
{
    long g = 0;
    MPI_Reduce(&mine, &g, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    return g;
}

void coll_before_call(coll_ctx *x, const bench_opts *o, bench_timer *tm, int iter)
{
    if (o->rotate_root)
        x->root = iter % x->np;
    if (o->validate) {
        timer_pause(tm);
        coll_fill(x, iter);
        timer_resume(tm);
    }
}

long coll_after_call(coll_ctx *x, const bench_opts *o, bench_timer *tm, int iter)
{
    long errs = 0;
    if (o->validate || !o->back_to_back)
        timer_pause(tm);
    if (o->validate)
        errs = coll_check(x, iter);
    if (!o->back_to_back)
        MPI_Barrier(MPI_COMM_WORLD);
    timer_resume(tm);
    return errs;
}

long run_coll(const bench_case *c, const bench_opts *o)
{
    static const report_col cols[] = {{"latency_us", "Avg Latency (us)", 0},
                                      {"min_latency_us", "Min Latency (us)", 1},
                                      {"max_latency_us", "Max Latency (us)", 1}};
    char title[64];
    snprintf(title, sizeof title, "%s latency test", c->name);
    report_begin(o, c, title, cols, 3, "latency_us");

    coll_ctx x;
    enum coll_op op = (enum coll_op)c->op;
    size_t max = coll_has_size(op) ? o->max_size : 0;
    coll_setup(&x, op, max);
    long total = 0;
    size_t first = coll_has_size(op) ? coll_first_size(&x, o) : 0;

    for (size_t size = first; size <= max; size = next_size(size)) {
        int iters, skip;
        long errs = 0;
        bench_timer tm = {0};
        iters_for_size(o, size, &iters, &skip);
        coll_set_size(&x, size);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip)
                timer_start(&tm);
            coll_before_call(&x, o, &tm, i);
            coll_run(&x);
            errs += coll_after_call(&x, o, &tm, i);
        }
        double lat = timer_stop(&tm) * 1e6 / iters, st[3];
        coll_stats(lat, x.np, st);
        long g = coll_errors(errs);
        report_row(coll_has_size(op) ? (long)x.size : -1, iters, st, g);
        total += g;
        if (!coll_has_size(op))
            break;
    }
    coll_teardown(&x);
    return total;
}
