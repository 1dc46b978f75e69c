/*
 * The channel of rendezvous data on one node (run with EMPI_SHM_CMA=off, EMPI_BULK_THRESHOLD=64k,
 * EMPI_SHM_CELLS=8, EMPI_SHM_RNDV_CHUNK=32k: cells hold 256 KiB). A message that is all its receiver
 * expects and that the cells hold whole comes through the packet channel (a ping-pong of 100000 and
 * 262144 bytes); a bigger one (300000), a window's messages but the last, and both of an exchange
 * come on the bulk channel. empi_pt2pt_bulk_recvs counts; every byte checked. Ranks beyond 1 idle.
 */
#include <stdlib.h>

#include "mpit_test.h"

#define ROUNDS 6
#define WINDOW 4

static MPI_T_pvar_session session;
static MPI_T_pvar_handle bulk_h;

static unsigned long long bulk_recvs(void) { return mpit_pvar_value(session, bulk_h); }

static void check_bytes(const char *buf, size_t n, uint32_t seed, const char *what) {
  char *want = malloc(n);
  empi_fill(want, n, seed);
  for (size_t i = 0; i < n; i++)
    if (buf[i] != want[i]) {
      CHECK(0, "%s of %zu bytes: byte %zu wrong", what, n, i);
      break;
    }
  free(want);
}

/* ROUNDS round trips of n bytes; returns this rank's bulk receives during them. */
static unsigned long long ping_pong(int rank, char *buf, size_t n) {
  unsigned long long b0 = bulk_recvs();
  for (int i = 0; i < ROUNDS; i++) {
    uint32_t seed = empi_seed(0, 1, (int)n + i);
    if (rank == 0) {
      empi_fill(buf, n, seed);
      CHECK_MPI(MPI_Send(buf, (int)n, MPI_CHAR, 1, i, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(buf, (int)n, MPI_CHAR, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      check_bytes(buf, n, seed + 1, "reply");
    } else {
      CHECK_MPI(MPI_Recv(buf, (int)n, MPI_CHAR, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      check_bytes(buf, n, seed, "message");
      empi_fill(buf, n, seed + 1);
      CHECK_MPI(MPI_Send(buf, (int)n, MPI_CHAR, 0, i, MPI_COMM_WORLD));
    }
  }
  return bulk_recvs() - b0;
}

int main(int argc, char **argv) {
  int provided;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  int rank = empi_rank();
  CHECK_T(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
  bulk_h = mpit_counter_handle(session, "empi_pt2pt_bulk_recvs");
  CHECK_T(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  const size_t big = 300000, n = 100000;
  char *buf = malloc(WINDOW * big), *other = malloc(big);
  if (rank < 2) {
    unsigned long long got;
    CHECK((got = ping_pong(rank, buf, n)) == 0, "ping-pong of %zu bytes: %llu bulk receives, expected 0", n, got);
    CHECK((got = ping_pong(rank, buf, 262144)) == 0, "ping-pong of 262144 bytes: %llu bulk receives, expected 0",
          got);
    CHECK((got = ping_pong(rank, buf, big)) == ROUNDS, "ping-pong of %zu bytes: %llu bulk receives, expected %d",
          big, got, ROUNDS);

    /* A window: every receive posted before the sender starts, so all but the last find others posted. */
    unsigned long long b0 = bulk_recvs();
    MPI_Request rq[WINDOW];
    for (int w = 0; rank == 1 && w < WINDOW; w++)
      CHECK_MPI(MPI_Irecv(buf + w * n, (int)n, MPI_CHAR, 0, 100 + w, MPI_COMM_WORLD, &rq[w]));
    CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_CHAR, 1 - rank, 99, NULL, 0, MPI_CHAR, 1 - rank, 99, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    for (int w = 0; rank == 0 && w < WINDOW; w++) {
      empi_fill(buf + w * n, n, empi_seed(0, 1, 100 + w));
      CHECK_MPI(MPI_Isend(buf + w * n, (int)n, MPI_CHAR, 1, 100 + w, MPI_COMM_WORLD, &rq[w]));
    }
    CHECK_MPI(MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE));
    for (int w = 0; rank == 1 && w < WINDOW; w++)
      check_bytes(buf + w * n, n, empi_seed(0, 1, 100 + w), "window message");
    if (rank == 1)
      CHECK((got = bulk_recvs() - b0) >= WINDOW - 1, "window of %d: %llu bulk receives, expected at least %d",
            WINDOW, got, WINDOW - 1);

    /* An exchange: each side's own send is in flight when the other's offer arrives. */
    b0 = bulk_recvs();
    for (int i = 0; i < ROUNDS; i++) {
      empi_fill(buf, n, empi_seed(rank, 1 - rank, i));
      CHECK_MPI(MPI_Sendrecv(buf, (int)n, MPI_CHAR, 1 - rank, 7, other, (int)n, MPI_CHAR, 1 - rank, 7,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      check_bytes(other, n, empi_seed(1 - rank, rank, i), "exchanged message");
    }
    CHECK((got = bulk_recvs() - b0) == ROUNDS, "%d exchanges of %zu bytes: %llu bulk receives, expected %d", ROUNDS,
          n, got, ROUNDS);
  }
  free(buf);
  free(other);
  mpit_counting_done(&session, (MPI_T_pvar_handle[]){bulk_h}, 1);
  return 0;
}
