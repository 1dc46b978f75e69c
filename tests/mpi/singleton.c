/*
 * Singleton init: started directly, without mpiexec, the program must come up as a world of
 * one with working self-communication and collectives. (Registered with add_test, not through
 * empi_add_mpi_test.)
 */
#include "empi_test.h"

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  CHECK(size == 1 && rank == 0, "singleton: rank %d of %d", rank, size);
  int cmpres = -1;
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &cmpres));
  CHECK(cmpres == MPI_CONGRUENT, "singleton WORLD vs SELF: %d", cmpres);

  unsigned char sb[5000], rb[5000];
  MPI_Request rq[2];
  empi_fill(sb, sizeof sb, 5);
  CHECK_MPI(MPI_Irecv(rb, (int)sizeof rb, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(sb, (int)sizeof sb, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  CHECK_PATTERN(rb, sizeof rb, 5);

  int v = 21, s = 0;
  CHECK_MPI(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(s == 21, "singleton Allreduce %d", s);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Barrier(dup));
  CHECK_MPI(MPI_Comm_free(&dup));

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
