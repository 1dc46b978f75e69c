/*
 * Where single copy (CMA) serves only large messages (EMPI_SHM_CMA=large, as "auto" decides on a
 * host where CMA is slow), a message below EMPI_SHM_CMA_LARGE_MIN goes through the rings and one
 * from it is read from the sender's buffer (counted by empi_pt2pt_coop_recvs: the receiver, with
 * no sends of its own in flight, lets the waiting sender help). Contiguous and vector messages
 * on either side of the threshold, every byte checked; a forced single-copy allreduce runs its
 * shared-buffer form and gives the right result.
 */
#include <stdlib.h>
#include <string.h>

#include "mpit_test.h"

static MPI_T_pvar_session session;
static MPI_T_pvar_handle coop_h;

static unsigned long long coop_recvs(void) {
  unsigned long long v;
  CHECK_T(MPI_T_pvar_read(session, coop_h, &v), MPI_SUCCESS);
  return v;
}

/* Rank 0 sends n bytes (as n chars, or 1000-byte blocks at a stride of 1500) to rank 1, which checks
   them; returns how many messages rank 1 counted as single-copy reads meanwhile. */
static unsigned long long one_message(char *buf, int n, int vector, int seq) {
  MPI_Datatype t = MPI_CHAR;
  int count = n;
  if (vector) {
    CHECK_MPI(MPI_Type_vector(n / 1000, 1000, 1500, MPI_CHAR, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    count = 1;
  }
  int rank = empi_rank();
  char *packed = malloc((size_t)n);
  empi_fill(packed, (size_t)n, empi_seed(0, 1, seq));
  unsigned long long before = coop_recvs();
  if (rank == 0) {
    for (int i = 0; i < n; i++)
      buf[vector ? (size_t)(i / 1000) * 1500 + (size_t)(i % 1000) : (size_t)i] = packed[i];
    CHECK_MPI(MPI_Send(buf, count, t, 1, seq, MPI_COMM_WORLD));
  } else if (rank == 1) {
    memset(buf, 0, (size_t)n / 1000 * 1500 + 1000);
    CHECK_MPI(MPI_Recv(buf, count, t, 0, seq, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
      if (buf[vector ? (size_t)(i / 1000) * 1500 + (size_t)(i % 1000) : (size_t)i] != packed[i]) {
        CHECK(0, "message %d (%d bytes, vector %d): byte %d wrong", seq, n, vector, i);
        break;
      }
  }
  free(packed);
  if (vector)
    CHECK_MPI(MPI_Type_free(&t));
  return coop_recvs() - before;
}

int main(int argc, char **argv) {
  int provided, count;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  unsigned long long large_min;
  mpit_cvar_rw("empi_shm_cma_large_min", &large_min, NULL);
  CHECK(large_min == 256 * 1024, "EMPI_SHM_CMA_LARGE_MIN %llu, the test sets 256k", large_min);
  CHECK_T(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_handle_alloc(session, mpit_pvar("empi_pt2pt_coop_recvs", MPI_T_PVAR_CLASS_COUNTER), NULL,
                                  &coop_h, &count),
          MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  int rank = empi_rank();
  char *buf = malloc((size_t)3 << 20);
  static const int below[] = {100000, 262143}, above[] = {262144, 1048579};
  for (int i = 0; i < 2; i++) {
    unsigned long long c = one_message(buf, below[i], 0, 10 + i);
    CHECK(rank != 1 || c == 0, "%d bytes, below the threshold: %llu single-copy reads", below[i], c);
    c = one_message(buf, above[i], 0, 20 + i);
    CHECK(rank != 1 || c == 1, "%d bytes, from the threshold: %llu single-copy reads, want 1", above[i], c);
    one_message(buf, below[i] / 1000 * 1000, 1, 30 + i);
    one_message(buf, above[i] / 1000 * 1000, 1, 40 + i);
  }
  /* a collective's single-copy algorithm, forced (the test's environment), runs its shared-buffer
     form where CMA is only for large messages */
  int n = 1 << 18, *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
  int size;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  for (int i = 0; i < n; i++)
    in[i] = i ^ rank;
  CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < n; i++) {
    long long want = 0;
    for (int r = 0; r < size; r++)
      want += i ^ r;
    if (out[i] != (int)want) {
      CHECK(0, "allreduce element %d: %d, want %lld", i, out[i], want);
      break;
    }
  }
  free(in);
  free(out);
  free(buf);
  CHECK_T(MPI_T_pvar_handle_free(session, &coop_h), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_session_free(&session), MPI_SUCCESS);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
