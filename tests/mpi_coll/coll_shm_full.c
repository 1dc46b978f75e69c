/*
 * Collectives when /dev/shm is small (run by coll_shm_full.sh under a 64 MiB tmpfs, Docker's
 * default): 24 communicators each run a 1 MiB allreduce (4 MiB of shared slots each at 4 ranks),
 * then 16 persistent 1 MiB allreduces (each with a communicator of its own) are started together.
 * Once /dev/shm is full the next communicators use point-to-point algorithms; every result is
 * checked, and nothing may die of SIGBUS.
 */
#include <mpi.h>
#include <stdlib.h>

#include "empi_test.h"

#define NCOMM 24
#define NPERS 16
#define COUNT (256 * 1024)   /* floats: 1 MiB */

static void check_sum(const float *r, int n, int round)
{
    for (int i = 0; i < COUNT; i += 4099)
        CHECK(r[i] == (float)(n * (n - 1) / 2 + n * (i % 7)), "round %d element %d: %g", round, i, (double)r[i]);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int me = empi_rank(), n = empi_size();
    float *s = malloc(COUNT * sizeof *s), *r = malloc((size_t)NPERS * COUNT * sizeof *r);
    CHECK(s && r, "malloc");
    for (int i = 0; i < COUNT; i++)
        s[i] = (float)(me + i % 7);
    MPI_Comm comms[NCOMM];
    for (int c = 0; c < NCOMM; c++) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]));
        CHECK_MPI(MPI_Allreduce(s, r, COUNT, MPI_FLOAT, MPI_SUM, comms[c]));
        check_sum(r, n, c);
    }
    MPI_Request reqs[NPERS];
    for (int p = 0; p < NPERS; p++)
        CHECK_MPI(MPI_Allreduce_init(s, r + (size_t)p * COUNT, COUNT, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, &reqs[p]));
    for (int round = 0; round < 2; round++) {
        CHECK_MPI(MPI_Startall(NPERS, reqs));
        CHECK_MPI(MPI_Waitall(NPERS, reqs, MPI_STATUSES_IGNORE));
        for (int p = 0; p < NPERS; p++)
            check_sum(r + (size_t)p * COUNT, n, 100 + p);
    }
    for (int p = 0; p < NPERS; p++)
        CHECK_MPI(MPI_Request_free(&reqs[p]));
    for (int c = 0; c < NCOMM; c++)
        CHECK_MPI(MPI_Comm_free(&comms[c]));
    free(s);
    free(r);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
