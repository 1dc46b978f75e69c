/*
 * Persistent requests: one Send_init/Recv_init pair started many times (Start and Startall) with
 * fresh data each round, the Bsend/Ssend/Rsend_init variants, and the rule that Wait/Test on an
 * inactive persistent request returns at once with an empty status.
 */
#include "empi_test.h"

#include <stdlib.h>

enum { ROUNDS = 50, LEN = 4000 };

static void check_empty(MPI_Status *st) {
  int count = -1;
  CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG,
        "inactive request status src %d tag %d, expected empty", st->MPI_SOURCE, st->MPI_TAG);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK(count == 0, "inactive request status count %d", count);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char sb[LEN], rb[LEN];
  MPI_Request req[2];
  MPI_Status st[2];
  int flag;

  /* Standard mode: Recv_init + Send_init, alternating Startall and individual Starts. */
  CHECK_MPI(MPI_Recv_init(rb, LEN, MPI_BYTE, left, 1, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Send_init(sb, LEN, MPI_BYTE, right, 1, MPI_COMM_WORLD, &req[1]));
  /* Never started: inactive, so Wait and Test complete immediately with an empty status. */
  CHECK_MPI(MPI_Wait(&req[0], &st[0]));
  check_empty(&st[0]);
  CHECK(req[0] != MPI_REQUEST_NULL, "Wait freed an inactive persistent request");
  CHECK_MPI(MPI_Test(&req[1], &flag, &st[1]));
  CHECK(flag, "Test on an inactive persistent request returned false");
  check_empty(&st[1]);
  for (int r = 0; r < ROUNDS; r++) {
    empi_fill(sb, LEN, empi_seed(rank, right, r));
    if (r % 2 == 0) {
      CHECK_MPI(MPI_Startall(2, req));
    } else {
      CHECK_MPI(MPI_Start(&req[0]));
      CHECK_MPI(MPI_Start(&req[1]));
    }
    CHECK_MPI(MPI_Waitall(2, req, st));
    CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL,
          "completion freed a persistent request");
    CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 1, "round %d status", r);
    CHECK_PATTERN(rb, LEN, empi_seed(left, rank, r));
  }
  /* Completed again: inactive, so a second Waitall is a no-op with empty statuses. */
  CHECK_MPI(MPI_Waitall(2, req, st));
  check_empty(&st[0]);
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
  CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL, "Request_free did not null");

  /* Synchronous mode, completed by Test polling. */
  CHECK_MPI(MPI_Recv_init(rb, LEN, MPI_BYTE, left, 2, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Ssend_init(sb, LEN, MPI_BYTE, right, 2, MPI_COMM_WORLD, &req[1]));
  for (int r = 0; r < ROUNDS; r++) {
    empi_fill(sb, LEN, empi_seed(rank, right, 1000 + r));
    CHECK_MPI(MPI_Startall(2, req));
    flag = 0;
    while (!flag) CHECK_MPI(MPI_Testall(2, req, &flag, st));
    CHECK_PATTERN(rb, LEN, empi_seed(left, rank, 1000 + r));
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));

  /* Ready mode: receive started, then a barrier so it is posted everywhere before the send. */
  CHECK_MPI(MPI_Recv_init(rb, LEN, MPI_BYTE, left, 3, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Rsend_init(sb, LEN, MPI_BYTE, right, 3, MPI_COMM_WORLD, &req[1]));
  for (int r = 0; r < ROUNDS / 5; r++) {
    empi_fill(sb, LEN, empi_seed(rank, right, 2000 + r));
    CHECK_MPI(MPI_Start(&req[0]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Start(&req[1]));
    CHECK_MPI(MPI_Waitall(2, req, st));
    CHECK_PATTERN(rb, LEN, empi_seed(left, rank, 2000 + r));
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));

  /* Buffered mode: the attached buffer only needs room for one message at a time, since each
   * round completes (and is received) before the next starts. */
  int packed = 0;
  CHECK_MPI(MPI_Pack_size(LEN, MPI_BYTE, MPI_COMM_WORLD, &packed));
  int bsize = 2 * (packed + MPI_BSEND_OVERHEAD);
  void *bbuf = malloc((size_t)bsize);
  CHECK(bbuf != NULL, "malloc");
  CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));
  CHECK_MPI(MPI_Recv_init(rb, LEN, MPI_BYTE, left, 4, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Bsend_init(sb, LEN, MPI_BYTE, right, 4, MPI_COMM_WORLD, &req[1]));
  for (int r = 0; r < ROUNDS; r++) {
    empi_fill(sb, LEN, empi_seed(rank, right, 3000 + r));
    CHECK_MPI(MPI_Start(&req[1]));
    CHECK_MPI(MPI_Wait(&req[1], MPI_STATUS_IGNORE)); /* local completion: data copied out */
    empi_fill(sb, LEN, 0xdead); /* scribbling on the user buffer must not matter now */
    CHECK_MPI(MPI_Start(&req[0]));
    CHECK_MPI(MPI_Wait(&req[0], &st[0]));
    CHECK_PATTERN(rb, LEN, empi_seed(left, rank, 3000 + r));
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));
  void *addr;
  int dsize;
  CHECK_MPI(MPI_Buffer_detach(&addr, &dsize));
  free(bbuf);

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
