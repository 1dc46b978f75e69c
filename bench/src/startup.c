/* Startup cases. "init" reports how long MPI_Init took on each rank (main
 * times it before anything else runs). "hello" is the classic hello world,
 * timed from process start to just before MPI_Finalize; the compare tool
 * also times the whole launch from outside, which includes mpiexec. */
#include "bench.h"

#include <time.h>

long run_startup(const bench_case *c, const bench_opts *o)
{
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    static const report_col init_cols[] = {{"time_us", "Avg MPI_Init (us)", 0},
                                           {"min_time_us", "Min (us)", 0},
                                           {"max_time_us", "Max (us)", 0}};
    static const report_col hello_cols[] = {{"time_us", "Avg run time (us)", 0},
                                            {"min_time_us", "Min (us)", 0},
                                            {"max_time_us", "Max (us)", 0}};
    double mine;
    if (c->op == 0) {
        report_begin(o, c, "MPI_Init time test", init_cols, 3, "time_us");
        mine = bench_init_seconds * 1e6;
    } else {
        report_begin(o, c, "hello world test", hello_cols, 3, "time_us");
        char name[MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_Get_processor_name(name, &len);
        /* Ranks print in turn so the greeting lines do not interleave. */
        for (int r = 0; r < np; r++) {
            if (r == rank) {
                printf("# Hello from rank %d of %d on %s\n", rank, np, name);
                fflush(stdout);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        struct timespec ts;
        timespec_get(&ts, TIME_UTC);
        double now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
        mine = (now - bench_process_start) * 1e6;
    }
    double sum = 0, mn = 0, mx = 0;
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double vals[3] = {sum / np, mn, mx};
    report_row(-1, 1, vals, 0);
    return 0;
}
