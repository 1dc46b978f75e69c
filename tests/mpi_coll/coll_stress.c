/*
 * Thousands of back-to-back collectives on several communicators, alternating kinds, roots and
 * sizes, every result checked: no cross-talk between calls or communicators.
 */
#include <stdio.h>
#include <stdlib.h>

#include "empi_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comms[3];
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &comms[1]));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &comms[2]));
    int iters = argc > 1 ? atoi(argv[1]) : 3000;
    int buf[300], out[300];
    for (int i = 0; i < iters; i++) {
        MPI_Comm c = comms[i % 3];
        int r, p;
        MPI_Comm_rank(c, &r);
        MPI_Comm_size(c, &p);
        int n = 1 + (i * 37) % 300;
        switch (i % 5) {
        case 0:
            for (int e = 0; e < n; e++)
                buf[e] = i + r + e;
            CHECK_MPI(MPI_Allreduce(buf, out, n, MPI_INT, MPI_SUM, c));
            for (int e = 0; e < n; e++)
                CHECK(out[e] == p * (i + e) + p * (p - 1) / 2, "iter %d allreduce", i);
            break;
        case 1: {
            int root = i % p;
            for (int e = 0; e < n; e++)
                buf[e] = r == root ? i * 3 + e : -1;
            CHECK_MPI(MPI_Bcast(buf, n, MPI_INT, root, c));
            for (int e = 0; e < n; e++)
                CHECK(buf[e] == i * 3 + e, "iter %d bcast", i);
            break;
        }
        case 2:
            CHECK_MPI(MPI_Barrier(c));
            break;
        case 3: {
            int root = (i / 5) % p, v = r + i, s = -1;
            CHECK_MPI(MPI_Reduce(&v, &s, 1, MPI_INT, MPI_MAX, root, c));
            if (r == root)
                CHECK(s == p - 1 + i, "iter %d reduce %d", i, s);
            break;
        }
        case 4: {
            int v = r * 2 + i, all[64];
            CHECK_MPI(MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, c));
            for (int j = 0; j < p && j < 64; j++)
                CHECK(all[j] == j * 2 + i, "iter %d allgather", i);
            break;
        }
        }
    }
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Comm_free(&comms[i]));
    if (rank == 0)
        printf("coll_stress: %d ranks, %d collectives OK\n", size, iters);
    MPI_Finalize();
    return 0;
}
