/* Ping-pong latency between ranks 0 and 1; one-way latency is half the
 * round trip. Other ranks, if any, only wait at the final barrier.
 * latency_test: rank 0 receives with MPI_Irecv and spins on MPI_Test, as
 * programs that poll while they compute do; rank 1 blocks in MPI_Recv. */
#include "bench.h"

long run_latency(const bench_case *c, const bench_opts *o)
{
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2)
        bench_die("latency needs at least 2 processes");

    static const report_col cols[] = {{"latency_us", "Latency (us)", 0}};
    report_begin(o, c, "latency test", cols, 1, "latency_us");

    char *sbuf = bench_alloc(o->max_size);
    char *rbuf = bench_alloc(o->max_size);
    int peer = rank == 0 ? 1 : 0;
    long total = 0;

    for (size_t size = o->min_size; size <= o->max_size; size = next_size(size)) {
        int iters, skip;
        long errs = 0;
        bench_timer tm = {0};
        iters_for_size(o, size, &iters, &skip);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; rank < 2 && i < skip + iters; i++) {
            if (i == skip)
                timer_start(&tm);
            if (o->validate) {
                timer_pause(&tm);
                pattern_fill(sbuf, size, size, i, rank);
                timer_resume(&tm);
            }
            if (rank == 0 && c->op == 1) {
                MPI_Request req;
                int done = 0;
                MPI_Irecv(rbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &req);
                MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                while (!done)
                    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            } else if (rank == 0) {
                MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            }
            if (o->validate) {
                timer_pause(&tm);
                errs += (long)pattern_check(rbuf, size, size, i, peer);
                timer_resume(&tm);
            }
        }
        double t = rank < 2 ? timer_stop(&tm) : 0.0;
        long gerrs = 0;
        MPI_Reduce(&errs, &gerrs, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        double lat = t * 1e6 / (2.0 * iters);
        report_row((long)size, iters, &lat, gerrs);
        total += gerrs;
    }
    bench_free(sbuf);
    bench_free(rbuf);
    return total;
}
