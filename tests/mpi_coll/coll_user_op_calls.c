/*
 * Reductions with user-defined ops over many shared-memory pieces: the shared-memory algorithms
 * call the op p-1 times per piece, so a user op (whose cost per call may be anything) on a message
 * of more than EMPI_COLL_USER_OP_PIECES pieces must take an algorithm that calls it a bounded
 * number of times. Run with 64 KiB slots (EMPI_COLL_SHM_BUFFER=1): the 1 MiB vectors here are 16
 * pieces (reduce_scatter_block's blocks are), which the shared-memory algorithms would fold in
 * 16 (p-1) calls per rank.
 * Allreduce, reduce, reduce_scatter_block and reduce_scatter, blocking and nonblocking, with a
 * commutative sum and a non-commutative composition of affine maps; every element is checked
 * against a serial fold in rank order, and every rank counts its op calls.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static long calls;

static void sum_u64(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
    calls++;
}

/* Element (a, b) is the map x -> a x + b; in holds the lower ranks' maps, applied first. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const uint64_t *u = in;
    uint64_t *v = inout;
    for (int i = 0; i < *len; i++) {
        uint64_t a = v[2 * i] * u[2 * i], b = v[2 * i] * u[2 * i + 1] + v[2 * i + 1];
        v[2 * i] = a;
        v[2 * i + 1] = b;
    }
    calls++;
}

static uint64_t value(int rank, size_t i)
{
    return (uint64_t)rank * 0x9E3779B97F4A7C15ull + i * 2654435761ull + 1;
}

enum { ALLREDUCE, REDUCE, RSB, RS, NCOLLS };
static const char *const coll_name[NCOLLS] = {"allreduce", "reduce", "reduce_scatter_block", "reduce_scatter"};

/* Element i (of `width` words) of the fold over ranks 0..p-1. */
static void reference(int commutative, int p, size_t i, uint64_t *out)
{
    if (commutative) {
        uint64_t s = 0;
        for (int r = 0; r < p; r++)
            s += value(r, i);
        out[0] = s;
        return;
    }
    uint64_t a = 1, b = 0;
    for (int r = 0; r < p; r++) {   /* apply rank r's map after the lower ranks' */
        uint64_t ra = value(r, 2 * i), rb = value(r, 2 * i + 1);
        b = ra * b + rb;
        a = ra * a;
    }
    out[0] = a;
    out[1] = b;
}

static void run(int coll, int commutative, int nonblocking)
{
    int me = empi_rank(), p = empi_size();
    int width = commutative ? 1 : 2;
    /* 1 MiB as each collective measures its message: reduce_scatter_block by its block, the
       others by the whole vector */
    size_t total = (1u << 20) / (8u * (size_t)width);
    if (coll == RSB)
        total *= (size_t)p;
    total -= total % (size_t)p;
    size_t block = total / (size_t)p;
    MPI_Datatype dt;
    MPI_Op op;
    CHECK_MPI(MPI_Type_contiguous(width, MPI_UINT64_T, &dt));
    CHECK_MPI(MPI_Type_commit(&dt));
    CHECK_MPI(MPI_Op_create(commutative ? sum_u64 : compose, commutative, &op));
    uint64_t *s = malloc(total * (size_t)width * 8), *r = calloc(total * (size_t)width, 8);
    CHECK(s && r, "out of memory");
    for (size_t i = 0; i < total * (size_t)width; i++)
        s[i] = value(me, i);
    int *counts = malloc((size_t)p * sizeof *counts);
    for (int k = 0; k < p; k++)
        counts[k] = (int)block;
    MPI_Request rq = MPI_REQUEST_NULL;
    calls = 0;
    int n = (int)total;
    switch (coll) {
    case ALLREDUCE:
        CHECK_MPI(nonblocking ? MPI_Iallreduce(s, r, n, dt, op, MPI_COMM_WORLD, &rq)
                              : MPI_Allreduce(s, r, n, dt, op, MPI_COMM_WORLD));
        break;
    case REDUCE:
        CHECK_MPI(nonblocking ? MPI_Ireduce(s, r, n, dt, op, p - 1, MPI_COMM_WORLD, &rq)
                              : MPI_Reduce(s, r, n, dt, op, p - 1, MPI_COMM_WORLD));
        break;
    case RSB:
        CHECK_MPI(nonblocking ? MPI_Ireduce_scatter_block(s, r, (int)block, dt, op, MPI_COMM_WORLD, &rq)
                              : MPI_Reduce_scatter_block(s, r, (int)block, dt, op, MPI_COMM_WORLD));
        break;
    default:
        CHECK_MPI(nonblocking ? MPI_Ireduce_scatter(s, r, counts, dt, op, MPI_COMM_WORLD, &rq)
                              : MPI_Reduce_scatter(s, r, counts, dt, op, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    /* log2 p to p-1 calls for the point-to-point algorithms (a few more where p is not a power of
       two); the shared-memory ones would make 16 (p-1) */
    CHECK(calls <= 2L * p, "%s (%s, %s): %ld calls of the user op on a 16-piece message at %d ranks",
          coll_name[coll], commutative ? "commutative" : "non-commutative", nonblocking ? "nonblocking" : "blocking",
          calls, p);
    int whole = coll == ALLREDUCE || (coll == REDUCE && me == p - 1);
    int scattered = coll == RSB || coll == RS;
    if (whole || scattered) {
        size_t first = scattered ? (size_t)me * block : 0, n_out = scattered ? block : total;
        for (size_t i = 0; i < n_out; i++) {
            uint64_t want[2];
            reference(commutative, p, first + i, want);
            for (int w = 0; w < width; w++)
                CHECK(r[i * (size_t)width + (size_t)w] == want[w],
                      "%s (%s): element %zu word %d is %llu, want %llu", coll_name[coll],
                      commutative ? "commutative" : "non-commutative", first + i, w,
                      (unsigned long long)r[i * (size_t)width + (size_t)w], (unsigned long long)want[w]);
        }
    }
    free(counts);
    free(s);
    free(r);
    CHECK_MPI(MPI_Op_free(&op));
    CHECK_MPI(MPI_Type_free(&dt));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int nonblocking = 0; nonblocking < 2; nonblocking++)
        for (int coll = 0; coll < NCOLLS; coll++)
            for (int commutative = 1; commutative >= 0; commutative--)
                run(coll, commutative, nonblocking);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
