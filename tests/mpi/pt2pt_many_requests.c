/*
 * Many outstanding requests: ranks pair up (0-1, 2-3, ...; an odd one out talks to itself) and
 * each posts NREQ receives, then NREQ small sends, all in flight at once, completed by one
 * Waitall. Message i must land in receive i (same source and tag, so order decides).
 */
#include "empi_test.h"

#include <stdlib.h>

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int nreq = argc > 1 ? atoi(argv[1]) : 100000;
  CHECK(nreq > 0, "bad request count %d", nreq);
  int peer = rank ^ 1;
  if (peer >= size) peer = rank;

  uint32_t *in = malloc(sizeof(uint32_t) * (size_t)nreq);
  uint32_t *out = malloc(sizeof(uint32_t) * (size_t)nreq);
  MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t)nreq);
  CHECK(in && out && req, "malloc");
  for (int i = 0; i < nreq; i++) {
    in[i] = 0xffffffffu;
    out[i] = empi_seed(rank, peer, i);
  }
  for (int i = 0; i < nreq; i++)
    CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_UINT32_T, peer, 7, MPI_COMM_WORLD, &req[i]));
  for (int i = 0; i < nreq; i++)
    CHECK_MPI(MPI_Isend(&out[i], 1, MPI_UINT32_T, peer, 7, MPI_COMM_WORLD, &req[nreq + i]));
  CHECK_MPI(MPI_Waitall(2 * nreq, req, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 2 * nreq; i++) CHECK(req[i] == MPI_REQUEST_NULL, "request %d not freed", i);
  for (int i = 0; i < nreq; i++)
    CHECK(in[i] == empi_seed(peer, rank, i), "receive %d got %u, expected %u", i, (unsigned)in[i],
          (unsigned)empi_seed(peer, rank, i));

  free(in);
  free(out);
  free(req);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
