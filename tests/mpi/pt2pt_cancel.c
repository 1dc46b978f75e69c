/*
 * Cancelling posted receives: a receive that has not matched can be cancelled, completes, and
 * reports Test_cancelled true; a cancelled receive must not swallow a message sent afterwards.
 * Cancelling sends: a synchronous or rendezvous send nobody received completes cancelled and its
 * message never arrives (to self and to a neighbour); one already received completes normally;
 * a cancelled and freed send does not hold up MPI_Finalize.
 */
#include <stdlib.h>

#include "empi_test.h"

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int buf[4] = {0}, flag = -1;
  MPI_Request req;
  MPI_Status st;

  /* Specific source and tag, never sent: cancel, then Wait completes it as cancelled. */
  CHECK_MPI(MPI_Irecv(buf, 4, MPI_INT, left, 1, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Cancel(&req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL, "Wait did not free the cancelled request");
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag, "Test_cancelled false for a cancelled unmatched receive");

  /* Wildcards, completed through Test polling. */
  CHECK_MPI(MPI_Irecv(buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Cancel(&req));
  flag = 0;
  while (!flag) CHECK_MPI(MPI_Test(&req, &flag, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag, "Test_cancelled false for a cancelled wildcard receive");

  /* Several cancelled receives finished by Waitall; statuses must each report cancellation. */
  MPI_Request reqs[3];
  MPI_Status sts[3];
  for (int i = 0; i < 3; i++) CHECK_MPI(MPI_Irecv(&buf[i], 1, MPI_INT, left, 2 + i, MPI_COMM_WORLD,
                                                  &reqs[i]));
  for (int i = 0; i < 3; i++) CHECK_MPI(MPI_Cancel(&reqs[i]));
  CHECK_MPI(MPI_Waitall(3, reqs, sts));
  for (int i = 0; i < 3; i++) {
    CHECK_MPI(MPI_Test_cancelled(&sts[i], &flag));
    CHECK(flag, "Waitall status %d not cancelled", i);
  }

  /* Nobody has sent anything yet. Now a message with tag 1 goes to the right neighbour: it must
   * be delivered to the new receive, not lost to the cancelled ones. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int out = 1000 + rank, in = -1;
  MPI_Request sreq;
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &sreq));
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
  CHECK(in == 1000 + left, "received %d, expected %d", in, 1000 + left);
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag, "Test_cancelled true for a normally received message");
  CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

  /* A receive that already completed cannot be cancelled: cancel is a no-op, status intact. */
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &sreq));
  CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* Make sure the message has matched before cancelling (Request_get_status drives progress). */
  flag = 0;
  while (!flag) CHECK_MPI(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Cancel(&req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag, "cancel succeeded on a receive that had already completed");
  CHECK(in == 1000 + left && st.MPI_SOURCE == left && st.MPI_TAG == 9, "late-cancel data/status");

  /* Sends nobody has received: Issend (small and large) and a rendezvous Isend, to self and to the
     right neighbour. Each completes cancelled; a later message with the same tag is the one
     received. */
  enum { BIG = 300000 };
  char *big = calloc(BIG, 1), *bigin = malloc(BIG);
  CHECK(big && bigin, "malloc");
  const int dests[2] = {rank, right};
  for (int d = 0; d < 2; d++) {
    for (int kind = 0; kind < 3; kind++) {
      int tag = 20 + 3 * d + kind;
      if (kind == 0)
        CHECK_MPI(MPI_Issend(&out, 1, MPI_INT, dests[d], tag, MPI_COMM_WORLD, &sreq));
      else if (kind == 1)
        CHECK_MPI(MPI_Issend(big, BIG, MPI_BYTE, dests[d], tag, MPI_COMM_WORLD, &sreq));
      else
        CHECK_MPI(MPI_Isend(big, BIG, MPI_BYTE, dests[d], tag, MPI_COMM_WORLD, &sreq));
      CHECK_MPI(MPI_Cancel(&sreq));
      CHECK_MPI(MPI_Wait(&sreq, &st));
      CHECK_MPI(MPI_Test_cancelled(&st, &flag));
      CHECK(flag, "send kind %d to %s not cancelled", kind, d ? "the neighbour" : "self");
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int d = 0; d < 2; d++) {
    for (int kind = 0; kind < 3; kind++) {
      int tag = 20 + 3 * d + kind, from = d ? left : rank, probe = 1;
      CHECK_MPI(MPI_Iprobe(from, tag, MPI_COMM_WORLD, &probe, MPI_STATUS_IGNORE));
      CHECK(!probe, "cancelled send kind %d still arrived", kind);
    }
  }
  /* Already received: the cancel is too late and the send completes normally. */
  CHECK_MPI(MPI_Irecv(bigin, BIG, MPI_BYTE, left, 40, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Issend(big, BIG, MPI_BYTE, right, 40, MPI_COMM_WORLD, &sreq));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Cancel(&sreq));
  CHECK_MPI(MPI_Wait(&sreq, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag, "a received Issend reported cancelled");
  /* Cancelled and freed, never received: MPI_Finalize must still end. */
  CHECK_MPI(MPI_Issend(big, BIG, MPI_BYTE, right, 41, MPI_COMM_WORLD, &sreq));
  CHECK_MPI(MPI_Cancel(&sreq));
  CHECK_MPI(MPI_Request_free(&sreq));
  free(big), free(bigin);

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
