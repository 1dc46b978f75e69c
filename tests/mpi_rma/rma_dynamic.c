/*
 * Dynamic windows: regions attached and detached while the window lives; displacements are
 * addresses from MPI_Get_address. Every rank attaches two buffers, the neighbour puts into one
 * and gets from the other, then one is detached and a new one attached in its place.
 * An access may run from one attached region into an adjacent one, and a datatype may skip memory
 * nobody attached between two regions; hundreds of regions may be attached at once.
 * Also: attaching to a window of another flavor fails with MPI_ERR_RMA_FLAVOR.
 * Argument: rounds of fresh regions (default 3); across hosts each makes the origin fetch the
 * target's region table, which the multi-host suite runs many times beside the async progress
 * thread (the fetch ran without the library lock there and crashed in the udp transport).
 */
#include <stdlib.h>

#include "empi_test.h"

#define N 32

#define MANY 300

/* buf[0..3] and buf[4..7] attached separately, buf[8..9] not, buf[10..13] attached: a put across
   the first two, and an hindexed put into blocks 0..3 and 10..13 that skips the hole, land; the
   hole stays untouched. Every rank also attaches MANY single-int regions, the neighbour fills them. */
static void regions(MPI_Win win, int next, int prev)
{
  static int buf[14], many[MANY];
  for (int i = 0; i < 14; i++)
    buf[i] = -1;
  CHECK_MPI(MPI_Win_attach(win, buf, 4 * sizeof(int)));
  CHECK_MPI(MPI_Win_attach(win, buf + 4, 4 * sizeof(int)));
  CHECK_MPI(MPI_Win_attach(win, buf + 10, 4 * sizeof(int)));
  for (int i = 0; i < MANY; i++)
    CHECK_MPI(MPI_Win_attach(win, &many[i], sizeof(int)));
  MPI_Aint mine[2], theirs[2];
  CHECK_MPI(MPI_Get_address(buf, &mine[0]));
  CHECK_MPI(MPI_Get_address(many, &mine[1]));
  CHECK_MPI(MPI_Sendrecv(mine, 2, MPI_AINT, prev, 0, theirs, 2, MPI_AINT, next, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  int across[8], skip[8], vals[MANY];
  for (int i = 0; i < 8; i++) {
    across[i] = 100 + i;
    skip[i] = 200 + i;
  }
  for (int i = 0; i < MANY; i++)
    vals[i] = 1000 + i;
  int blens[2] = {4, 4};
  MPI_Aint displs[2] = {0, 10 * sizeof(int)};
  MPI_Datatype holed;
  CHECK_MPI(MPI_Type_create_hindexed(2, blens, displs, MPI_INT, &holed));
  CHECK_MPI(MPI_Type_commit(&holed));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
  CHECK_MPI(MPI_Put(skip, 8, MPI_INT, next, theirs[0], 1, holed, win));
  CHECK_MPI(MPI_Win_flush(next, win));
  CHECK_MPI(MPI_Put(across, 8, MPI_INT, next, theirs[0], 8, MPI_INT, win));
  CHECK_MPI(MPI_Put(vals, MANY, MPI_INT, next, theirs[1], MANY, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(next, win));
  CHECK_MPI(MPI_Type_free(&holed));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < 14; i++) {
    int want = i < 8 ? 100 + i : i < 10 ? -1 : 204 + i - 10;
    CHECK(buf[i] == want, "buf[%d] = %d, not %d", i, buf[i], want);
  }
  for (int i = 0; i < MANY; i++)
    CHECK(many[i] == 1000 + i, "many[%d] = %d", i, many[i]);
  CHECK_MPI(MPI_Win_detach(win, buf));
  CHECK_MPI(MPI_Win_detach(win, buf + 4));
  CHECK_MPI(MPI_Win_detach(win, buf + 10));
  for (int i = 0; i < MANY; i++)
    CHECK_MPI(MPI_Win_detach(win, &many[i]));
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank = empi_rank(), size = empi_size();
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  void *v;
  int flag;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
  CHECK(flag && *(int *)v == MPI_WIN_FLAVOR_DYNAMIC, "flavor %d", *(int *)v);

  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  for (int round = 0; round < rounds; round++) {
    int *in = calloc(N, sizeof(int)), *out = malloc(N * sizeof(int));
    CHECK(in && out, "malloc");
    for (int i = 0; i < N; i++)
      out[i] = rank * 1000 + round * 100 + i;
    CHECK_MPI(MPI_Win_attach(win, in, N * sizeof(int)));
    CHECK_MPI(MPI_Win_attach(win, out, N * sizeof(int)));
    MPI_Aint mine[2], theirs[2 * 64];
    CHECK_MPI(MPI_Get_address(in, &mine[0]));
    CHECK_MPI(MPI_Get_address(out, &mine[1]));
    MPI_Aint *all = malloc(sizeof(MPI_Aint) * 2 * (size_t)size);
    CHECK(all != NULL, "malloc");
    CHECK_MPI(MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD));
    theirs[0] = all[2 * next];
    theirs[1] = all[2 * next + 1];
    free(all);

    int got[N], vals[N];
    for (int i = 0; i < N; i++)
      vals[i] = -(rank * 1000 + round * 100 + i);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
    CHECK_MPI(MPI_Put(vals, N, MPI_INT, next, theirs[0], N, MPI_INT, win));
    CHECK_MPI(MPI_Get(got, N, MPI_INT, next, theirs[1], N, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(next, win));
    for (int i = 0; i < N; i++)
      CHECK(got[i] == next * 1000 + round * 100 + i, "round %d: got[%d] = %d", round, i, got[i]);

    /* outside every attached region: MPI_ERR_RMA_RANGE */
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
    CHECK_ERR(MPI_Put(vals, N, MPI_INT, next, theirs[0] + 4, N, MPI_INT, win), MPI_ERR_RMA_RANGE);
    CHECK_MPI(MPI_Win_unlock(next, win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
      CHECK(in[i] == -(prev * 1000 + round * 100 + i), "round %d: in[%d] = %d", round, i, in[i]);
    CHECK_MPI(MPI_Win_detach(win, in));
    CHECK_MPI(MPI_Win_detach(win, out));
    free(in);
    free(out);
  }
  regions(win, next, prev);
  CHECK_MPI(MPI_Win_free(&win));

  /* attach is for dynamic windows only */
  int x;
  CHECK_MPI(MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_ERR(MPI_Win_attach(win, &x, sizeof x), MPI_ERR_RMA_FLAVOR);
  CHECK_MPI(MPI_Win_free(&win));
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
