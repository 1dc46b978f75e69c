/*
 * Shared memory that local ranks hold is what they use, not the whole ring budget: right after
 * MPI_Init, and after each rank exchanged messages with its two ring neighbours only, a rank's
 * proportional share of shared memory (Pss_Shmem of /proc/self/smaps_rollup) stays below what
 * its incoming rings would take if all were resident (with 16 ranks, 15 rings of 256 KiB:
 * 3.75 MiB, which every rank held from MPI_Init on before rings were populated on first use).
 * Skipped (passes) where smaps_rollup is missing.
 */
#include <stdio.h>
#include <string.h>

#include "empi_test.h"

/* Pss_Shmem in KiB, or -1 when the kernel does not tell. */
static long pss_shmem_kib(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f)
        return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Pss_Shmem: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int me = empi_rank(), n = empi_size();
    const long limit_kib = 2048;
    long at_init = pss_shmem_kib();
    CHECK(at_init < limit_kib, "rank %d holds %ld KiB of shared memory right after MPI_Init", me, at_init);
    char out[2][4096], in[2][4096];
    int peers[2] = {(me + 1) % n, (me + n - 1) % n};
    for (int round = 0; round < 200; round++) {
        MPI_Request r[4];
        for (int k = 0; k < 2; k++) {
            memset(out[k], (me * 7 + round + k) & 0xff, sizeof out[k]);
            CHECK_MPI(MPI_Irecv(in[k], sizeof in[k], MPI_BYTE, peers[k], k, MPI_COMM_WORLD, &r[k]));
        }
        for (int k = 0; k < 2; k++)
            CHECK_MPI(MPI_Isend(out[k], sizeof out[k], MPI_BYTE, peers[1 - k], k, MPI_COMM_WORLD, &r[2 + k]));
        CHECK_MPI(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 2; k++)
            CHECK(in[k][0] == (char)((peers[k] * 7 + round + k) & 0xff) && in[k][4095] == in[k][0],
                  "round %d: wrong data from %d", round, peers[k]);
    }
    long after = pss_shmem_kib();
    CHECK(after < limit_kib, "rank %d holds %ld KiB of shared memory after talking to two neighbours", me, after);
    if (me == 0)
        printf("Pss_Shmem of rank 0: %ld KiB after MPI_Init, %ld KiB after the neighbour exchange\n", at_init, after);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
