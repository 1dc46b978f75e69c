/*
 * Dynamic windows: regions attached and detached while the window lives; displacements are
 * addresses from MPI_Get_address. Every rank attaches two buffers, the neighbour puts into one
 * and gets from the other, then one is detached and a new one attached in its place.
 * Also: attaching to a window of another flavor fails with MPI_ERR_RMA_FLAVOR.
 */
#include <stdlib.h>

#include "empi_test.h"

#define N 32

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

  for (int round = 0; round < 3; round++) {
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
