/*
 * Where single copy (CMA) serves only large messages (EMPI_SHM_CMA=large, as "auto" decides on a
 * host where CMA is slow), a message below EMPI_SHM_CMA_LARGE_MIN goes through the rings and one
 * from it is read from the sender's buffer (counted by empi_pt2pt_coop_recvs: the receiver, with
 * no sends of its own in flight, lets the waiting sender help). Contiguous and vector messages
 * on either side of the threshold, every byte checked; a forced single-copy allreduce runs its
 * shared-buffer form and gives the right result, and a collective's large point-to-point messages
 * (a binomial bcast, forced) go through the rings. An exchange (MPI_Sendrecv) goes through the
 * rings up to EMPI_SHM_CMA_EXCHANGE_MAX and is read single copy above it.
 */
#include <stdlib.h>
#include <string.h>

#include "mpit_test.h"

static MPI_T_pvar_session session;
static MPI_T_pvar_handle coop_h, single_h;

static unsigned long long coop_recvs(void) { return mpit_pvar_value(session, coop_h); }

static unsigned long long single_copy_recvs(void) { return mpit_pvar_value(session, single_h); }

/* Ranks 0 and 1 swap n bytes with MPI_Sendrecv and check them; returns this rank's single-copy
   reads meanwhile. With `probed`, rank 1 waits for rank 0's offer before it posts anything, so
   only the offer can tell it that rank 0 is receiving too. */
static unsigned long long exchange(int n, int seq, int probed) {
  int rank = empi_rank();
  if (rank > 1)
    return 0;
  char *out = malloc((size_t)n), *in = malloc((size_t)n), *want = malloc((size_t)n);
  empi_fill(out, (size_t)n, empi_seed(rank, 1 - rank, seq));
  empi_fill(want, (size_t)n, empi_seed(1 - rank, rank, seq));
  unsigned long long before = single_copy_recvs();
  if (probed) {
    MPI_Request r[2];
    if (rank == 1)
      CHECK_MPI(MPI_Probe(0, seq, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Irecv(in, n, MPI_CHAR, 1 - rank, seq, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Isend(out, n, MPI_CHAR, 1 - rank, seq, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  } else {
    CHECK_MPI(MPI_Sendrecv(out, n, MPI_CHAR, 1 - rank, seq, in, n, MPI_CHAR, 1 - rank, seq, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
  }
  CHECK(memcmp(in, want, (size_t)n) == 0, "exchange of %d bytes: wrong data", n);
  free(out);
  free(in);
  free(want);
  return single_copy_recvs() - before;
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
  int provided;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  unsigned long long large_min;
  mpit_cvar_rw("empi_shm_cma_large_min", &large_min, NULL);
  CHECK(large_min == 256 * 1024, "EMPI_SHM_CMA_LARGE_MIN %llu, the test sets 256k", large_min);
  CHECK_T(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
  coop_h = mpit_counter_handle(session, "empi_pt2pt_coop_recvs");
  single_h = mpit_counter_handle(session, "empi_pt2pt_single_copy_recvs");
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
  /* an exchange up to EMPI_SHM_CMA_EXCHANGE_MAX (the test sets 512k) goes through the rings */
  for (int probed = 0; probed < 2; probed++) {
    unsigned long long x = exchange(300000, 50 + probed, probed);
    /* probed, rank 0's send may be over before rank 1's offer comes: then it is no exchange */
    CHECK(x == 0 || (probed && rank == 0), "exchange of 300000 bytes (probed %d): %llu single-copy reads, want 0",
          probed, x);
    x = exchange(600000, 52 + probed, probed);
    CHECK(rank > 1 || x == 1, "exchange of 600000 bytes (probed %d): %llu single-copy reads, want 1", probed, x);
  }
  /* a collective's own messages from the threshold are not read single copy */
  for (int i = 0; i < 3 << 20; i++)
    buf[i] = rank == 0 ? (char)(i * 7 + 1) : 0;
  unsigned long long before = single_copy_recvs();
  CHECK_MPI(MPI_Bcast(buf, 3 << 20, MPI_CHAR, 0, MPI_COMM_WORLD));
  unsigned long long coll_reads = single_copy_recvs() - before;
  CHECK(coll_reads == 0, "bcast of 3 MiB: %llu single-copy reads, want 0", coll_reads);
  for (int i = 0; i < 3 << 20; i++)
    if (buf[i] != (char)(i * 7 + 1)) {
      CHECK(0, "bcast byte %d wrong", i);
      break;
    }
  free(in);
  free(out);
  free(buf);
  mpit_counting_done(&session, (MPI_T_pvar_handle[]){coop_h, single_h}, 2);
  return 0;
}
