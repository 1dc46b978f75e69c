/*
 * Wildcard receives: MPI_ANY_SOURCE and MPI_ANY_TAG must fill in the status with the actual
 * source and tag of the matched message, and wildcards on one field must still respect the other.
 */
#include "empi_test.h"

#include <stdlib.h>

enum { PER_SENDER = 5, MAXLEN = 64 };

static int tag_of(int src, int k) { return 100 + src * 10 + k; }
static int len_of(int src, int k) { return (src * 7 + k * 3) % MAXLEN; }

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  unsigned char sbuf[PER_SENDER][MAXLEN], rbuf[MAXLEN];
  MPI_Request req[PER_SENDER];

  /* Everyone (rank 0 included, to itself) sends PER_SENDER tagged messages to rank 0. */
  for (int k = 0; k < PER_SENDER; k++) {
    empi_fill(sbuf[k], (size_t)len_of(rank, k), empi_seed(rank, 0, k));
    CHECK_MPI(MPI_Isend(sbuf[k], len_of(rank, k), MPI_BYTE, 0, tag_of(rank, k), MPI_COMM_WORLD,
                        &req[k]));
  }

  if (rank == 0) {
    int *got = calloc((size_t)size * PER_SENDER, sizeof(int));
    CHECK(got != NULL, "malloc");
    /* First: ANY_SOURCE with a specific tag — the last message of each sender, in rank order. */
    for (int src = 0; src < size; src++) {
      MPI_Status st;
      int k = PER_SENDER - 1, count = -1;
      CHECK_MPI(MPI_Recv(rbuf, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, tag_of(src, k), MPI_COMM_WORLD,
                         &st));
      CHECK(st.MPI_SOURCE == src, "ANY_SOURCE tag %d: source %d, expected %d", tag_of(src, k),
            st.MPI_SOURCE, src);
      CHECK(st.MPI_TAG == tag_of(src, k), "tag %d in status, expected %d", st.MPI_TAG,
            tag_of(src, k));
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == len_of(src, k), "count %d expected %d", count, len_of(src, k));
      CHECK_PATTERN(rbuf, (size_t)count, empi_seed(src, 0, k));
      got[src * PER_SENDER + k] = 1;
    }
    /* Second: a specific source with ANY_TAG — per-source order gives k = 0, 1, ... */
    for (int src = size - 1; src >= 0; src--) {
      MPI_Status st;
      int count = -1;
      CHECK_MPI(MPI_Recv(rbuf, MAXLEN, MPI_BYTE, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE == src, "ANY_TAG: source %d, expected %d", st.MPI_SOURCE, src);
      CHECK(st.MPI_TAG == tag_of(src, 0), "ANY_TAG from %d: tag %d, expected %d", src, st.MPI_TAG,
            tag_of(src, 0));
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == len_of(src, 0), "count %d expected %d", count, len_of(src, 0));
      CHECK_PATTERN(rbuf, (size_t)count, empi_seed(src, 0, 0));
      got[src * PER_SENDER] = 1;
    }
    /* Third: full wildcards for the rest; the status says which message arrived. */
    for (int n = 0; n < size * (PER_SENDER - 2); n++) {
      MPI_Status st;
      int count = -1;
      CHECK_MPI(MPI_Recv(rbuf, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE, k = st.MPI_TAG - 100 - src * 10;
      CHECK(src >= 0 && src < size && k > 0 && k < PER_SENDER - 1, "unexpected src %d tag %d",
            src, st.MPI_TAG);
      CHECK(!got[src * PER_SENDER + k], "message src %d k %d received twice", src, k);
      /* Messages from one source with ANY_TAG come in send order. */
      CHECK(got[src * PER_SENDER + k - 1], "src %d message %d received before %d", src, k, k - 1);
      got[src * PER_SENDER + k] = 1;
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == len_of(src, k), "count %d expected %d", count, len_of(src, k));
      CHECK_PATTERN(rbuf, (size_t)count, empi_seed(src, 0, k));
    }
    for (int i = 0; i < size * PER_SENDER; i++) CHECK(got[i], "message %d never received", i);
    free(got);
  }
  CHECK_MPI(MPI_Waitall(PER_SENDER, req, MPI_STATUSES_IGNORE));
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
