/*
 * Concurrent communicator creation under MPI_THREAD_MULTIPLE. Each thread owns a communicator
 * duplicated for it beforehand and repeatedly dups *that* one (so collective calls on any one
 * communicator are issued by one thread per rank, as the standard requires), then uses and
 * frees the result, by MPI_Comm_dup and MPI_Comm_idup in turn. Context ids allocated concurrently
 * must not collide: every message and reduction carries the thread id and iteration, so
 * cross-matching is detected; and agreements running at once must not keep failing each other
 * (threads' idup loops livelocked at 8 processes before retries were randomized).
 */
#include "empi_test.h"

#include <pthread.h>

enum { NT = 4, ITERS = 40 };

static MPI_Comm g_base[NT];
static int g_rank, g_size;

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int it = 0; it < ITERS; it++) {
    MPI_Comm c;
    int cmpres = -1;
    if (it % 2) {
      MPI_Request q;
      CHECK_MPI(MPI_Comm_idup(g_base[t], &c, &q));
      CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Comm_dup(g_base[t], &c));
    }
    CHECK_MPI(MPI_Comm_compare(c, g_base[t], &cmpres));
    CHECK(cmpres == MPI_CONGRUENT, "thread %d: dup not congruent", t);
    int key = t * 100000 + it * 100, out = key + g_rank, in = -1;
    int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    /* Same tag (0) in every thread: only the communicator keeps the threads apart. */
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, right, 0, &in, 1, MPI_INT, left, 0, c,
                           MPI_STATUS_IGNORE));
    CHECK(in == key + left, "thread %d iter %d: got %d, expected %d (context collision?)", t, it,
          in, key + left);
    int sum = -1;
    CHECK_MPI(MPI_Allreduce(&key, &sum, 1, MPI_INT, MPI_MAX, c));
    CHECK(sum == key, "thread %d iter %d: Allreduce gave %d", t, it, sum);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided thread level %d, wanted MULTIPLE", provided);
  g_rank = empi_rank();
  g_size = empi_size();
  for (int t = 0; t < NT; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &g_base[t]));
  pthread_t th[NT];
  for (int t = 0; t < NT; t++)
    CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
  for (int t = 0; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0, "pthread_join");
  for (int t = 0; t < NT; t++) CHECK_MPI(MPI_Comm_free(&g_base[t]));
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
