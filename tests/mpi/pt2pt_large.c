/*
 * Large messages: one message of argv[1] bytes (default 256 MiB) from rank 0 to rank 1 with
 * blocking calls, and one back with nonblocking calls, each verified byte for byte. The size is
 * an argument so the same program can also run small smoke variants.
 */
#include "empi_test.h"

#include <limits.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  long long want = argc > 1 ? atoll(argv[1]) : 256LL << 20;
  CHECK(want >= 0 && want <= INT_MAX, "message size %lld must fit in an int count", want);
  size_t len = (size_t)want;
  /* With one rank, the same exchange goes to self (nonblocking so it cannot self-deadlock). */
  int peer = size == 1 ? 0 : 1 - rank;

  if (rank < 2) {
    unsigned char *buf = malloc(len ? len : 1);
    CHECK(buf != NULL, "cannot allocate %zu bytes", len);
    MPI_Status st;
    int count = -1;

    /* 0 -> 1, blocking. */
    if (size == 1) {
      unsigned char *out = malloc(len ? len : 1);
      CHECK(out != NULL, "cannot allocate %zu bytes", len);
      MPI_Request rq[2];
      empi_fill(out, len, empi_seed(0, 0, 1));
      CHECK_MPI(MPI_Irecv(buf, (int)len, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[0]));
      CHECK_MPI(MPI_Isend(out, (int)len, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[1]));
      CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
      CHECK_PATTERN(buf, len, empi_seed(0, 0, 1));
      free(out);
    } else if (rank == 0) {
      empi_fill(buf, len, empi_seed(0, 1, 1));
      CHECK_MPI(MPI_Send(buf, (int)len, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
      CHECK_PATTERN(buf, len, empi_seed(0, 1, 1)); /* the send must not modify its buffer */
    } else {
      CHECK_MPI(MPI_Recv(buf, (int)len, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == (int)len, "received %d bytes, expected %zu", count, len);
      CHECK_PATTERN(buf, len, empi_seed(0, 1, 1));
    }

    /* 1 -> 0, nonblocking, receive posted late (after a barrier) on purpose. */
    if (size > 1) {
      MPI_Request rq;
      if (rank == 1) {
        empi_fill(buf, len, empi_seed(1, 0, 2));
        CHECK_MPI(MPI_Isend(buf, (int)len, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rq));
      }
      MPI_Comm pair;
      CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &pair));
      CHECK_MPI(MPI_Barrier(pair));
      CHECK_MPI(MPI_Comm_free(&pair));
      if (rank == 0) {
        CHECK_MPI(MPI_Irecv(buf, (int)len, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Wait(&rq, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == (int)len, "received %d bytes, expected %zu", count, len);
        CHECK_PATTERN(buf, len, empi_seed(1, 0, 2));
      } else {
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
      }
    }
    free(buf);
  } else {
    /* Ranks beyond the pair take part only in the collective split. */
    MPI_Comm none;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, rank, &none));
    CHECK(none == MPI_COMM_NULL, "split with MPI_UNDEFINED gave a communicator");
  }

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
