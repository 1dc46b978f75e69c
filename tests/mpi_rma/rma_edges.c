/*
 * One-sided edge cases:
 * - a target datatype with a negative extent (an int resized to extent -4: elements run downwards
 *   from the target address): MPI_Accumulate and MPI_Get_accumulate update exactly those ints,
 *   with the same and with a different origin datatype, on created, allocated and shared windows
 *   (the image of the target elements was too short: heap corruption);
 * - a rank polling a flag with MPI_Win_sync while another puts it under lock_all sees it (on the
 *   message path it never did: MPI_Win_sync did not poll);
 * - readers meeting in a barrier inside their shared epochs while a writer waits: no deadlock.
 * Run plainly and with EMPI_RMA_PATH=am.
 */
#include <stdlib.h>

#include "empi_test.h"

#define N 16
#define TOP 10   /* the target address: ints TOP, TOP-1, TOP-2 are updated */

static void negative_extent(MPI_Win win, int *mem, int me, int n, MPI_Datatype down, int same_type)
{
    int target = (me + 1) % n;
    for (int i = 0; i < N; i++)
        mem[i] = 100 * me + i;
    CHECK_MPI(MPI_Win_fence(0, win));
    int add[3] = {1, 2, 3}, old[3] = {-1, -1, -1};
    /* with the same type the origin buffer runs downwards too: its base is add + 2 */
    const int *obuf = same_type ? add + 2 : add;
    int *rbuf = same_type ? old + 2 : old;
    MPI_Datatype otype = same_type ? down : MPI_INT;
    CHECK_MPI(MPI_Get_accumulate(obuf, 3, otype, rbuf, 3, otype, target, TOP, 3, down, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        int delta = i == TOP ? 1 : i == TOP - 1 ? 2 : i == TOP - 2 ? 3 : 0;
        if (same_type)   /* origin element k sits at add[2 - k] */
            delta = i == TOP ? 3 : i == TOP - 1 ? 2 : i == TOP - 2 ? 1 : 0;
        CHECK(mem[i] == 100 * me + i + delta, "%s type: int %d is %d, expected %d", same_type ? "same" : "other", i,
              mem[i], 100 * me + i + delta);
    }
    for (int k = 0; k < 3; k++) {
        int want = 100 * target + TOP - k;   /* the target's values before the sum, element by element */
        int got = same_type ? old[2 - k] : old[k];
        CHECK(got == want, "fetched element %d: %d, expected %d", k, got, want);
    }
    CHECK_MPI(MPI_Win_fence(0, win));
}

static void sync_poll(MPI_Win win, int *mem, int me, int n)
{
    CHECK_MPI(MPI_Win_lock_all(0, win));
    if (me == 0)
        mem[0] = 0;
    CHECK_MPI(MPI_Win_sync(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == n - 1) {
        int flag = 42;
        CHECK_MPI(MPI_Put(&flag, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        CHECK_MPI(MPI_Win_flush(0, win));
    }
    if (me == 0) {
        double t0 = MPI_Wtime();
        while (*(volatile int *)mem != 42 && MPI_Wtime() - t0 < 30)
            CHECK_MPI(MPI_Win_sync(win));
        CHECK(*(volatile int *)mem == 42, "the flag put by rank %d never showed (%d)", n - 1, mem[0]);
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* Readers of rank 0's window that wait for each other inside their shared epochs, while another
   rank keeps asking for the exclusive lock: a late reader must still get in (a waiting writer
   holds new readers back only for a while), and the writer must get its turns. */
static void readers_meet_inside(MPI_Win win, int me, int n)
{
    if (n < 4)
        return;
    MPI_Comm readers;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me >= 2 ? 0 : MPI_UNDEFINED, me, &readers));
    if (me == 1) {
        for (int i = 0; i < 20; i++) {
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            CHECK_MPI(MPI_Win_unlock(0, win));
        }
    } else if (me >= 2) {
        for (int round = 0; round < 20; round++) {
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            CHECK_MPI(MPI_Barrier(readers));
            CHECK_MPI(MPI_Win_unlock(0, win));
        }
        CHECK_MPI(MPI_Comm_free(&readers));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int me = empi_rank(), n = empi_size();
    MPI_Datatype down;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, -(MPI_Aint)sizeof(int), &down));
    CHECK_MPI(MPI_Type_commit(&down));
    for (int flavor = 0; flavor < 3; flavor++) {
        MPI_Win win;
        int *mem = NULL, *own = NULL;
        MPI_Aint bytes = N * sizeof(int);
        if (flavor == 0) {
            own = malloc((size_t)bytes);
            CHECK(own != NULL, "malloc");
            mem = own;
            CHECK_MPI(MPI_Win_create(mem, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        } else if (flavor == 1) {
            CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        } else {
            CHECK_MPI(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        }
        for (int same = 0; same < 2; same++)
            negative_extent(win, mem, me, n, down, same);
        sync_poll(win, mem, me, n);
        readers_meet_inside(win, me, n);
        CHECK_MPI(MPI_Win_free(&win));
        free(own);
    }
    CHECK_MPI(MPI_Type_free(&down));
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
