/*
 * Probing: Probe/Iprobe report a pending message without receiving it (and leave it matchable),
 * Mprobe/Improbe remove it from matching so only Mrecv/Imrecv on the returned handle gets it, and
 * MPI_PROC_NULL probes yield MPI_MESSAGE_NO_PROC with an empty-PROC_NULL status.
 */
#include "empi_test.h"

#include <stdlib.h>
#include <string.h>

static void check_count(MPI_Status *st, MPI_Datatype t, int want) {
  int c = -2;
  CHECK_MPI(MPI_Get_count(st, t, &c));
  CHECK(c == want, "Get_count %d, expected %d", c, want);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int flag = -1;
  MPI_Status st;

  /* Nothing is ever sent with tag 999: Iprobe must say so, also with wildcards on the source. */
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "Iprobe found a message that was never sent");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Probe + Recv: size unknown to the receiver, taken from the status (in ints). */
  int n1 = 1000 + rank * 17;
  int *a = malloc(sizeof(int) * (size_t)n1);
  CHECK(a != NULL, "malloc");
  empi_fill(a, sizeof(int) * (size_t)n1, empi_seed(rank, right, 1));
  MPI_Request sreq[4];
  CHECK_MPI(MPI_Isend(a, n1, MPI_INT, right, 5, MPI_COMM_WORLD, &sreq[0]));
  CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5, "Probe status src %d tag %d", st.MPI_SOURCE,
        st.MPI_TAG);
  int want = 1000 + left * 17, cnt = -1;
  check_count(&st, MPI_INT, want);
  check_count(&st, MPI_BYTE, want * (int)sizeof(int));
  /* A second probe sees the same message again: probing does not consume. */
  CHECK_MPI(MPI_Probe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  check_count(&st, MPI_INT, want);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
  int *b = malloc(sizeof(int) * (size_t)cnt);
  CHECK(b != NULL, "malloc");
  CHECK_MPI(MPI_Recv(b, cnt, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
  CHECK_PATTERN(b, sizeof(int) * (size_t)want, empi_seed(left, rank, 1));
  free(b);
  CHECK_MPI(MPI_Wait(&sreq[0], MPI_STATUS_IGNORE));

  /* Iprobe polling until the message shows up; then the message is still receivable. */
  unsigned char small[37], rs[37];
  empi_fill(small, sizeof small, empi_seed(rank, right, 2));
  CHECK_MPI(MPI_Isend(small, (int)sizeof small, MPI_BYTE, right, 6, MPI_COMM_WORLD, &sreq[0]));
  flag = 0;
  while (!flag) CHECK_MPI(MPI_Iprobe(left, 6, MPI_COMM_WORLD, &flag, &st));
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 6, "Iprobe status src %d tag %d", st.MPI_SOURCE,
        st.MPI_TAG);
  check_count(&st, MPI_BYTE, (int)sizeof small);
  CHECK_MPI(MPI_Recv(rs, (int)sizeof rs, MPI_BYTE, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_PATTERN(rs, sizeof rs, empi_seed(left, rank, 2));
  CHECK_MPI(MPI_Wait(&sreq[0], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /*
   * Matched probes: two messages with the same tag. Mprobe takes the first out of the matching
   * queue, so a plain Probe now sees the second (different size) one. Mrecv gets the first.
   */
  unsigned char m1[100], m2[300], r1[300], r2[300];
  empi_fill(m1, sizeof m1, empi_seed(rank, right, 3));
  empi_fill(m2, sizeof m2, empi_seed(rank, right, 4));
  CHECK_MPI(MPI_Isend(m1, (int)sizeof m1, MPI_BYTE, right, 7, MPI_COMM_WORLD, &sreq[0]));
  CHECK_MPI(MPI_Isend(m2, (int)sizeof m2, MPI_BYTE, right, 7, MPI_COMM_WORLD, &sreq[1]));
  MPI_Message msg = MPI_MESSAGE_NULL, msg2 = MPI_MESSAGE_NULL;
  CHECK_MPI(MPI_Mprobe(left, 7, MPI_COMM_WORLD, &msg, &st));
  CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "Mprobe gave no message");
  check_count(&st, MPI_BYTE, (int)sizeof m1);
  CHECK_MPI(MPI_Probe(left, 7, MPI_COMM_WORLD, &st));
  check_count(&st, MPI_BYTE, (int)sizeof m2);
  flag = 0;
  while (!flag) CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, &msg2, &st));
  check_count(&st, MPI_BYTE, (int)sizeof m2);
  CHECK(st.MPI_SOURCE == left, "Improbe source %d", st.MPI_SOURCE);
  /* Nothing with tag 7 is left to match. */
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "Iprobe matched a message already taken by Mprobe/Improbe");
  /* Receive them in reverse order: the handles, not queue order, decide. */
  MPI_Request rr;
  CHECK_MPI(MPI_Imrecv(r2, (int)sizeof r2, MPI_BYTE, &msg2, &rr));
  CHECK(msg2 == MPI_MESSAGE_NULL, "Imrecv did not reset the message handle");
  CHECK_MPI(MPI_Wait(&rr, &st));
  check_count(&st, MPI_BYTE, (int)sizeof m2);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7, "Imrecv status src %d tag %d", st.MPI_SOURCE,
        st.MPI_TAG);
  CHECK_PATTERN(r2, sizeof m2, empi_seed(left, rank, 4));
  CHECK_MPI(MPI_Mrecv(r1, (int)sizeof r1, MPI_BYTE, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NULL, "Mrecv did not reset the message handle");
  check_count(&st, MPI_BYTE, (int)sizeof m1);
  CHECK_PATTERN(r1, sizeof m1, empi_seed(left, rank, 3));
  CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));

  /* Probing MPI_PROC_NULL: immediate, MPI_MESSAGE_NO_PROC, status source PROC_NULL, count 0. */
  msg = MPI_MESSAGE_NULL;
  CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 7, MPI_COMM_WORLD, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) did not give MPI_MESSAGE_NO_PROC");
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL status %d/%d",
        st.MPI_SOURCE, st.MPI_TAG);
  check_count(&st, MPI_BYTE, 0);
  memset(r1, 0xA5, sizeof r1);
  CHECK_MPI(MPI_Mrecv(r1, (int)sizeof r1, MPI_BYTE, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NULL, "Mrecv(NO_PROC) did not reset the handle");
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "NO_PROC Mrecv status");
  check_count(&st, MPI_BYTE, 0);
  for (size_t i = 0; i < sizeof r1; i++) CHECK(r1[i] == 0xA5, "Mrecv(NO_PROC) wrote the buffer");
  flag = 0;
  CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
  CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL) flag %d", flag);
  CHECK_MPI(MPI_Imrecv(r1, 1, MPI_BYTE, &msg, &rr));
  CHECK_MPI(MPI_Wait(&rr, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "NO_PROC Imrecv status");
  check_count(&st, MPI_BYTE, 0);
  CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "Probe(PROC_NULL) status");
  check_count(&st, MPI_INT, 0);
  CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &st));
  CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL, "Iprobe(PROC_NULL) flag %d", flag);

  free(a);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
