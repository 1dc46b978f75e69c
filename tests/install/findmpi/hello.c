/* Sums the ranks with MPI_Allreduce and checks the result, so a broken link or launch fails. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, sum = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int ok = sum == size * (size - 1) / 2;
  if (rank == 0) printf("%s: %d ranks, sum of ranks %d\n", ok ? "PASS" : "FAIL", size, sum);
  MPI_Finalize();
  return ok ? 0 : 1;
}
