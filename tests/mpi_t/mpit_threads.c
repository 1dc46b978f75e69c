/*
 * MPI_T under MPI_THREAD_MULTIPLE: one thread reads and restarts performance variables and reads
 * and writes a live cvar while another thread of the same process sends to itself. The final
 * count must be exact, and nothing may race (run under ThreadSanitizer too).
 */
#include <pthread.h>

#include "mpit_test.h"

enum { NMSG = 2000 };

static void *sender(void *arg) {
  (void)arg;
  int v = 0;
  for (int i = 0; i < NMSG; i++) {
    MPI_Request r;
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, empi_rank(), 9, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Send(&i, 1, MPI_INT, empi_rank(), 9, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(v == i, "received %d, sent %d", v, i);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided, count;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  CHECK_T(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
  MPI_T_pvar_session s;
  MPI_T_pvar_handle sends, posted;
  CHECK_T(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_handle_alloc(s, mpit_pvar("empi_pt2pt_sends", MPI_T_PVAR_CLASS_COUNTER), NULL, &sends, &count),
          MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_handle_alloc(s, mpit_pvar("empi_pt2pt_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL), NULL,
                                  &posted, &count), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_start(s, sends), MPI_SUCCESS);

  pthread_t t;
  CHECK(pthread_create(&t, NULL, sender, NULL) == 0, "pthread_create");
  unsigned long long v, last = 0, q;
  int spin;
  for (int i = 0; i < 200; i++) {
    CHECK_T(MPI_T_pvar_read(s, sends, &v), MPI_SUCCESS);
    CHECK(v >= last && v <= NMSG, "sends went from %llu to %llu", last, v);
    last = v;
    CHECK_T(MPI_T_pvar_read(s, posted, &q), MPI_SUCCESS);
    CHECK(q <= 1, "posted queue length %llu", q);
    mpit_cvar_rw("empi_spin_count", &spin, &spin);
  }
  CHECK(pthread_join(t, NULL) == 0, "pthread_join");
  CHECK_T(MPI_T_pvar_stop(s, sends), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_read(s, sends, &v), MPI_SUCCESS);
  CHECK(v == NMSG, "counted %llu sends, made %d", v, NMSG);
  CHECK_T(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
