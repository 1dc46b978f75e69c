/*
 * Persistent requests naming MPI_PROC_NULL. Starting them is a send/receive with PROC_NULL, so
 * the receive must complete at once with the PROC_NULL status (source PROC_NULL, tag ANY_TAG,
 * count 0), not with the empty status of an inactive request. Kept apart from pt2pt_procnull.c
 * because MPICH 5.0.2 returns the empty status here.
 */
#include "empi_test.h"

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int buf[16], count = -1, flag = 0;
  MPI_Request rq[2];
  MPI_Status st;

  empi_fill(buf, sizeof buf, 42);
  CHECK_MPI(MPI_Recv_init(buf, 16, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Send_init(buf, 16, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &rq[1]));
  for (int round = 0; round < 3; round++) {
    CHECK_MPI(MPI_Startall(2, rq));
    CHECK_MPI(MPI_Test(&rq[0], &flag, &st));
    CHECK(flag, "persistent receive from PROC_NULL not complete at first Test");
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 0, "persistent PROC_NULL receive: count %d", count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
          "persistent PROC_NULL receive: status source %d tag %d, expected %d/%d", st.MPI_SOURCE,
          st.MPI_TAG, MPI_PROC_NULL, MPI_ANY_TAG);
    CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK_PATTERN(buf, sizeof buf, 42);
  }
  CHECK_MPI(MPI_Request_free(&rq[0]));
  CHECK_MPI(MPI_Request_free(&rq[1]));

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
