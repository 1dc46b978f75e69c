/*
 * Truncation: a message longer than the receive buffer is an MPI_ERR_TRUNCATE error, reported by
 * the return code under MPI_ERRORS_RETURN (and via MPI_ERR_IN_STATUS + status.MPI_ERROR from
 * multi-request completion). The communicator stays usable afterwards.
 */
#include "empi_test.h"

#include <stdlib.h>

static void check_class(int code, int want, const char *what) {
  int cls = -1;
  CHECK_MPI(MPI_Error_class(code, &cls));
  CHECK(cls == want, "%s: error class %d, expected %d", what, cls, want);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  /* Which handler a multi-request completion call raises on is not pinned down when requests
   * could span communicators; some implementations use WORLD or SELF. Make them all return. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  unsigned char *sb = malloc(200000), *rb = malloc(200000);
  CHECK(sb && rb, "malloc");
  MPI_Request sq, rq[2];
  MPI_Status st, sts[2];

  /* Blocking receive, small and large (possibly rendezvous) messages. */
  const int lens[] = {100, 150000};
  for (int i = 0; i < 2; i++) {
    empi_fill(sb, (size_t)lens[i], empi_seed(rank, right, i));
    CHECK_MPI(MPI_Isend(sb, lens[i], MPI_BYTE, right, 1, comm, &sq));
    CHECK_ERR(MPI_Recv(rb, lens[i] / 2, MPI_BYTE, left, 1, comm, &st), MPI_ERR_TRUNCATE);
    /* The send side completes normally: truncation is the receiver's error. */
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
  }

  /* Nonblocking receive: the error comes from Wait. */
  empi_fill(sb, 64, empi_seed(rank, right, 5));
  CHECK_MPI(MPI_Irecv(rb, 10, MPI_BYTE, left, 2, comm, &rq[0]));
  CHECK_MPI(MPI_Isend(sb, 64, MPI_BYTE, right, 2, comm, &sq));
  CHECK_ERR(MPI_Wait(&rq[0], &st), MPI_ERR_TRUNCATE);
  CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));

  /* Waitall with one good and one truncated receive: MPI_ERR_IN_STATUS, per-request errors. */
  int good[4] = {0}, goodsrc[4] = {1, 2, 3, 4};
  CHECK_MPI(MPI_Irecv(good, 4, MPI_INT, left, 3, comm, &rq[0]));
  CHECK_MPI(MPI_Irecv(rb, 3, MPI_INT, left, 4, comm, &rq[1]));
  MPI_Request sq2[2];
  CHECK_MPI(MPI_Isend(goodsrc, 4, MPI_INT, right, 3, comm, &sq2[0]));
  CHECK_MPI(MPI_Isend(sb, 16, MPI_INT, right, 4, comm, &sq2[1]));
  int rc = MPI_Waitall(2, rq, sts);
  check_class(rc, MPI_ERR_IN_STATUS, "Waitall");
  check_class(sts[1].MPI_ERROR, MPI_ERR_TRUNCATE, "Waitall status[1]");
  CHECK(sts[0].MPI_ERROR == MPI_SUCCESS, "Waitall status[0].MPI_ERROR = %d", sts[0].MPI_ERROR);
  CHECK(good[0] == 1 && good[3] == 4, "good receive alongside a truncated one lost its data");
  CHECK_MPI(MPI_Waitall(2, sq2, MPI_STATUSES_IGNORE));

  /* Sendrecv with a short receive buffer. */
  CHECK_ERR(MPI_Sendrecv(sb, 32, MPI_BYTE, right, 6, rb, 8, MPI_BYTE, left, 6, comm, &st),
            MPI_ERR_TRUNCATE);

  /* The communicator still works, and a receive of exactly the right size is fine. */
  empi_fill(sb, 1000, empi_seed(rank, right, 9));
  CHECK_MPI(MPI_Sendrecv(sb, 1000, MPI_BYTE, right, 7, rb, 1000, MPI_BYTE, left, 7, comm, &st));
  CHECK_PATTERN(rb, 1000, empi_seed(left, rank, 9));
  CHECK_MPI(MPI_Barrier(comm));

  CHECK_MPI(MPI_Comm_free(&comm));
  free(sb);
  free(rb);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
