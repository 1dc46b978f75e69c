/*
 * Persistent collectives may be started in any order, a different one on each process (MPI 4.0,
 * 6.13): only their *_init calls follow the collective ordering. Odd ranks start an allreduce
 * (small, and large enough for the shared-memory pieces), a bcast, an allgather and a neighbor
 * allgather in the reverse of the even ranks' order, with a nonblocking barrier before them on
 * one side and after them on the other, over several rounds with new data each round. Every
 * result is checked; before the fix the operations took each other's data or hung.
 */
#include <stdlib.h>

#include "empi_test.h"

#define BIG (96 * 1024)
#define NOPS 5

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank = empi_rank(), size = empi_size();
  int *big = malloc(BIG * sizeof(int)), *bigsum = malloc(BIG * sizeof(int));
  int *gath = malloc((size_t)size * sizeof(int));
  CHECK(big && bigsum && gath, "malloc");
  int small = 0, smallsum = 0, root_val = 0, mine = 0, nbr[2] = {-1, -1};
  int dims = size, period = 1;
  MPI_Comm ring;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &period, 0, &ring));

  MPI_Request r[NOPS + 1];
  CHECK_MPI(MPI_Allreduce_init(&small, &smallsum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
  CHECK_MPI(MPI_Allreduce_init(big, bigsum, BIG, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
  CHECK_MPI(MPI_Bcast_init(&root_val, 1, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]));
  CHECK_MPI(MPI_Allgather_init(&mine, 1, MPI_INT, gath, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]));
  CHECK_MPI(MPI_Neighbor_allgather_init(&mine, 1, MPI_INT, nbr, 1, MPI_INT, ring, MPI_INFO_NULL, &r[4]));

  for (int round = 0; round < 4; round++) {
    small = rank + round;
    for (int i = 0; i < BIG; i++)
      big[i] = rank * 7 + i + round;
    root_val = rank == size - 1 ? 1000 + round : -1;
    mine = 100 * round + rank;
    int odd = rank & 1;
    if (odd)
      CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r[NOPS]));
    for (int k = 0; k < NOPS; k++)
      CHECK_MPI(MPI_Start(&r[odd ? NOPS - 1 - k : k]));
    if (!odd)
      CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r[NOPS]));
    CHECK_MPI(MPI_Waitall(NOPS + 1, r, MPI_STATUSES_IGNORE));

    int want = size * (size - 1) / 2 + size * round;
    CHECK(smallsum == want, "round %d: small sum %d, not %d", round, smallsum, want);
    for (int i = 0; i < BIG; i++) {
      int w = 7 * size * (size - 1) / 2 + size * (i + round);
      if (bigsum[i] != w) {
        CHECK(0, "round %d: big sum [%d] = %d, not %d", round, i, bigsum[i], w);
        break;
      }
    }
    CHECK(root_val == 1000 + round, "round %d: bcast gave %d", round, root_val);
    for (int q = 0; q < size; q++)
      CHECK(gath[q] == 100 * round + q, "round %d: allgather [%d] = %d", round, q, gath[q]);
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    CHECK(nbr[0] == 100 * round + left && nbr[1] == 100 * round + right, "round %d: neighbors %d %d", round,
          nbr[0], nbr[1]);
  }
  for (int k = 0; k < NOPS; k++)
    CHECK_MPI(MPI_Request_free(&r[k]));
  CHECK_MPI(MPI_Comm_free(&ring));
  free(big);
  free(bigsum);
  free(gath);
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
