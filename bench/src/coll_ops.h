/* Collective operations shared by the blocking (coll.c) and nonblocking
 * (coll_nb.c) drivers: buffer setup, invocation, data fill and check. */
#ifndef EMPI_BENCH_COLL_OPS_H
#define EMPI_BENCH_COLL_OPS_H

#include "bench.h"

enum coll_op {
    OP_BARRIER, OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_GATHER, OP_GATHERV,
    OP_SCATTER, OP_SCATTERV, OP_ALLGATHER, OP_ALLGATHERV, OP_ALLTOALL,
    OP_ALLTOALLV, OP_ALLTOALLW, OP_REDUCE_SCATTER, OP_REDUCE_SCATTER_BLOCK,
    OP_SCAN, OP_EXSCAN
};

typedef struct {
    enum coll_op op;
    MPI_Comm comm;
    int rank, np, root;
    size_t max_size;
    void *sbuf, *rbuf;
    int *scounts, *sdispls, *rcounts, *rdispls; /* in elements */
    int *wsdispls, *wrdispls;                   /* alltoallw: bytes */
    MPI_Datatype *wtypes;
    /* Current message: bytes per rank-block and derived element count. */
    size_t size;
    int count;
} coll_ctx;

int coll_is_reduction(enum coll_op op);
int coll_has_size(enum coll_op op);
void coll_setup(coll_ctx *x, enum coll_op op, size_t max_size);
void coll_teardown(coll_ctx *x);
void coll_set_size(coll_ctx *x, size_t size);
void coll_fill(coll_ctx *x, int iter);
long coll_check(coll_ctx *x, int iter);
void coll_run(coll_ctx *x);
void coll_start(coll_ctx *x, MPI_Request *req);

/* Shared by coll.c and coll_nb.c. */
size_t coll_first_size(const coll_ctx *x, const bench_opts *o);
void coll_stats(double mine, int np, double out[3]); /* avg, min, max on rank 0 */
long coll_errors(long mine);
/* Around one timed call: with -c, fill the buffers before it and check them after it, outside the
 * timer; unless -b, the untimed barrier after it. Returns the wrong bytes found. */
void coll_before_call(coll_ctx *x, const bench_opts *o, bench_timer *tm, int iter);
long coll_after_call(coll_ctx *x, const bench_opts *o, bench_timer *tm, int iter);

#endif
