/* Collective operations: one place that knows each operation's buffers,
 * how to call it (blocking and nonblocking) and what every rank must receive.
 * Reductions use MPI_INT/MPI_SUM so results can be checked exactly; the other
 * operations move bytes, and rank-blocks carry a pattern tied to their source. */
#include "coll_ops.h"

#include <stdlib.h>
#include <string.h>

int coll_is_reduction(enum coll_op op)
{
    return op == OP_REDUCE || op == OP_ALLREDUCE || op == OP_REDUCE_SCATTER ||
           op == OP_REDUCE_SCATTER_BLOCK || op == OP_SCAN || op == OP_EXSCAN;
}

int coll_has_size(enum coll_op op)
{
    return op != OP_BARRIER;
}

/* Does this op need np blocks in the send / receive buffer? */
static int send_blocks(enum coll_op op)
{
    return op == OP_SCATTER || op == OP_SCATTERV || op == OP_ALLTOALL || op == OP_ALLTOALLV ||
           op == OP_ALLTOALLW || op == OP_REDUCE_SCATTER || op == OP_REDUCE_SCATTER_BLOCK;
}

static int recv_blocks(enum coll_op op)
{
    return op == OP_GATHER || op == OP_GATHERV || op == OP_ALLGATHER || op == OP_ALLGATHERV ||
           op == OP_ALLTOALL || op == OP_ALLTOALLV || op == OP_ALLTOALLW;
}

static int *ints(int n)
{
    int *p = calloc((size_t)n, sizeof(int));
    if (!p)
        bench_die("out of memory");
    return p;
}

void coll_setup(coll_ctx *x, enum coll_op op, size_t max_size)
{
    memset(x, 0, sizeof *x);
    x->op = op;
    x->comm = MPI_COMM_WORLD;
    MPI_Comm_rank(x->comm, &x->rank);
    MPI_Comm_size(x->comm, &x->np);
    x->root = 0;
    x->max_size = max_size;
    size_t np = (size_t)x->np;
    x->sbuf = bench_alloc(max_size * (send_blocks(op) ? np : 1));
    x->rbuf = bench_alloc(max_size * (recv_blocks(op) ? np : 1));
    x->scounts = ints(x->np);
    x->sdispls = ints(x->np);
    x->rcounts = ints(x->np);
    x->rdispls = ints(x->np);
    x->wsdispls = ints(x->np);
    x->wrdispls = ints(x->np);
    x->wtypes = malloc(sizeof(MPI_Datatype) * np);
    if (!x->wtypes)
        bench_die("out of memory");
    for (int i = 0; i < x->np; i++)
        x->wtypes[i] = MPI_BYTE;
}

void coll_teardown(coll_ctx *x)
{
    bench_free(x->sbuf);
    bench_free(x->rbuf);
    free(x->scounts);
    free(x->sdispls);
    free(x->rcounts);
    free(x->rdispls);
    free(x->wsdispls);
    free(x->wrdispls);
    free(x->wtypes);
}

void coll_set_size(coll_ctx *x, size_t size)
{
    x->count = coll_is_reduction(x->op) ? (int)(size / sizeof(int32_t)) : (int)size;
    x->size = coll_is_reduction(x->op) ? (size_t)x->count * sizeof(int32_t) : size;
    /* The v/w forms use equal blocks, as the established suites do, so
     * their numbers are directly comparable with the regular forms. */
    for (int i = 0; i < x->np; i++) {
        x->scounts[i] = x->rcounts[i] = x->count;
        x->sdispls[i] = x->rdispls[i] = i * x->count;
        x->wsdispls[i] = x->wrdispls[i] = i * x->count;
    }
}

static char *blk(void *base, size_t size, int i)
{
    return (char *)base + size * (size_t)i;
}

