/*
 * Single-copy (CMA) reductions outstanding together on one communicator: nonblocking reduces and
 * allreduces of growing sizes, in-place scans and exscans, reduce-scatters, all posted before any
 * is waited for; then user ops on elements larger than half a single-copy chunk. Ranks other than
 * a reduce's root, and ranks scanning in place, keep their slice or input copy in a buffer of the
 * communicator's segment that grows from call to call; growing it for a later call must not move
 * it under an earlier one still being read. Run with the shm_cma
 * algorithms forced (CMakeLists.txt); every element is checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "empi_test.h"

enum { OPS = 4 };
static const int counts[OPS] = {1000, 70000, 3, 300000};

/* element e of rank r's input in round k */
static int input(int k, int r, int e)
{
    return (k + 1) * 7 + r * 3 + e % 101;
}

/* A user op on elements larger than half the chunk a single-copy fold reads at a time (40000
   bytes), in place at the root: it must fall back, not loop on empty chunks. */
enum { BIG_INTS = 10000, BIG_COUNT = 3 };

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len * BIG_INTS; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

static void big_elements(int rank, int size)
{
    MPI_Datatype big;
    MPI_Op op;
    CHECK_MPI(MPI_Type_contiguous(BIG_INTS, MPI_INT, &big));
    CHECK_MPI(MPI_Type_commit(&big));
    CHECK_MPI(MPI_Op_create(add_ints, 1, &op));
    int n = BIG_INTS * BIG_COUNT, root = size - 1;
    int *buf = malloc(sizeof(int) * n);
    CHECK(buf, "out of memory");
    for (int e = 0; e < n; e++)
        buf[e] = input(30, rank, e);
    CHECK_MPI(MPI_Reduce(rank == root ? MPI_IN_PLACE : buf, rank == root ? buf : NULL, BIG_COUNT, big, op, root,
                         MPI_COMM_WORLD));
    for (int e = 0; rank == root && e < n; e++) {
        int all = 0;
        for (int r = 0; r < size; r++)
            all += input(30, r, e);
        CHECK(buf[e] == all, "in-place reduce of 40000-byte elements, int %d: %d, want %d", e, buf[e], all);
    }
    for (int e = 0; e < n; e++)
        buf[e] = input(31, rank, e);
    int *out = malloc(sizeof(int) * n);
    CHECK(out, "out of memory");
    CHECK_MPI(MPI_Allreduce(buf, out, BIG_COUNT, big, op, MPI_COMM_WORLD));
    for (int e = 0; e < n; e++) {
        int all = 0;
        for (int r = 0; r < size; r++)
            all += input(31, r, e);
        CHECK(out[e] == all, "allreduce of 40000-byte elements, int %d: %d, want %d", e, out[e], all);
    }
    free(buf);
    free(out);
    CHECK_MPI(MPI_Op_free(&op));
    CHECK_MPI(MPI_Type_free(&big));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Nonblocking calls use the communicator's shared segment once a blocking one has made it. */
    int one = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size, "allreduce: %d, want %d", sum, size);
    for (int iter = 0; iter < 3; iter++) {
        /* The others post everything, growing their slice buffers, while the root has not yet
           published anything: their first reduce is still waiting when the later ones are built. */
        if (rank == iter % size)
            usleep(20000);
        MPI_Request req[5 * OPS];
        int nreq = 0;
        int *rin[OPS], *rout[OPS], *aout[OPS], *scan[OPS], *exscan[OPS], *rsin[OPS], *rsout[OPS];
        for (int k = 0; k < OPS; k++) {
            int n = counts[k], root = iter % size;
            rin[k] = malloc(sizeof(int) * n);
            rout[k] = malloc(sizeof(int) * n);
            aout[k] = malloc(sizeof(int) * n);
            scan[k] = malloc(sizeof(int) * n);
            exscan[k] = malloc(sizeof(int) * n);
            rsin[k] = malloc(sizeof(int) * n * size);
            rsout[k] = malloc(sizeof(int) * n);
            CHECK(rin[k] && rout[k] && aout[k] && scan[k] && exscan[k] && rsin[k] && rsout[k], "out of memory");
            for (int e = 0; e < n; e++) {
                rin[k][e] = input(k, rank, e);
                scan[k][e] = exscan[k][e] = input(k, rank, e) * 2;
                rout[k][e] = aout[k][e] = -1;
            }
            for (int e = 0; e < n * size; e++)
                rsin[k][e] = input(k, rank, e);
            CHECK_MPI(MPI_Ireduce(rin[k], rout[k], n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req[nreq++]));
            CHECK_MPI(MPI_Iallreduce(rin[k], aout[k], n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[nreq++]));
            CHECK_MPI(MPI_Iscan(MPI_IN_PLACE, scan[k], n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[nreq++]));
            CHECK_MPI(MPI_Iexscan(MPI_IN_PLACE, exscan[k], n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[nreq++]));
            CHECK_MPI(MPI_Ireduce_scatter_block(rsin[k], rsout[k], n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                                &req[nreq++]));
        }
        CHECK_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        for (int k = 0; k < OPS; k++) {
            int n = counts[k], root = iter % size;
            for (int e = 0; e < n; e++) {
                int all = 0, below = 0;
                for (int r = 0; r < size; r++) {
                    all += input(k, r, e);
                    below += r < rank ? input(k, r, e) : 0;
                }
                if (rank == root)
                    CHECK(rout[k][e] == all, "iter %d reduce %d (root %d) element %d: %d, want %d", iter, n, root, e,
                          rout[k][e], all);
                CHECK(aout[k][e] == all, "iter %d allreduce %d element %d: %d, want %d", iter, n, e, aout[k][e], all);
                CHECK(scan[k][e] == 2 * (below + input(k, rank, e)), "iter %d scan %d element %d: %d, want %d", iter,
                      n, e, scan[k][e], 2 * (below + input(k, rank, e)));
                if (rank > 0)
                    CHECK(exscan[k][e] == 2 * below, "iter %d exscan %d element %d: %d, want %d", iter, n, e,
                          exscan[k][e], 2 * below);
                int blk = rank * n + e, want = 0;
                for (int r = 0; r < size; r++)
                    want += input(k, r, blk);
                CHECK(rsout[k][e] == want, "iter %d reduce_scatter_block %d element %d: %d, want %d", iter, n, e,
                      rsout[k][e], want);
            }
            free(rin[k]);
            free(rout[k]);
            free(aout[k]);
            free(scan[k]);
            free(exscan[k]);
            free(rsin[k]);
            free(rsout[k]);
        }
    }
    /* A reduce-scatter whose last block is empty: that rank may pass no receive buffer at all. */
    {
        enum { RN = 5000 };
        int *rc = malloc(sizeof(int) * size), *in = malloc(sizeof(int) * RN * size), *out = malloc(sizeof(int) * RN);
        CHECK(rc && in && out, "out of memory");
        int total = 0;
        for (int r = 0; r < size; r++)
            total += rc[r] = r == size - 1 ? 0 : RN;
        for (int e = 0; e < total; e++)
            in[e] = input(20, rank, e);
        CHECK_MPI(MPI_Reduce_scatter(in, rank == size - 1 ? NULL : out, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int e = 0; e < rc[rank]; e++) {
            int want = 0;
            for (int r = 0; r < size; r++)
                want += input(20, r, rank * RN + e);
            CHECK(out[e] == want, "reduce_scatter with an empty block: element %d: %d, want %d", e, out[e], want);
        }
        free(rc);
        free(in);
        free(out);
    }
    /* Persistent: each start takes the slice buffer afresh, and an in-place scan copies its input
       anew (the first start's copy must not be reused). */
    enum { PN = 50000 };
    int *pin = malloc(sizeof(int) * PN), *pout = malloc(sizeof(int) * PN), *pscan = malloc(sizeof(int) * PN);
    CHECK(pin && pout && pscan, "out of memory");
    MPI_Request preq[2];
    CHECK_MPI(MPI_Reduce_init(pin, pout, PN, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &preq[0]));
    CHECK_MPI(MPI_Scan_init(MPI_IN_PLACE, pscan, PN, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &preq[1]));
    for (int start = 0; start < 3; start++) {
        for (int e = 0; e < PN; e++)
            pin[e] = pscan[e] = input(start + 10, rank, e);
        CHECK_MPI(MPI_Startall(2, preq));
        CHECK_MPI(MPI_Waitall(2, preq, MPI_STATUSES_IGNORE));
        for (int e = 0; e < PN; e++) {
            int all = 0, upto = 0;
            for (int r = 0; r < size; r++) {
                all += input(start + 10, r, e);
                upto += r <= rank ? input(start + 10, r, e) : 0;
            }
            if (rank == size - 1)
                CHECK(pout[e] == all, "start %d reduce_init element %d: %d, want %d", start, e, pout[e], all);
            CHECK(pscan[e] == upto, "start %d scan_init element %d: %d, want %d", start, e, pscan[e], upto);
        }
    }
    CHECK_MPI(MPI_Request_free(&preq[0]));
    CHECK_MPI(MPI_Request_free(&preq[1]));
    free(pin);
    free(pout);
    free(pscan);
    big_elements(rank, size);
    if (rank == 0)
        printf("coll_cma_outstanding: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
