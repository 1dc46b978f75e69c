/* Nonblocking collectives with overlap. Per size:
 *  1. pure communication time: start, then wait at once;
 *  2. overall time: start, compute for (slowest rank's) pure time, wait;
 *  overlap = 100 * (1 - (overall - compute) / pure), clamped to [0, 100]:
 *  the share of the computation that the library hid behind the transfer.
 * An untimed barrier follows every call in both loops, as in OSU's
 * nonblocking collective benchmarks; -b runs the calls back to back. */
#include "coll_ops.h"

#include <math.h>

/* One timed loop; compute_us < 0 means no computation (pure mode).
 * Returns the mean time per operation in us; *comp gets mean compute time. */
static double nb_loop(coll_ctx *x, const bench_opts *o, int iters, int skip, double compute_us,
                      double *comp, long *errs)
{
    bench_timer tm = {0};
    double spent = 0.0;
    MPI_Request req;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < skip + iters; i++) {
        if (i == skip) {
            spent = 0.0;
            timer_start(&tm);
        }
        coll_before_call(x, o, &tm, i);
        coll_start(x, &req);
        if (compute_us >= 0.0)
            spent += compute_for_us(compute_us);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        *errs += coll_after_call(x, o, &tm, i);
    }
    if (comp)
        *comp = spent * 1e6 / iters;
    return timer_stop(&tm) * 1e6 / iters;
}

long run_nbc(const bench_case *c, const bench_opts *o)
{
    static const report_col cols[] = {{"overall_us", "Overall (us)", 0},
                                      {"compute_us", "Compute (us)", 0},
                                      {"latency_us", "Pure Comm (us)", 0},
                                      {"overlap_pct", "Overlap (%)", 0},
                                      {"min_latency_us", "Min Comm (us)", 1},
                                      {"max_latency_us", "Max Comm (us)", 1}};
    char title[64];
    snprintf(title, sizeof title, "%s latency and overlap test", c->name);
    report_begin(o, c, title, cols, 6, "latency_us");
    compute_calibrate();

    coll_ctx x;
    enum coll_op op = (enum coll_op)c->op;
    size_t max = coll_has_size(op) ? o->max_size : 0;
    coll_setup(&x, op, max);
    long total = 0;
    size_t first = coll_has_size(op) ? coll_first_size(&x, o) : 0;

    for (size_t size = first; size <= max; size = next_size(size)) {
        int iters, skip;
        long errs = 0;
        double comp = 0.0, pure_st[3], over_st[3], comp_st[3];
        iters_for_size(o, size, &iters, &skip);
        coll_set_size(&x, size);

        double pure = nb_loop(&x, o, iters, skip, -1.0, NULL, &errs);
        /* Everyone computes for the slowest rank's pure time so that no rank
         * is left waiting on another's longer computation. */
        double target = 0.0;
        MPI_Allreduce(&pure, &target, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double overall = nb_loop(&x, o, iters, skip, target, &comp, &errs);

        coll_stats(pure, x.np, pure_st);
        coll_stats(overall, x.np, over_st);
        coll_stats(comp, x.np, comp_st);
        double overlap = 0.0;
        if (pure_st[0] > 0.0) {
            overlap = 100.0 * (1.0 - (over_st[0] - comp_st[0]) / pure_st[0]);
            overlap = fmax(0.0, fmin(100.0, overlap));
        }
        double vals[6] = {over_st[0], comp_st[0], pure_st[0], overlap, pure_st[1], pure_st[2]};
        long g = coll_errors(errs);
        report_row(coll_has_size(op) ? (long)x.size : -1, iters, vals, g);
        total += g;
        if (!coll_has_size(op))
            break;
    }
    coll_teardown(&x);
    return total;
}