void coll_fill(coll_ctx *x, int iter)
{
    size_t sz = x->size;
    int32_t *si = x->sbuf;
    switch (x->op) {
    case OP_BARRIER:
        break;
    case OP_BCAST:
        if (x->rank == x->root)
            pattern_fill(x->sbuf, sz, sz, iter, x->root);
        else
            memset(x->sbuf, 0, sz);
        break;
    case OP_REDUCE: case OP_ALLREDUCE: case OP_SCAN: case OP_EXSCAN:
        for (int k = 0; k < x->count; k++)
            si[k] = pattern_int((size_t)k, iter, x->rank);
        break;
    case OP_REDUCE_SCATTER: case OP_REDUCE_SCATTER_BLOCK:
        for (int k = 0; k < x->count * x->np; k++)
            si[k] = pattern_int((size_t)k, iter, x->rank);
        break;
    case OP_GATHER: case OP_GATHERV: case OP_ALLGATHER: case OP_ALLGATHERV:
        pattern_fill(x->sbuf, sz, sz, iter, x->rank);
        break;
    case OP_SCATTER: case OP_SCATTERV:
        if (x->rank == x->root)
            for (int j = 0; j < x->np; j++)
                pattern_fill(blk(x->sbuf, sz, j), sz, sz, iter, j);
        break;
    case OP_ALLTOALL: case OP_ALLTOALLV: case OP_ALLTOALLW:
        for (int j = 0; j < x->np; j++)
            pattern_fill(blk(x->sbuf, sz, j), sz, sz, iter, x->rank * x->np + j);
        break;
    }
}

/* Expected element k of a sum over ranks [lo, hi). */
static int32_t sum_ranks(size_t k, int iter, int lo, int hi)
{
    int32_t s = 0;
    for (int r = lo; r < hi; r++)
        s += pattern_int(k, iter, r);
    return s;
}

static long check_sum(const int32_t *buf, int count, size_t base, int iter, int lo, int hi)
{
    long bad = 0;
    for (int k = 0; k < count; k++)
        bad += buf[k] != sum_ranks(base + (size_t)k, iter, lo, hi);
    return bad;
}

long coll_check(coll_ctx *x, int iter)
{
    size_t sz = x->size;
    const int32_t *ri = x->rbuf;
    long bad = 0;
    switch (x->op) {
    case OP_BARRIER:
        break;
    case OP_BCAST:
        if (x->rank != x->root)
            bad = (long)pattern_check(x->sbuf, sz, sz, iter, x->root);
        break;
    case OP_REDUCE:
        if (x->rank == x->root)
            bad = check_sum(ri, x->count, 0, iter, 0, x->np);
        break;
    case OP_ALLREDUCE:
        bad = check_sum(ri, x->count, 0, iter, 0, x->np);
        break;
    case OP_SCAN:
        bad = check_sum(ri, x->count, 0, iter, 0, x->rank + 1);
        break;
    case OP_EXSCAN: /* rank 0's result is undefined by the standard */
        if (x->rank > 0)
            bad = check_sum(ri, x->count, 0, iter, 0, x->rank);
        break;
    case OP_REDUCE_SCATTER: case OP_REDUCE_SCATTER_BLOCK:
        bad = check_sum(ri, x->count, (size_t)x->rank * (size_t)x->count, iter, 0, x->np);
        break;
    case OP_GATHER: case OP_GATHERV:
        if (x->rank == x->root)
            for (int j = 0; j < x->np; j++)
                bad += (long)pattern_check(blk(x->rbuf, sz, j), sz, sz, iter, j);
        break;
    case OP_ALLGATHER: case OP_ALLGATHERV:
        for (int j = 0; j < x->np; j++)
            bad += (long)pattern_check(blk(x->rbuf, sz, j), sz, sz, iter, j);
        break;
    case OP_SCATTER: case OP_SCATTERV:
        bad = (long)pattern_check(x->rbuf, sz, sz, iter, x->rank);
        break;
    case OP_ALLTOALL: case OP_ALLTOALLV: case OP_ALLTOALLW:
        for (int j = 0; j < x->np; j++)
            bad += (long)pattern_check(blk(x->rbuf, sz, j), sz, sz, iter, j * x->np + x->rank);
        break;
    }
    return bad;
}

