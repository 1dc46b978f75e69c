/*
 * Messages to oneself: with nonblocking calls a rank can be its own peer, both in
 * MPI_COMM_WORLD and MPI_COMM_SELF, with the receive posted before or after the send (expected
 * vs unexpected path), for small and large messages, keeping per-tag order.
 */
#include "empi_test.h"

#include <stdlib.h>

static const int sizes[] = {0, 1, 1000, 65536, 4 << 20};
enum { NSIZES = sizeof sizes / sizeof sizes[0], NORDER = 100 };

static void exchange(MPI_Comm comm, int me, int recv_first, int n, uint32_t seed,
                     unsigned char *sb, unsigned char *rb) {
  MPI_Request rq[2];
  MPI_Status st;
  int count = -1;
  empi_fill(sb, (size_t)n, seed);
  if (recv_first) {
    CHECK_MPI(MPI_Irecv(rb, n, MPI_BYTE, me, 5, comm, &rq[0]));
    CHECK_MPI(MPI_Isend(sb, n, MPI_BYTE, me, 5, comm, &rq[1]));
  } else {
    CHECK_MPI(MPI_Isend(sb, n, MPI_BYTE, me, 5, comm, &rq[1]));
    CHECK_MPI(MPI_Irecv(rb, n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &rq[0]));
  }
  /* Complete the receive first: for a large message it drives the send as well. */
  CHECK_MPI(MPI_Wait(&rq[0], &st));
  CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
  CHECK(st.MPI_SOURCE == me && st.MPI_TAG == 5, "self status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == n, "self count %d expected %d", count, n);
  CHECK_PATTERN(rb, (size_t)n, seed);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank();
  unsigned char *sb = malloc(4 << 20), *rb = malloc(4 << 20);
  CHECK(sb && rb, "malloc");

  for (int i = 0; i < NSIZES; i++)
    for (int recv_first = 0; recv_first < 2; recv_first++) {
      exchange(MPI_COMM_WORLD, rank, recv_first, sizes[i], empi_seed(rank, i, recv_first), sb, rb);
      exchange(MPI_COMM_SELF, 0, recv_first, sizes[i], empi_seed(rank, i, 10 + recv_first), sb,
               rb);
    }

  /* Synchronous send to self completes once the receive is posted. */
  MPI_Request sq;
  int flag = 0, v = 41, w = 0;
  CHECK_MPI(MPI_Issend(&v, 1, MPI_INT, 0, 8, MPI_COMM_SELF, &sq));
  CHECK_MPI(MPI_Test(&sq, &flag, MPI_STATUS_IGNORE));
  CHECK(!flag, "Issend to self completed with no receive posted");
  CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, 0, 8, MPI_COMM_SELF, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
  CHECK(w == 41, "Issend to self delivered %d", w);

  /* Ordering to self: NORDER sends queued unexpected, drained with ANY_TAG in order. */
  int outv[NORDER], inv = -1;
  MPI_Request rq[NORDER];
  for (int i = 0; i < NORDER; i++) {
    outv[i] = i * 3 + rank;
    CHECK_MPI(MPI_Isend(&outv[i], 1, MPI_INT, rank, i % 4, MPI_COMM_WORLD, &rq[i]));
  }
  for (int i = 0; i < NORDER; i++) {
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&inv, 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(inv == i * 3 + rank && st.MPI_TAG == i % 4, "self order: got %d (tag %d) at %d", inv,
          st.MPI_TAG, i);
  }
  CHECK_MPI(MPI_Waitall(NORDER, rq, MPI_STATUSES_IGNORE));

  /* Sendrecv to self: send and receive halves progress together. */
  empi_fill(sb, 100000, empi_seed(rank, rank, 99));
  CHECK_MPI(MPI_Sendrecv(sb, 100000, MPI_BYTE, rank, 9, rb, 100000, MPI_BYTE, rank, 9,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_PATTERN(rb, 100000, empi_seed(rank, rank, 99));

  free(sb);
  free(rb);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
