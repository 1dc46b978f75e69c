/* empi-bench entry point: the case table and the dispatch to each case. */
#include "bench.h"
#include "coll_ops.h"
#include "dtype_layout.h"
#include "rma_ops.h"

#include <string.h>
#include <time.h>

double bench_init_seconds;
double bench_process_start;

#define COLL(n, o, d) {n, KIND_COLL, run_coll, o, d}, {"i" n, KIND_NBC, run_nbc, o, "nonblocking " d " with overlap"}

static const bench_case cases[] = {
    {"latency", KIND_PT2PT, run_latency, 0, "ping-pong latency (one-way = half round trip)"},
    {"latency_test", KIND_PT2PT, run_latency, 1,
     "ping-pong latency, rank 0 waiting by an MPI_Test loop on an MPI_Irecv (the peer blocks in MPI_Recv)"},
    {"bw", KIND_PT2PT, run_bw, 0, "unidirectional bandwidth (window of Isend, then ack)"},
    {"bibw", KIND_PT2PT, run_bw, 1, "bidirectional bandwidth"},
    {"vector_bw", KIND_PT2PT, run_bw, 2, "bandwidth of a vector type on both sides (256 B blocks, stride 512)"},
    {"mbw_mr", KIND_PT2PT, run_multi, 0, "multi-pair bandwidth and message rate"},
    {"multi_lat", KIND_PT2PT, run_multi, 1, "multi-pair latency"},
    COLL("barrier", OP_BARRIER, "barrier latency"),
    COLL("bcast", OP_BCAST, "broadcast latency"),
    COLL("reduce", OP_REDUCE, "reduce latency (MPI_INT, MPI_SUM)"),
    COLL("allreduce", OP_ALLREDUCE, "allreduce latency (MPI_INT, MPI_SUM)"),
    COLL("gather", OP_GATHER, "gather latency"),
    COLL("gatherv", OP_GATHERV, "gatherv latency"),
    COLL("scatter", OP_SCATTER, "scatter latency"),
    COLL("scatterv", OP_SCATTERV, "scatterv latency"),
    COLL("allgather", OP_ALLGATHER, "allgather latency"),
    COLL("allgatherv", OP_ALLGATHERV, "allgatherv latency"),
    COLL("alltoall", OP_ALLTOALL, "all-to-all latency"),
    COLL("alltoallv", OP_ALLTOALLV, "all-to-all-v latency"),
    COLL("alltoallw", OP_ALLTOALLW, "all-to-all-w latency"),
    COLL("reduce_scatter", OP_REDUCE_SCATTER, "reduce-scatter latency"),
    COLL("reduce_scatter_block", OP_REDUCE_SCATTER_BLOCK, "reduce-scatter-block latency"),
    COLL("scan", OP_SCAN, "inclusive scan latency"),
    COLL("exscan", OP_EXSCAN, "exclusive scan latency"),
    {"put_latency", KIND_RMA, run_rma, RMA_PUT_LAT, "MPI_Put latency (-s fence|lock|flush|pscw)"},
    {"get_latency", KIND_RMA, run_rma, RMA_GET_LAT, "MPI_Get latency"},
    {"put_bw", KIND_RMA, run_rma, RMA_PUT_BW, "MPI_Put bandwidth (window of puts per sync)"},
    {"get_bw", KIND_RMA, run_rma, RMA_GET_BW, "MPI_Get bandwidth"},
    {"acc_latency", KIND_RMA, run_rma, RMA_ACC_LAT, "MPI_Accumulate latency (MPI_INT, MPI_SUM)"},
    {"pack_vec8", KIND_DATATYPE, run_pack, 8, "MPI_Pack/MPI_Unpack vs memcpy: vector, 8 B blocks, stride 16"},
    {"pack_vec64", KIND_DATATYPE, run_pack, 64, "pack/unpack of a vector, 64 B blocks, stride 128"},
    {"pack_vec256", KIND_DATATYPE, run_pack, 256, "pack/unpack of a vector, 256 B blocks, stride 512"},
    {"pack_vec1024", KIND_DATATYPE, run_pack, 1024, "pack/unpack of a vector, 1 KiB blocks, stride 2 KiB"},
    {"pack_indexed", KIND_DATATYPE, run_pack, DT_INDEXED, "pack/unpack of an indexed type (irregular, fixed seed)"},
    {"init", KIND_STARTUP, run_startup, 0, "MPI_Init time"},
    {"hello", KIND_STARTUP, run_startup, 1, "hello-world run time (process start to finalize)"},
};

#define NCASES ((int)(sizeof cases / sizeof cases[0]))

const bench_case *case_find(const char *name)
{
    for (int i = 0; i < NCASES; i++)
        if (!strcmp(cases[i].name, name))
            return &cases[i];
    return NULL;
}

void case_list(FILE *f)
{
    for (int i = 0; i < NCASES; i++)
        fprintf(f, "%-24s %s\n", cases[i].name, cases[i].desc);
}

/* Wall clock before MPI exists: C11 timespec_get, no POSIX needed. */
static double wall_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_process_start = wall_now();
    MPI_Init(&argc, &argv);
    bench_init_seconds = wall_now() - bench_process_start;

    int rc = opts_parse(argc, argv, &o);
    if (rc != 0) {
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }
    const bench_case *c = case_find(o.case_name);
    if (!c) {
        if (bench_rank() == 0)
            fprintf(stderr, "empi-bench: unknown case '%s' (try --list)\n", o.case_name);
        MPI_Finalize();
        return 2;
    }
    opts_apply_defaults(&o, c);
    long errors = c->fn(c, &o);
    rc = report_end(errors);
    MPI_Finalize();
    return rc;
}
