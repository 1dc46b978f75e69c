/*
 * Send modes. Standard and synchronous sends deliver correctly; a synchronous send must not
 * complete before the matching receive has been posted; ready sends work when the receive is
 * known to be posted.
 */
#include "empi_test.h"

#include <stdlib.h>

static const int sizes[] = {0, 1, 100, 5000, 70000, 1 << 20};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char *sb = malloc(1 << 20), *rb = malloc(1 << 20);
  CHECK(sb && rb, "malloc");
  MPI_Request rq, sq;
  MPI_Status st;
  int count, flag;

  /* Standard and synchronous mode around the ring, receive pre-posted so size 1 cannot block. */
  for (int mode = 0; mode < 2; mode++)
    for (int i = 0; i < NSIZES; i++) {
      uint32_t seq = (uint32_t)(mode * 100 + i);
      CHECK_MPI(MPI_Irecv(rb, sizes[i], MPI_BYTE, left, 1, MPI_COMM_WORLD, &rq));
      empi_fill(sb, (size_t)sizes[i], empi_seed(rank, right, (int)seq));
      if (size == 1) {
        /* A blocking send to self could legitimately wait for buffering; use the nonblocking
         * form of the same mode instead. */
        if (mode == 0) CHECK_MPI(MPI_Isend(sb, sizes[i], MPI_BYTE, right, 1, MPI_COMM_WORLD, &sq));
        else CHECK_MPI(MPI_Issend(sb, sizes[i], MPI_BYTE, right, 1, MPI_COMM_WORLD, &sq));
        CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
      } else if (mode == 0) {
        CHECK_MPI(MPI_Send(sb, sizes[i], MPI_BYTE, right, 1, MPI_COMM_WORLD));
      } else {
        CHECK_MPI(MPI_Ssend(sb, sizes[i], MPI_BYTE, right, 1, MPI_COMM_WORLD));
      }
      CHECK_MPI(MPI_Wait(&rq, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == sizes[i], "mode %d: count %d, expected %d", mode, count, sizes[i]);
      CHECK_PATTERN(rb, (size_t)sizes[i], empi_seed(left, rank, (int)seq));
    }

  /*
   * Issend handshake: rank r sends synchronously to its right neighbour, which deliberately does
   * not post the receive until told to (via a "go" message with another tag). Until then every
   * Test on the Issend must say "not complete". Done for small (eager-sized) and large messages.
   */
  for (int i = 1; i < NSIZES; i++) {
    empi_fill(sb, (size_t)sizes[i], empi_seed(rank, right, 200 + i));
    CHECK_MPI(MPI_Issend(sb, sizes[i], MPI_BYTE, right, 2, MPI_COMM_WORLD, &sq));
    for (int k = 0; k < 20; k++) {
      CHECK_MPI(MPI_Test(&sq, &flag, MPI_STATUS_IGNORE));
      CHECK(!flag, "Issend of %d bytes completed before the receive was posted", sizes[i]);
      empi_sleep_ms(2);
    }
    /* Everyone has now verified its own Issend is pending; release the receivers. */
    int go_out = 1, go_in = 0;
    MPI_Request gq;
    CHECK_MPI(MPI_Isend(&go_out, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &gq));
    CHECK_MPI(MPI_Recv(&go_in, 1, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(rb, sizes[i], MPI_BYTE, left, 2, MPI_COMM_WORLD, &st));
    CHECK_PATTERN(rb, (size_t)sizes[i], empi_seed(left, rank, 200 + i));
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&gq, MPI_STATUS_IGNORE));
  }

  /*
   * Ready mode: the receiver posts its receive, then the barrier guarantees every receive is
   * posted before any Rsend/Irsend starts.
   */
  for (int mode = 0; mode < 2; mode++)
    for (int i = 0; i < NSIZES; i++) {
      int seq = 300 + mode * 10 + i;
      CHECK_MPI(MPI_Irecv(rb, sizes[i], MPI_BYTE, left, 4, MPI_COMM_WORLD, &rq));
      empi_fill(sb, (size_t)sizes[i], empi_seed(rank, right, seq));
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      if (mode == 0 && size > 1) {
        CHECK_MPI(MPI_Rsend(sb, sizes[i], MPI_BYTE, right, 4, MPI_COMM_WORLD));
      } else {
        CHECK_MPI(MPI_Irsend(sb, sizes[i], MPI_BYTE, right, 4, MPI_COMM_WORLD, &sq));
        CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
      }
      CHECK_MPI(MPI_Wait(&rq, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == sizes[i], "ready mode %d: count %d, expected %d", mode, count, sizes[i]);
      CHECK_PATTERN(rb, (size_t)sizes[i], empi_seed(left, rank, seq));
    }

  free(sb);
  free(rb);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