void coll_run(coll_ctx *x)
{
    int n = x->count, r = x->root;
    MPI_Comm c = x->comm;
    void *s = x->sbuf, *d = x->rbuf;
    switch (x->op) {
    case OP_BARRIER: MPI_Barrier(c); break;
    case OP_BCAST: MPI_Bcast(s, n, MPI_BYTE, r, c); break;
    case OP_REDUCE: MPI_Reduce(s, d, n, MPI_INT, MPI_SUM, r, c); break;
    case OP_ALLREDUCE: MPI_Allreduce(s, d, n, MPI_INT, MPI_SUM, c); break;
    case OP_GATHER: MPI_Gather(s, n, MPI_BYTE, d, n, MPI_BYTE, r, c); break;
    case OP_GATHERV: MPI_Gatherv(s, n, MPI_BYTE, d, x->rcounts, x->rdispls, MPI_BYTE, r, c); break;
    case OP_SCATTER: MPI_Scatter(s, n, MPI_BYTE, d, n, MPI_BYTE, r, c); break;
    case OP_SCATTERV: MPI_Scatterv(s, x->scounts, x->sdispls, MPI_BYTE, d, n, MPI_BYTE, r, c); break;
    case OP_ALLGATHER: MPI_Allgather(s, n, MPI_BYTE, d, n, MPI_BYTE, c); break;
    case OP_ALLGATHERV: MPI_Allgatherv(s, n, MPI_BYTE, d, x->rcounts, x->rdispls, MPI_BYTE, c); break;
    case OP_ALLTOALL: MPI_Alltoall(s, n, MPI_BYTE, d, n, MPI_BYTE, c); break;
    case OP_ALLTOALLV:
        MPI_Alltoallv(s, x->scounts, x->sdispls, MPI_BYTE, d, x->rcounts, x->rdispls, MPI_BYTE, c);
        break;
    case OP_ALLTOALLW:
        MPI_Alltoallw(s, x->scounts, x->wsdispls, x->wtypes, d, x->rcounts, x->wrdispls, x->wtypes, c);
        break;
    case OP_REDUCE_SCATTER: MPI_Reduce_scatter(s, d, x->rcounts, MPI_INT, MPI_SUM, c); break;
    case OP_REDUCE_SCATTER_BLOCK: MPI_Reduce_scatter_block(s, d, n, MPI_INT, MPI_SUM, c); break;
    case OP_SCAN: MPI_Scan(s, d, n, MPI_INT, MPI_SUM, c); break;
    case OP_EXSCAN: MPI_Exscan(s, d, n, MPI_INT, MPI_SUM, c); break;
    }
}

void coll_start(coll_ctx *x, MPI_Request *q)
{
    int n = x->count, r = x->root;
    MPI_Comm c = x->comm;
    void *s = x->sbuf, *d = x->rbuf;
    switch (x->op) {
    case OP_BARRIER: MPI_Ibarrier(c, q); break;
    case OP_BCAST: MPI_Ibcast(s, n, MPI_BYTE, r, c, q); break;
    case OP_REDUCE: MPI_Ireduce(s, d, n, MPI_INT, MPI_SUM, r, c, q); break;
    case OP_ALLREDUCE: MPI_Iallreduce(s, d, n, MPI_INT, MPI_SUM, c, q); break;
    case OP_GATHER: MPI_Igather(s, n, MPI_BYTE, d, n, MPI_BYTE, r, c, q); break;
    case OP_GATHERV: MPI_Igatherv(s, n, MPI_BYTE, d, x->rcounts, x->rdispls, MPI_BYTE, r, c, q); break;
    case OP_SCATTER: MPI_Iscatter(s, n, MPI_BYTE, d, n, MPI_BYTE, r, c, q); break;
    case OP_SCATTERV: MPI_Iscatterv(s, x->scounts, x->sdispls, MPI_BYTE, d, n, MPI_BYTE, r, c, q); break;
    case OP_ALLGATHER: MPI_Iallgather(s, n, MPI_BYTE, d, n, MPI_BYTE, c, q); break;
    case OP_ALLGATHERV: MPI_Iallgatherv(s, n, MPI_BYTE, d, x->rcounts, x->rdispls, MPI_BYTE, c, q); break;
    case OP_ALLTOALL: MPI_Ialltoall(s, n, MPI_BYTE, d, n, MPI_BYTE, c, q); break;
    case OP_ALLTOALLV:
        MPI_Ialltoallv(s, x->scounts, x->sdispls, MPI_BYTE, d, x->rcounts, x->rdispls, MPI_BYTE, c, q);
        break;
    case OP_ALLTOALLW:
        MPI_Ialltoallw(s, x->scounts, x->wsdispls, x->wtypes, d, x->rcounts, x->wrdispls, x->wtypes, c, q);
        break;
    case OP_REDUCE_SCATTER: MPI_Ireduce_scatter(s, d, x->rcounts, MPI_INT, MPI_SUM, c, q); break;
    case OP_REDUCE_SCATTER_BLOCK: MPI_Ireduce_scatter_block(s, d, n, MPI_INT, MPI_SUM, c, q); break;
    case OP_SCAN: MPI_Iscan(s, d, n, MPI_INT, MPI_SUM, c, q); break;
    case OP_EXSCAN: MPI_Iexscan(s, d, n, MPI_INT, MPI_SUM, c, q); break;
    }
}
