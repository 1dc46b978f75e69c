/* Multi-pair cases: rank r in the lower half pairs with r + np/2, so with
 * ranks placed by node the pairs cross the node boundary. All pairs run at
 * the same time to measure aggregate bandwidth, message rate and latency. */
#include "bench.h"

#include <stdlib.h>

static long pair_errors_reduce(long errs)
{
    long g = 0;
    MPI_Reduce(&errs, &g, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    return g;
}

static long run_mbw_mr(const bench_case *c, const bench_opts *o, int rank, int np)
{
    static const report_col cols[] = {{"bandwidth_MBps", "MB/s", 0},
                                      {"message_rate", "Messages/s", 0}};
    int half = np / 2, sender = rank < half;
    int peer = sender ? rank + half : rank - half;
    report_begin(o, c, "multiple bandwidth / message rate test", cols, 2, "bandwidth_MBps");
    report_note("Pairs: %d, window size: %d", half, o->window);

    char *buf = bench_alloc(bw_window_bytes(o, o->max_size ? o->max_size : 1));
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)o->window);
    if (!reqs)
        bench_die("out of memory");
    long total = 0;

    for (size_t size = o->min_size; size <= o->max_size; size = next_size(size)) {
        int iters, skip, win = bw_window(o, size);
        long errs = 0;
        bench_timer tm = {0};
        iters_for_size(o, size, &iters, &skip);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip)
                timer_start(&tm);
            if (o->validate && sender) {
                timer_pause(&tm);
                for (int w = 0; w < win; w++)
                    pattern_fill(buf + (size_t)w * size, size, size, i, rank + np * w);
                timer_resume(&tm);
            }
            char ack = 0;
            for (int w = 0; w < win; w++) {
                if (sender)
                    MPI_Isend(buf + (size_t)w * size, (int)size, MPI_CHAR, peer, 20, MPI_COMM_WORLD, &reqs[w]);
                else
                    MPI_Irecv(buf + (size_t)w * size, (int)size, MPI_CHAR, peer, 20, MPI_COMM_WORLD, &reqs[w]);
            }
            MPI_Waitall(win, reqs, MPI_STATUSES_IGNORE);
            if (sender)
                MPI_Recv(&ack, 1, MPI_CHAR, peer, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_CHAR, peer, 21, MPI_COMM_WORLD);
            if (o->validate && !sender) {
                timer_pause(&tm);
                for (int w = 0; w < win; w++)
                    errs += (long)pattern_check(buf + (size_t)w * size, size, size, i, peer + np * w);
                timer_resume(&tm);
            }
        }
        double t = timer_stop(&tm), tmax = 0.0;
        if (!sender)
            t = 0.0; /* the senders' clocks define the aggregate rate */
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        long gerrs = pair_errors_reduce(errs);
        double msgs = (double)half * win * iters;
        double vals[2] = {tmax > 0 ? msgs * (double)size / tmax / 1e6 : 0.0,
                          tmax > 0 ? msgs / tmax : 0.0};
        report_row((long)size, iters, vals, gerrs);
        total += gerrs;
    }
    free(reqs);
    bench_free(buf);
    return total;
}

static long run_multi_lat(const bench_case *c, const bench_opts *o, int rank, int np)
{
    static const report_col cols[] = {{"latency_us", "Avg Latency (us)", 0},
                                      {"min_latency_us", "Min Latency (us)", 1},
                                      {"max_latency_us", "Max Latency (us)", 1}};
    int half = np / 2, sender = rank < half;
    int peer = sender ? rank + half : rank - half;
    report_begin(o, c, "multi-pair latency test", cols, 3, "latency_us");
    report_note("Pairs: %d", half);

    char *sbuf = bench_alloc(o->max_size);
    char *rbuf = bench_alloc(o->max_size);
    long total = 0;
    for (size_t size = o->min_size; size <= o->max_size; size = next_size(size)) {
        int iters, skip;
        long errs = 0;
        bench_timer tm = {0};
        iters_for_size(o, size, &iters, &skip);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip)
                timer_start(&tm);
            if (o->validate) {
                timer_pause(&tm);
                pattern_fill(sbuf, size, size, i, rank);
                timer_resume(&tm);
            }
            if (sender) {
                MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 30, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 30, MPI_COMM_WORLD);
            }
            if (o->validate) {
                timer_pause(&tm);
                errs += (long)pattern_check(rbuf, size, size, i, peer);
                timer_resume(&tm);
            }
        }
        double lat = timer_stop(&tm) * 1e6 / (2.0 * iters);
        double sum = 0, mn = 0, mx = 0;
        MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        long gerrs = pair_errors_reduce(errs);
        double vals[3] = {sum / np, mn, mx};
        report_row((long)size, iters, vals, gerrs);
        total += gerrs;
    }
    bench_free(sbuf);
    bench_free(rbuf);
    return total;
}

long run_multi(const bench_case *c, const bench_opts *o)
{
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2 || np % 2)
        bench_die("multi-pair cases need an even number of processes (>= 2)");
    return c->op == 0 ? run_mbw_mr(c, o, rank, np) : run_multi_lat(c, o, rank, np);
}
