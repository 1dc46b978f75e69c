/*
 * On one node, a message above the eager limit goes eagerly when it fits a shared-memory cell the
 * sender holds (transport eager_fits): in a ping-pong the pair's cells swap sides at every message,
 * so all of them are eager (but the first after a window, which took the cells away); in a one-way
 * stream the sender soon holds none, and the rest go by rendezvous. With single copy (argument
 * "cma", run with EMPI_SHM_CMA=on) a contiguous message with no other send in flight goes by
 * rendezvous instead, so the whole contiguous ping-pong does, while the vector one stays eager.
 * Contiguous and vector messages of 20000 and 32000 bytes, every byte checked, and the protocol of
 * each counted with the pt2pt pvars. Ranks beyond 1 only take part in MPI_T.
 */
#include <stdlib.h>
#include <string.h>

#include "mpit_test.h"

#define ROUNDS 10
#define WINDOW 64

static MPI_T_pvar_session session;
static MPI_T_pvar_handle eager_h, rndv_h;

static void counters(unsigned long long *eager, unsigned long long *rndv) {
  CHECK_T(MPI_T_pvar_read(session, eager_h, eager), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_read(session, rndv_h, rndv), MPI_SUCCESS);
}

/* n bytes as one vector element of 1000-byte blocks (stride 1500) or n chars. */
static MPI_Datatype layout(int n, int vector, int *count) {
  MPI_Datatype t = MPI_CHAR;
  *count = n;
  if (vector) {
    CHECK_MPI(MPI_Type_vector(n / 1000, 1000, 1500, MPI_CHAR, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    *count = 1;
  }
  return t;
}

static void check_bytes(const char *buf, int n, int vector, uint32_t seed, const char *what) {
  char *want = malloc((size_t)n);
  empi_fill(want, (size_t)n, seed);
  for (int i = 0; i < n; i++) {
    size_t at = vector ? (size_t)(i / 1000) * 1500 + (size_t)(i % 1000) : (size_t)i;
    if (buf[at] != want[i]) {
      CHECK(0, "%s: byte %d wrong", what, i);
      break;
    }
  }
  free(want);
}

static void fill_bytes(char *buf, int n, int vector, uint32_t seed) {
  char *src = malloc((size_t)n);
  empi_fill(src, (size_t)n, seed);
  for (int i = 0; i < n; i++)
    buf[vector ? (size_t)(i / 1000) * 1500 + (size_t)(i % 1000) : (size_t)i] = src[i];
  free(src);
}

int main(int argc, char **argv) {
  int provided, count;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  int rank = empi_rank(), cma = argc > 1 && strcmp(argv[1], "cma") == 0;
  unsigned long long limit;
  mpit_cvar_rw("empi_eager_limit", &limit, NULL);
  CHECK_T(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
  eager_h = mpit_counter_handle(session, "empi_pt2pt_eager_sends");
  rndv_h = mpit_counter_handle(session, "empi_pt2pt_rndv_sends");
  CHECK_T(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  static const int sizes[] = {20000, 32000};
  char *buf = malloc((size_t)WINDOW * 48000);
  for (int s = 0; s < 2 && rank < 2; s++) {
    int n = sizes[s];
    CHECK(n > (int)limit, "%d bytes is not above the eager limit %llu", n, limit);
    for (int vector = 0; vector < 2; vector++) {
      MPI_Datatype t = layout(n, vector, &count);
      /* Ping-pong: every message eager. */
      unsigned long long e0, r0, e1, r1;
      counters(&e0, &r0);
      for (int i = 0; i < ROUNDS; i++) {
        uint32_t seed = empi_seed(0, 1, 100 * s + 10 * vector + i);
        if (rank == 0) {
          fill_bytes(buf, n, vector, seed);
          CHECK_MPI(MPI_Send(buf, count, t, 1, i, MPI_COMM_WORLD));
          CHECK_MPI(MPI_Recv(buf, count, t, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
          check_bytes(buf, n, vector, seed + 1, "ping-pong reply");
        } else {
          CHECK_MPI(MPI_Recv(buf, count, t, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
          check_bytes(buf, n, vector, seed, "ping-pong message");
          fill_bytes(buf, n, vector, seed + 1);
          CHECK_MPI(MPI_Send(buf, count, t, 0, i, MPI_COMM_WORLD));
        }
      }
      counters(&e1, &r1);
      /* (the first message may find every cell on the other side, after a window) */
      if (cma && !vector)
        CHECK(e1 - e0 == 0 && r1 - r0 == ROUNDS,
              "ping-pong of %d bytes with single copy: %llu eager, %llu rendezvous sends, expected %d rendezvous",
              n, e1 - e0, r1 - r0, ROUNDS);
      else
        CHECK(e1 - e0 >= ROUNDS - 1 && e1 - e0 + r1 - r0 == ROUNDS,
              "ping-pong of %d bytes (vector %d): %llu eager, %llu rendezvous sends, expected %d eager", n, vector,
              e1 - e0, r1 - r0, ROUNDS - 1);
      /* A one-way window: once the sender's cells are at the receiver, rendezvous. */
      MPI_Request rq[WINDOW];
      size_t span = vector ? 48000 : (size_t)n;
      for (int w = 0; w < WINDOW; w++) {
        char *b = buf + (size_t)w * span;
        if (rank == 0) {
          fill_bytes(b, n, vector, empi_seed(0, 1, 1000 + w));
          CHECK_MPI(MPI_Isend(b, count, t, 1, 500 + w, MPI_COMM_WORLD, &rq[w]));
        } else {
          CHECK_MPI(MPI_Irecv(b, count, t, 0, 500 + w, MPI_COMM_WORLD, &rq[w]));
        }
      }
      CHECK_MPI(MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE));
      for (int w = 0; rank == 1 && w < WINDOW; w++)
        check_bytes(buf + (size_t)w * span, n, vector, empi_seed(0, 1, 1000 + w), "window message");
      counters(&e0, &r0);
      if (rank == 0)
        CHECK(r0 - r1 >= WINDOW / 2, "a one-way window of %d messages of %d bytes: only %llu by rendezvous", WINDOW,
              n, r0 - r1);
      if (vector)
        MPI_Type_free(&t);
    }
  }
  free(buf);
  mpit_counting_done(&session, (MPI_T_pvar_handle[]){eager_h, rndv_h}, 2);
  return 0;
}
