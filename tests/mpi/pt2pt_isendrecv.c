/*
 * Nonblocking send-receive (MPI 4.0): Isendrecv and Isendrecv_replace around a ring. The
 * completed status must describe the receive half (source, tag, count), like Sendrecv.
 */
#include "empi_test.h"

#include <stdlib.h>

static const int sizes[] = {0, 1, 333, 8192, 100000, 1 << 20};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

static void check_status(MPI_Status *st, int src, int tag, int len) {
  int count = -1;
  CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag, "status src %d tag %d, expected %d/%d",
        st->MPI_SOURCE, st->MPI_TAG, src, tag);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK(count == len, "count %d, expected %d", count, len);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char *sb = malloc(1 << 20), *rb = malloc(1 << 20);
  CHECK(sb && rb, "malloc");
  MPI_Status st;
  MPI_Request rq;

  for (int i = 0; i < NSIZES; i++) {
    int n = sizes[i];
    /* Isendrecv: opposite direction (receive from right) to vary the pattern. */
    empi_fill(sb, (size_t)n, empi_seed(rank, left, 100 + i));
    CHECK_MPI(MPI_Isendrecv(sb, n, MPI_BYTE, left, 30, rb, n, MPI_BYTE, MPI_ANY_SOURCE, 30,
                            MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    check_status(&st, right, 30, n);
    CHECK_PATTERN(rb, (size_t)n, empi_seed(right, rank, 100 + i));

    empi_fill(sb, (size_t)n, empi_seed(rank, right, 150 + i));
    CHECK_MPI(MPI_Isendrecv_replace(sb, n, MPI_BYTE, right, 40, left, 40, MPI_COMM_WORLD, &rq));
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Test(&rq, &flag, &st));
    check_status(&st, left, 40, n);
    CHECK_PATTERN(sb, (size_t)n, empi_seed(left, rank, 150 + i));
  }

  /* PROC_NULL on both sides completes at once with the PROC_NULL status. */
  CHECK_MPI(MPI_Isendrecv(sb, 8, MPI_BYTE, MPI_PROC_NULL, 1, rb, 8, MPI_BYTE, MPI_PROC_NULL, 1,
                          MPI_COMM_WORLD, &rq));
  CHECK_MPI(MPI_Wait(&rq, &st));
  check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0);

  free(sb);
  free(rb);
  /* A cancelled Isendrecv(_replace) whose receive nobody matches completes, marked cancelled
     (MPI 4.1 3.8.4: a wait on a communication marked for cancellation returns). */
  for (int replace = 0; replace < 2; replace++) {
    int out = rank, in = -1;
    MPI_Request q;
    if (replace)
      CHECK_MPI(MPI_Isendrecv_replace(&in, 1, MPI_INT, MPI_PROC_NULL, 0, left, 999, MPI_COMM_WORLD, &q));
    else
      CHECK_MPI(MPI_Isendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 0, &in, 1, MPI_INT, left, 999, MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Cancel(&q));
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&q, &st));
    int cancelled = 0;
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled && in == -1, "Isendrecv%s cancelled %d, buffer %d", replace ? "_replace" : "", cancelled, in);
  }
  /* Freed at once: both halves still happen (and the request goes away once they did). */
  for (int i = 0; i < 100; i++) {
    int out = 1000 * rank + i, in = -1, after = -1;
    MPI_Request q;
    CHECK_MPI(MPI_Isendrecv(&out, 1, MPI_INT, right, 3, &in, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Request_free(&q));
    CHECK(q == MPI_REQUEST_NULL, "freed request not set to MPI_REQUEST_NULL");
    /* sent after the freed pair's message on the same path: received after it */
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, right, 3, &after, 1, MPI_INT, left, 3, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(in == 1000 * left + i && after == 1000 * left + i, "freed Isendrecv %d: got %d then %d", i, in, after);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
