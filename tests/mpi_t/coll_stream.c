/*
 * Shared-memory alltoall's and allgather's blocks written into the node segment cached or streamed
 * (EMPI_COLL_SHM_STREAM; run with both algorithms forced to shm). argv[1] names the setting: "on"
 * streams every piece of blocks from 4 KiB, "off" none, "auto" alternates cached and streamed over
 * a size's first six calls and then keeps either. Blocks of 64 KiB + 3 bytes (streamed stores
 * with ragged ends) and of 100 bytes (never streamed), every byte checked at every call;
 * empi_coll_shm_streamed_pieces counts the choices.
 */
#include <stdlib.h>
#include <string.h>

#include "mpit_test.h"

#define CALLS 10

static MPI_T_pvar_session session;
static MPI_T_pvar_handle streamed_h;

/* CALLS alltoalls (or allgathers) of n-byte blocks; returns the pieces this rank streamed. */
static unsigned long long calls(int gather, int n, int rank, int p) {
  char *sbuf = malloc((size_t)n * p), *rbuf = malloc((size_t)n * p), *want = malloc((size_t)n);
  unsigned long long s0 = mpit_pvar_value(session, streamed_h);
  for (int call = 0; call < CALLS; call++) {
    for (int d = 0; d < p; d++)
      empi_fill(sbuf + (size_t)d * n, (size_t)n, empi_seed(rank, gather ? 0 : d, n + call));
    memset(rbuf, 0, (size_t)n * p);
    if (gather)
      CHECK_MPI(MPI_Allgather(sbuf, n, MPI_CHAR, rbuf, n, MPI_CHAR, MPI_COMM_WORLD));
    else
      CHECK_MPI(MPI_Alltoall(sbuf, n, MPI_CHAR, rbuf, n, MPI_CHAR, MPI_COMM_WORLD));
    for (int src = 0; src < p; src++) {
      empi_fill(want, (size_t)n, empi_seed(src, gather ? 0 : rank, n + call));
      CHECK(memcmp(rbuf + (size_t)src * n, want, (size_t)n) == 0, "%s call %d, %d-byte block from rank %d wrong",
            gather ? "allgather" : "alltoall", call, n, src);
    }
  }
  free(sbuf);
  free(rbuf);
  free(want);
  return mpit_pvar_value(session, streamed_h) - s0;
}

int main(int argc, char **argv) {
  int provided;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  CHECK(argc > 1, "usage: coll_stream on|off|auto");
  int rank = empi_rank(), p = empi_size();
  CHECK_T(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
  streamed_h = mpit_counter_handle(session, "empi_coll_shm_streamed_pieces");
  CHECK_T(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  for (int gather = 0; gather < 2; gather++) {
    const char *name = gather ? "allgather" : "alltoall";
    unsigned long long small = calls(gather, 100, rank, p), big = calls(gather, 65539, rank, p);
    if (p == 1)   /* one rank alone moves nothing through the segment */
      continue;
    CHECK(small == 0, "%s, 100-byte blocks: %llu pieces streamed", name, small);
    if (strcmp(argv[1], "on") == 0)
      CHECK(big == CALLS, "%s, on: %llu of %d pieces streamed", name, big, CALLS);
    else if (strcmp(argv[1], "off") == 0)
      CHECK(big == 0, "%s, off: %llu pieces streamed", name, big);
    else
      CHECK(big >= 3 && big <= CALLS - 3, "%s, auto: %llu of %d pieces streamed, the first six alternate", name, big,
            CALLS);
  }
  mpit_counting_done(&session, (MPI_T_pvar_handle[]){streamed_h}, 1);
  return 0;
}
