/*
 * Communicator churn: many dup/free cycles must not exhaust or reuse context ids unsafely.
 * Each new communicator carries traffic (ring message + Allreduce) before it is freed, and a
 * batch of communicators held at once is freed in scrambled order and then recreated.
 */
#include "empi_test.h"

enum { CYCLES = 200, HELD = 32, ROUNDS = 2 };

static void use(MPI_Comm comm, int salt) {
  int rank, size, sum = 0, got = -1, out;
  CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CHECK_MPI(MPI_Comm_size(comm, &size));
  out = salt * 1000 + rank;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, salt % 32768, &got, 1, MPI_INT,
                         (rank + size - 1) % size, salt % 32768, comm, MPI_STATUS_IGNORE));
  CHECK(got == salt * 1000 + (rank + size - 1) % size, "comm %d: ring got %d", salt, got);
  CHECK_MPI(MPI_Allreduce(&salt, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == salt * size, "comm %d: Allreduce %d", salt, sum);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));

  for (int i = 0; i < CYCLES; i++) {
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(i % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF, &c));
    use(c, i);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "free did not null");
  }

  /* Hold many at once; leave messages pending on some while creating others. */
  MPI_Comm held[HELD];
  for (int round = 0; round < ROUNDS; round++) {
    for (int i = 0; i < HELD; i++) {
      CHECK_MPI(MPI_Comm_dup(i == 0 ? MPI_COMM_WORLD : held[i - 1], &held[i]));
    }
    for (int i = HELD - 1; i >= 0; i--) use(held[i], round * HELD + i);
    /* Free odd ones in reverse, recreate them from WORLD, then free everything forward. */
    for (int i = HELD - 1; i >= 0; i -= 2) CHECK_MPI(MPI_Comm_free(&held[i]));
    for (int i = 1; i < HELD; i += 2) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &held[i]));
    for (int i = 0; i < HELD; i++) use(held[i], 5000 + round * HELD + i);
    for (int i = 0; i < HELD; i++) CHECK_MPI(MPI_Comm_free(&held[i]));
  }
  use(MPI_COMM_WORLD, 9999);

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
