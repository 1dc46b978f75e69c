/* Bandwidth between ranks 0 and 1: a window of nonblocking sends, completed
 * together, then a small acknowledgement so the sender cannot run ahead.
 * bibw: both ranks send and receive a window at the same time. */
#include "bench.h"

#include <stdlib.h>

/* Keep at most this many bytes in flight per direction: every message of a
 * window needs its own receive buffer (overlapping receives are erroneous). */
#define BW_INFLIGHT_CAP ((size_t)64 << 20)

int bw_window(const bench_opts *o, size_t size)
{
    size_t w = (size_t)o->window;
    if (size > 0 && w * size > BW_INFLIGHT_CAP)
        w = BW_INFLIGHT_CAP / size ? BW_INFLIGHT_CAP / size : 1;
    return (int)w;
}

long run_bw(const bench_case *c, const bench_opts *o)
{
    int rank, np, bidir = c->op == 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2)
        bench_die("bandwidth needs at least 2 processes");

    static const report_col cols[] = {{"bandwidth_MBps", "Bandwidth (MB/s)", 0}};
    report_begin(o, c, bidir ? "bidirectional bandwidth test" : "bandwidth test", cols, 1,
                 "bandwidth_MBps");
    report_note("Window size: %d (fewer for large sizes: <= 64 MiB in flight)", o->window);

    size_t slot = o->max_size ? o->max_size : 1;
    size_t bytes = (size_t)o->window * slot;
    if (bytes > BW_INFLIGHT_CAP + slot)
        bytes = BW_INFLIGHT_CAP + slot;
    char *sbuf = bench_alloc(bytes);
    char *rbuf = bench_alloc(bytes);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)o->window);
    if (!reqs)
        bench_die("out of memory");
    int peer = rank == 0 ? 1 : 0;
    int sends = bidir || rank == 0, recvs = bidir || rank == 1;
    long total = 0;

    for (size_t size = o->min_size; size <= o->max_size; size = next_size(size)) {
        int iters, skip, win = bw_window(o, size);
        long errs = 0;
        bench_timer tm = {0};
        iters_for_size(o, size, &iters, &skip);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; rank < 2 && i < skip + iters; i++) {
            if (i == skip)
                timer_start(&tm);
            if (o->validate && sends) {
                timer_pause(&tm);
                for (int w = 0; w < win; w++)
                    pattern_fill(sbuf + (size_t)w * size, size, size, i, rank + 2 * w);
                timer_resume(&tm);
            }
            int n = 0;
            if (recvs)
                for (int w = 0; w < win; w++)
                    MPI_Irecv(rbuf + (size_t)w * size, (int)size, MPI_CHAR, peer, 10,
                              MPI_COMM_WORLD, &reqs[n++]);
            if (sends)
                for (int w = 0; w < win; w++)
                    MPI_Isend(sbuf + (size_t)w * size, (int)size, MPI_CHAR, peer, 10,
                              MPI_COMM_WORLD, &reqs[n++]);
            MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
            if (!bidir) {
                /* The ack closes the window: the sender's clock covers delivery. */
                char ack = 0;
                if (rank == 0)
                    MPI_Recv(&ack, 1, MPI_CHAR, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else
                    MPI_Send(&ack, 1, MPI_CHAR, peer, 11, MPI_COMM_WORLD);
            }
            if (o->validate && recvs) {
                timer_pause(&tm);
                for (int w = 0; w < win; w++)
                    errs += (long)pattern_check(rbuf + (size_t)w * size, size, size, i, peer + 2 * w);
                timer_resume(&tm);
            }
        }
        double t = rank < 2 ? timer_stop(&tm) : 0.0;
        long gerrs = 0;
        MPI_Reduce(&errs, &gerrs, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        double bytes_moved = (double)size * win * iters * (bidir ? 2.0 : 1.0);
        double bw = t > 0 ? bytes_moved / t / 1e6 : 0.0;
        report_row((long)size, iters, &bw, gerrs);
        total += gerrs;
    }
    free(reqs);
    bench_free(sbuf);
    bench_free(rbuf);
    return total;
}
