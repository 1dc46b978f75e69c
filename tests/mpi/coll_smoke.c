/*
 * Collective smoke test (exhaustive collective tests live elsewhere): Barrier, Bcast, Reduce,
 * Allreduce (MPI_SUM on int and double), Gather, Scatter, Allgather and Alltoall with every rank
 * as root where a root exists, results computed independently and compared exactly (the double
 * values are small integers, so sums are exact in any order).
 */
#include "empi_test.h"

#include <stdlib.h>

enum { N = 5 };

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int *big = malloc(sizeof(int) * (size_t)size * N), *big2 = malloc(sizeof(int) * (size_t)size * N);
  CHECK(big && big2, "malloc");

  for (int i = 0; i < 5; i++) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  for (int root = 0; root < size; root++) {
    /* Bcast: small ints and a larger byte buffer. */
    int v[N];
    for (int i = 0; i < N; i++) v[i] = rank == root ? root * 10 + i : -1;
    CHECK_MPI(MPI_Bcast(v, N, MPI_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) CHECK(v[i] == root * 10 + i, "Bcast root %d [%d] = %d", root, i,
                                      v[i]);
    unsigned char bytes[100000];
    if (rank == root) empi_fill(bytes, sizeof bytes, empi_seed(root, 0, 1));
    CHECK_MPI(MPI_Bcast(bytes, (int)sizeof bytes, MPI_BYTE, root, MPI_COMM_WORLD));
    CHECK_PATTERN(bytes, sizeof bytes, empi_seed(root, 0, 1));

    /* Reduce: sum of (rank + i) over ranks. */
    int mine[N], sum[N];
    double dm[N], ds[N];
    for (int i = 0; i < N; i++) {
      mine[i] = rank + i;
      dm[i] = 0.5 * rank + i;
      sum[i] = -1;
      ds[i] = -1;
    }
    CHECK_MPI(MPI_Reduce(mine, sum, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Reduce(dm, ds, N, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD));
    if (rank == root)
      for (int i = 0; i < N; i++) {
        CHECK(sum[i] == size * (size - 1) / 2 + size * i, "Reduce int [%d] = %d", i, sum[i]);
        CHECK(ds[i] == 0.25 * size * (size - 1) + (double)size * i, "Reduce double [%d] = %g", i,
              ds[i]);
      }

    /* Gather / Scatter. */
    int pair[2] = {rank, rank * rank};
    CHECK_MPI(MPI_Gather(pair, 2, MPI_INT, big, 2, MPI_INT, root, MPI_COMM_WORLD));
    if (rank == root)
      for (int r = 0; r < size; r++)
        CHECK(big[2 * r] == r && big[2 * r + 1] == r * r, "Gather slot %d", r);
    if (rank == root)
      for (int r = 0; r < size; r++) {
        big2[2 * r] = root * 1000 + r;
        big2[2 * r + 1] = -r;
      }
    int got[2] = {-1, -1};
    CHECK_MPI(MPI_Scatter(big2, 2, MPI_INT, got, 2, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(got[0] == root * 1000 + rank && got[1] == -rank, "Scatter from %d got %d %d", root,
          got[0], got[1]);
  }

  /* Allreduce, including in place. */
  int isum = -1, ival = rank + 1;
  double dsum = -1, dval = rank * 0.25;
  CHECK_MPI(MPI_Allreduce(&ival, &isum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(isum == size * (size + 1) / 2, "Allreduce int %d", isum);
  CHECK_MPI(MPI_Allreduce(&dval, &dsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  CHECK(dsum == 0.125 * size * (size - 1), "Allreduce double %g", dsum);
  ival = rank;
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &ival, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(ival == size - 1, "Allreduce in place MAX %d", ival);

  /* Allgather. */
  int two[2] = {rank, 7 * rank};
  CHECK_MPI(MPI_Allgather(two, 2, MPI_INT, big, 2, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; r++) CHECK(big[2 * r] == r && big[2 * r + 1] == 7 * r,
                                       "Allgather slot %d", r);

  /* Alltoall: element for rank d from rank s is s * 100 + d. */
  for (int d = 0; d < size; d++) big2[d] = rank * 100 + d;
  CHECK_MPI(MPI_Alltoall(big2, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD));
  for (int s = 0; s < size; s++) CHECK(big[s] == s * 100 + rank, "Alltoall from %d: %d", s,
                                       big[s]);

  free(big);
  free(big2);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
