/*
 * MPI_THREAD_MULTIPLE point-to-point: NT threads per rank exchange messages around the ring at
 * the same time. Even threads share MPI_COMM_WORLD and are kept apart by their tag; odd threads
 * use a communicator of their own. Payloads name (sender, thread, round) so cross-delivery
 * between threads is caught.
 */
#include "empi_test.h"

#include <pthread.h>
#include <stdlib.h>

enum { NT = 4, ROUNDS = 100, MAXLEN = 20000 };

static int g_rank, g_size;
static MPI_Comm g_comm[NT];

static int len_of(int round) { return (round * 997) % MAXLEN; }

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
  MPI_Comm comm = g_comm[t];
  int tag = t % 2 == 0 ? 100 + t : 0;
  unsigned char *sb = malloc(MAXLEN), *rb = malloc(MAXLEN);
  CHECK(sb && rb, "malloc");
  int flag = 1;
  CHECK_MPI(MPI_Is_thread_main(&flag));
  CHECK(!flag, "Is_thread_main true in a created thread");
  for (int r = 0; r < ROUNDS; r++) {
    MPI_Request rq[2];
    MPI_Status st;
    int n = len_of(r), count = -1;
    empi_fill(sb, (size_t)n, empi_seed(g_rank, t, r));
    CHECK_MPI(MPI_Irecv(rb, MAXLEN, MPI_BYTE, left, tag, comm, &rq[0]));
    if (r % 2 == 0 || g_size == 1) {
      /* Nonblocking send (always at size 1, where a blocking send to self could hang). */
      CHECK_MPI(MPI_Isend(sb, n, MPI_BYTE, right, tag, comm, &rq[1]));
      CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Send(sb, n, MPI_BYTE, right, tag, comm));
    }
    CHECK_MPI(MPI_Wait(&rq[0], &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == n && st.MPI_TAG == tag && st.MPI_SOURCE == left,
          "thread %d round %d: count %d (want %d) tag %d src %d", t, r, count, n, st.MPI_TAG,
          st.MPI_SOURCE);
    CHECK_PATTERN(rb, (size_t)n, empi_seed(left, t, r));
  }
  free(sb);
  free(rb);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided thread level %d, wanted MULTIPLE", provided);
  int level = -1;
  CHECK_MPI(MPI_Query_thread(&level));
  CHECK(level == provided, "Query_thread %d != provided %d", level, provided);
  g_rank = empi_rank();
  g_size = empi_size();
  for (int t = 0; t < NT; t++) {
    if (t % 2 == 0) g_comm[t] = MPI_COMM_WORLD;
    else CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &g_comm[t]));
  }
  pthread_t th[NT];
  for (int t = 0; t < NT; t++)
    CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
  for (int t = 0; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0, "pthread_join");
  for (int t = 0; t < NT; t++)
    if (t % 2 == 1) CHECK_MPI(MPI_Comm_free(&g_comm[t]));
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
