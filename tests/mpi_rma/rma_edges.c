/*
 * One-sided edge cases:
 * - a target datatype with a negative extent (an int resized to extent -4: elements run downwards
 *   from the target address): MPI_Accumulate and MPI_Get_accumulate update exactly those ints,
 *   with the same and with a different origin datatype, on created, allocated and shared windows
 *   (the image of the target elements was too short: heap corruption);
 * - a rank polling a flag with MPI_Win_sync while another puts it under lock_all sees it (on the
 *   message path it never did: MPI_Win_sync did not poll);
 * - readers meeting in a barrier inside their shared epochs while a writer waits: no deadlock;
 * - a get and a compare-and-swap at memory the target has detached from its dynamic window after
 *   the origin learned its regions (erroneous) end with MPI_ERR_RMA_RANGE or leave the buffers
 *   alone, and the window goes on working (the target dropped them and the origin, counting
 *   answered bytes, waited forever).
 * - the no_locks hint changed by MPI_Win_set_info inside a lock_all epoch, either way: the epoch
 *   ends as it began, and an exclusive lock afterwards is granted (locks taken before the change
 *   were never given back, or ones never taken were).
 * Run plainly and with EMPI_RMA_PATH=am, and by the multi-host suite (where the stale regions are
 * the origin's: on a node it reads the target's table itself).
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

static void set_no_locks(MPI_Win win, const char *value)
{
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "no_locks", value));
    CHECK_MPI(MPI_Win_set_info(win, info));
    CHECK_MPI(MPI_Info_free(&info));
}

static void hint_inside_epoch(int me, int n)
{
    for (int start_without = 0; start_without < 2; start_without++) {
        MPI_Win win;
        int *mem;
        CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        *mem = 0;
        if (start_without)
            set_no_locks(win, "true");
        CHECK_MPI(MPI_Win_lock_all(0, win));
        set_no_locks(win, start_without ? "false" : "true");
        CHECK_MPI(MPI_Win_unlock_all(win));
        set_no_locks(win, "false");
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        /* everyone adds one under an exclusive lock on rank 0 */
        int one = 1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (me == 0) {
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            CHECK(*mem == n, "%d exclusive adds made %d", n, *mem);
            CHECK_MPI(MPI_Win_unlock(0, win));
        }
        CHECK_MPI(MPI_Win_free(&win));
    }
}

static void stale_dynamic(int me, int n)
{
    MPI_Win win;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    long gone[4] = {1, 2, 3, 4}, kept[4] = {5, 6, 7, 8};
    MPI_Aint at[2] = {0, 0};
    if (me == 0) {
        CHECK_MPI(MPI_Win_attach(win, gone, sizeof gone));
        CHECK_MPI(MPI_Win_attach(win, kept, sizeof kept));
        CHECK_MPI(MPI_Get_address(gone, &at[0]));
        CHECK_MPI(MPI_Get_address(kept, &at[1]));
    }
    CHECK_MPI(MPI_Bcast(at, 2, MPI_AINT, 0, MPI_COMM_WORLD));
    long got[4] = {0};
    if (me == n - 1) { /* learns both regions */
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK_MPI(MPI_Get(got, 4, MPI_LONG, 0, at[0], 4, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
        CHECK(got[3] == 4, "get before the detach read %ld", got[3]);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        CHECK_MPI(MPI_Win_detach(win, gone));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == n - 1) {
        long mine[4] = {-1, -1, -1, -1}, swap = 9, cmp = 1, old = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        int rc1 = MPI_Get(mine, 4, MPI_LONG, 0, at[0], 4, MPI_LONG, win);
        int rc2 = MPI_Compare_and_swap(&swap, &cmp, &old, MPI_LONG, 0, at[0], win);
        CHECK_MPI(MPI_Win_unlock(0, win));
        int c1, c2;
        MPI_Error_class(rc1, &c1);
        MPI_Error_class(rc2, &c2);
        CHECK(c1 == MPI_SUCCESS || c1 == MPI_ERR_RMA_RANGE, "get at detached memory: class %d", c1);
        CHECK(c2 == MPI_SUCCESS || c2 == MPI_ERR_RMA_RANGE, "CAS at detached memory: class %d", c2);
        CHECK(mine[0] == -1 && mine[3] == -1 && old == -1, "detached memory was read");
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK_MPI(MPI_Get(got, 4, MPI_LONG, 0, at[1], 4, MPI_LONG, win));
        CHECK_MPI(MPI_Win_unlock(0, win));
        CHECK(got[0] == 5 && got[3] == 8, "get after the erroneous ones read %ld..%ld", got[0], got[3]);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(gone[0] == 1 && gone[3] == 4, "detached memory was written: %ld", gone[0]);
    if (me == 0)
        CHECK_MPI(MPI_Win_detach(win, kept));
    CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int me = empi_rank(), n = empi_size();
    MPI_Datatype down;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, -(MPI_Aint)sizeof(int), &down));
    CHECK_MPI(MPI_Type_commit(&down));
    MPI_Comm node;
    int on_node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK_MPI(MPI_Comm_size(node, &on_node));
    CHECK_MPI(MPI_Comm_free(&node));
    int flavors = on_node == n ? 3 : 2; /* a shared window needs one node (the multi-host suite) */
    for (int flavor = 0; flavor < flavors; flavor++) {
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
    hint_inside_epoch(me, n);
    if (n > 1)
        stale_dynamic(me, n);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
