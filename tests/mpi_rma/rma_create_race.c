/*
 * Window creation does not synchronize: a process that has returned from it may at once start a
 * passive-target epoch towards one that is still inside it (MPI 4.1, 12.2 and 12.5.3). Over and
 * over, for each flavor, rank 0 locks every other rank right after creating the window and puts
 * its iteration number there: with a lock request, and under MPI_MODE_NOCHECK with no request at
 * all. Each target checks after a barrier that the value arrived. Run with EMPI_RMA_PATH=am too,
 * where the lock and the put are messages the target handles while it may still be creating the
 * window (they crashed it before).
 */
#include "empi_test.h"

#define ROUNDS 60

enum { CREATE, ALLOCATE, DYNAMIC, FLAVORS };
static const char *const flavor_name[] = {"Win_create", "Win_allocate", "Win_create_dynamic"};

static void round_of(int flavor, int nocheck, int it)
{
    int rank = empi_rank(), size = empi_size();
    static int mem;
    int *buf = &mem;
    MPI_Win win;
    mem = -1;   /* before: the put may come before this rank returns from the creation */
    if (flavor == CREATE)
        CHECK_MPI(MPI_Win_create(&mem, sizeof mem, sizeof mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    else if (flavor == ALLOCATE)
        CHECK_MPI(MPI_Win_allocate(sizeof mem, sizeof mem, MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
    else
        CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Aint where = 0;
    if (flavor == DYNAMIC) {
        /* the address must reach rank 0 before it can put: that exchange orders things here */
        CHECK_MPI(MPI_Win_attach(win, &mem, sizeof mem));
        MPI_Aint mine;
        CHECK_MPI(MPI_Get_address(&mem, &mine));
        CHECK_MPI(MPI_Bcast(&mine, 1, MPI_AINT, size - 1, MPI_COMM_WORLD));
        where = mine;
    }
    if (rank == 0) {
        for (int t = 1; t < size; t++) {
            if (flavor == DYNAMIC && t != size - 1)
                continue;
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, nocheck ? MPI_MODE_NOCHECK : 0, win));
            CHECK_MPI(MPI_Put(&it, 1, MPI_INT, t, where, 1, MPI_INT, win));
            CHECK_MPI(MPI_Win_unlock(t, win));
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* the unlock completed the put at the target before rank 0 reached the barrier */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    int got = *buf, want = rank == 0 || (flavor == DYNAMIC && rank != size - 1) ? -1 : it;
    CHECK_MPI(MPI_Win_unlock(rank, win));
    /* (allocated memory is never -1 for sure: only what was put is checked there) */
    if (want != -1 || flavor != ALLOCATE)
        CHECK(got == want, "%s%s round %d: rank %d holds %d, expected %d", flavor_name[flavor],
              nocheck ? " (NOCHECK)" : "", it, rank, got, want);
    if (flavor == DYNAMIC)
        CHECK_MPI(MPI_Win_detach(win, &mem));
    CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int flavor = 0; flavor < FLAVORS; flavor++)
        for (int nocheck = 0; nocheck < 2; nocheck++)
            for (int it = 0; it < ROUNDS; it++)
                round_of(flavor, nocheck, it);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
