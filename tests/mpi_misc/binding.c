/*
 * EMPI_BIND_TO=hwthread at MPI_Init (set by the test's environment). While the ranks fit on the
 * CPUs mpiexec may run on, each is bound to exactly one, lower ranks on lower CPUs (so no two
 * share); when they do not fit, they are dealt round-robin, rank r on rank r mod CPUs's CPU.
 * Core binding, which needs the topology, is checked by unit.binding.
 */
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "empi_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size = empi_size();
    cpu_set_t mine, launcher;
    CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0, "sched_getaffinity");
    CHECK(sched_getaffinity(getppid(), sizeof launcher, &launcher) == 0, "sched_getaffinity(mpiexec)");
    int cpus = CPU_COUNT(&launcher), count = CPU_COUNT(&mine), first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &mine))
        first++;
    int *firsts = malloc(sizeof(int) * (size_t)size), *counts = malloc(sizeof(int) * (size_t)size);
    CHECK(firsts && counts, "malloc");
    CHECK_MPI(MPI_Allgather(&first, 1, MPI_INT, firsts, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allgather(&count, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++) {
        if (size <= cpus) {
            CHECK(counts[r] == 1, "rank %d may run on %d CPUs, not one", r, counts[r]);
            CHECK(r == 0 || firsts[r] > firsts[r - 1], "rank %d (CPU %d) is not after rank %d (CPU %d)", r,
                  firsts[r], r - 1, firsts[r - 1]);
        } else {
            CHECK(counts[r] == 1 && firsts[r] == firsts[r % cpus], "rank %d of %d on %d CPUs: on %d CPUs from CPU %d, "
                  "not on rank %d's CPU %d", r, size, cpus, counts[r], firsts[r], r % cpus, firsts[r % cpus]);
        }
    }
    free(firsts), free(counts);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
