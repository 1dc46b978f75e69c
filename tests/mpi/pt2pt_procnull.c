/*
 * MPI_PROC_NULL and zero-byte messages. Communication with PROC_NULL completes at once; receives
 * report source PROC_NULL, tag ANY_TAG, count 0 and leave the buffer alone. Zero-byte messages
 * are real messages: they match, carry their tag, and give count 0.
 */
#include "empi_test.h"

#include <string.h>

static void check_null_status(MPI_Status *st, const char *what) {
  int count = -1, ecount = -1;
  CHECK(st->MPI_SOURCE == MPI_PROC_NULL, "%s: source %d", what, st->MPI_SOURCE);
  CHECK(st->MPI_TAG == MPI_ANY_TAG, "%s: tag %d", what, st->MPI_TAG);
  CHECK_MPI(MPI_Get_count(st, MPI_INT, &count));
  CHECK_MPI(MPI_Get_elements(st, MPI_INT, &ecount));
  CHECK(count == 0 && ecount == 0, "%s: count %d elements %d", what, count, ecount);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int buf[16];
  MPI_Status st;
  MPI_Request rq[4];
  int flag;

  empi_fill(buf, sizeof buf, 42);
  CHECK_MPI(MPI_Send(buf, 16, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Ssend(buf, 16, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Rsend(buf, 16, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(buf, 16, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  check_null_status(&st, "Recv");
  CHECK_PATTERN(buf, sizeof buf, 42);

  CHECK_MPI(MPI_Isend(buf, 16, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Issend(buf, 16, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Irecv(buf, 16, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[2]));
  CHECK_MPI(MPI_Test(&rq[2], &flag, &st)); /* complete immediately, first Test succeeds */
  CHECK(flag, "Irecv from PROC_NULL not complete at first Test");
  check_null_status(&st, "Irecv");
  CHECK_MPI(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag, "Isend/Issend to PROC_NULL not complete at first Testall");
  CHECK_PATTERN(buf, sizeof buf, 42);

  /* Persistent requests to/from PROC_NULL: see pt2pt_persistent_procnull.c. */
  CHECK_MPI(MPI_Sendrecv_replace(buf, 16, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1,
                                 MPI_COMM_WORLD, &st));
  check_null_status(&st, "Sendrecv_replace");
  CHECK_PATTERN(buf, sizeof buf, 42);

  /*
   * Zero-byte messages: NULL buffer with count 0, received into a larger buffer (nothing written),
   * with ANY_TAG so the tag must come from the message. Mixed with a non-empty one to check
   * that order and matching are unaffected.
   */
  int in[4] = {-1, -1, -1, -1}, out = 77;
  CHECK_MPI(MPI_Isend(NULL, 0, MPI_INT, right, 10, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Issend(NULL, 0, MPI_BYTE, right, 12, MPI_COMM_WORLD, &rq[2]));
  CHECK_MPI(MPI_Recv(in, 4, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  int count = -1;
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(st.MPI_TAG == 10 && st.MPI_SOURCE == left && count == 0, "zero-byte: tag %d count %d",
        st.MPI_TAG, count);
  CHECK(in[0] == -1, "zero-byte receive wrote the buffer");
  CHECK_MPI(MPI_Recv(in, 4, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_TAG == 11 && in[0] == 77, "message after zero-byte one: tag %d data %d", st.MPI_TAG,
        in[0]);
  CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, left, 12, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == 0 && st.MPI_TAG == 12, "zero-byte synchronous message: count %d", count);
  CHECK_MPI(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));

  /* Probing a zero-byte message reports count 0 (and it is still there to receive). */
  CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, right, 13, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Probe(left, 13, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
  CHECK(count == 0, "probe of zero-byte message: count %d", count);
  CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, left, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
