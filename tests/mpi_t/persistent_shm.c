/*
 * A persistent collective made on a communicator that has not run any collective yet (so it has
 * no shared segment) still runs on shared memory: *_init gives its private duplicate the segment.
 * Seen through empi_pt2pt_sends: with EMPI_ALLREDUCE_ALGORITHM=shm no point-to-point message may
 * leave this rank during the started operations, and every result is checked.
 */
#include "mpit_test.h"

int main(int argc, char **argv) {
  int provided, size = 0;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_size(comm, &size));
  enum { N = 1000 };
  static double in[N], out[N];
  MPI_Request req;
  CHECK_MPI(MPI_Allreduce_init(in, out, N, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &req));

  MPI_T_pvar_session session;
  MPI_T_pvar_handle sends;
  CHECK_T(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
  sends = mpit_counter_handle(session, "empi_pt2pt_sends");
  CHECK_T(MPI_T_pvar_start(session, sends), MPI_SUCCESS);
  for (int round = 0; round < 20; round++) {
    for (int i = 0; i < N; i++)
      in[i] = empi_rank() * 1000.0 + i + round;
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) {
      double want = 1000.0 * size * (size - 1) / 2 + (double)size * (i + round);
      CHECK(out[i] == want, "round %d: out[%d] = %g, want %g", round, i, out[i], want);
    }
  }
  CHECK_T(MPI_T_pvar_stop(session, sends), MPI_SUCCESS);
  unsigned long long sent = 0;
  CHECK_T(MPI_T_pvar_read(session, sends, &sent), MPI_SUCCESS);
  CHECK(sent == 0, "%llu point-to-point sends during shared-memory persistent allreduces", sent);
  CHECK_T(MPI_T_pvar_handle_free(session, &sends), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_session_free(&session), MPI_SUCCESS);
  CHECK_MPI(MPI_Request_free(&req));
  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
