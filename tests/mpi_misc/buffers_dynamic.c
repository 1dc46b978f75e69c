/*
 * MPI-4.1 buffered-send buffers per communicator and per session (attach, flush, iflush, detach,
 * which buffer a Bsend uses), MPI_Buffer_iflush, MPI_Comm_get_parent and MPI_Comm_disconnect.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

#define N 64

static void ring_bsend(MPI_Comm c, int tag) {
  int r, n, out[N], in[N];
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK_MPI(MPI_Comm_size(c, &n));
  for (int i = 0; i < N; i++)
    out[i] = r * 1000 + i + tag;
  MPI_Request rq;
  CHECK_MPI(MPI_Irecv(in, N, MPI_INT, (r + n - 1) % n, tag, c, &rq));
  CHECK_MPI(MPI_Bsend(out, N, MPI_INT, (r + 1) % n, tag, c));
  for (int i = 0; i < N; i++)
    out[i] = -1; /* the buffered copy must not change */
  CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  for (int i = 0; i < N; i++)
    CHECK(in[i] == ((r + n - 1) % n) * 1000 + i + tag, "bsend data [%d] = %d", i, in[i]);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int size = MPI_BSEND_OVERHEAD * 4 + 4 * N * (int)sizeof(int);
  char *cbuf = malloc((size_t)size), *pbuf = malloc((size_t)size), *sbuf = malloc((size_t)size);
  CHECK(cbuf && pbuf && sbuf, "malloc");
  int one = 1;

  /* A communicator buffer serves that communicator only. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_attach_buffer(dup, cbuf, size));
  CHECK_ERR(MPI_Comm_attach_buffer(dup, cbuf, size), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Bsend(&one, 1, MPI_INT, 0, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  ring_bsend(dup, 3);
  CHECK_MPI(MPI_Comm_flush_buffer(dup));
  ring_bsend(dup, 4);
  MPI_Request fr;
  CHECK_MPI(MPI_Comm_iflush_buffer(dup, &fr));
  CHECK_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
  void *addr = NULL;
  int got = 0;
  CHECK_MPI(MPI_Comm_detach_buffer(dup, &addr, &got));
  CHECK(addr == cbuf && got == size, "comm detach gave %p/%d", addr, got);
  /* nothing attached: as if a zero-sized buffer were, so detaching it gives NULL and 0 */
  CHECK_MPI(MPI_Comm_detach_buffer(dup, &addr, &got));
  CHECK(addr == NULL && got == 0, "detach of no buffer gave %p/%d", addr, got);
  CHECK_MPI(MPI_Buffer_detach(&addr, &got));
  CHECK(addr == NULL && got == 0, "process detach of no buffer gave %p/%d", addr, got);

  /* Freeing a communicator detaches its buffer once the messages in it have left: the memory is
     the user's again after MPI_Comm_free (a rendezvous-sized message was still read from it). */
  {
    enum { BIG = 1 << 18 };
    int r, n;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &n));
    int bsize = BIG + MPI_BSEND_OVERHEAD;
    unsigned char *big = malloc(BIG), *back = malloc(BIG), *space = malloc((size_t)bsize);
    CHECK(big && back && space, "malloc");
    for (int i = 0; i < BIG; i++)
      big[i] = (unsigned char)(i * 7 + r);
    MPI_Comm d2;
    MPI_Request rq;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d2));
    CHECK_MPI(MPI_Comm_attach_buffer(d2, space, bsize));
    CHECK_MPI(MPI_Bsend(big, BIG, MPI_BYTE, (r + 1) % n, 8, d2));
    CHECK_MPI(MPI_Irecv(back, BIG, MPI_BYTE, (r + n - 1) % n, 8, d2, &rq));
    CHECK_MPI(MPI_Comm_free(&d2));
    memset(space, 0xEE, (size_t)bsize);
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < BIG; i++)
      CHECK(back[i] == (unsigned char)(i * 7 + (r + n - 1) % n), "buffered byte %d is %#x", i, back[i]);
    free(big);
    free(back);
    free(space);
  }

  /* The process buffer, with the nonblocking flush. */
  CHECK_MPI(MPI_Buffer_attach(pbuf, size));
  ring_bsend(MPI_COMM_WORLD, 5);
  CHECK_MPI(MPI_Buffer_iflush(&fr));
  CHECK_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Buffer_detach(&addr, &got));
  CHECK(addr == pbuf && got == size, "process detach gave %p/%d", addr, got);

  /* A session buffer serves communicators made from the session's process sets. */
  MPI_Session s;
  MPI_Group g;
  MPI_Comm sc;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  CHECK_MPI(MPI_Comm_create_from_group(g, "org.ethermpi.test.buffers", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
  CHECK_MPI(MPI_Session_attach_buffer(s, sbuf, size));
  ring_bsend(sc, 6);
  CHECK_MPI(MPI_Session_iflush_buffer(s, &fr));
  CHECK_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Session_flush_buffer(s));
  CHECK_ERR(MPI_Bsend(&one, 1, MPI_INT, 0, 1, dup), MPI_ERR_BUFFER); /* not a session communicator */
  CHECK_MPI(MPI_Session_detach_buffer(s, &addr, &got));
  CHECK(addr == sbuf && got == size, "session detach gave %p/%d", addr, got);
  CHECK_MPI(MPI_Comm_disconnect(&sc));
  CHECK(sc == MPI_COMM_NULL, "disconnect left the handle");
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Session_finalize(&s));

  /* A session finalized with its buffer still attached detaches it (after its messages left),
     as MPI_Finalize does with the process's buffer. */
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  CHECK_MPI(MPI_Comm_create_from_group(g, "org.ethermpi.test.buffers2", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
  CHECK_MPI(MPI_Session_attach_buffer(s, sbuf, size));
  ring_bsend(sc, 3);
  CHECK_MPI(MPI_Comm_free(&sc));
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Session_finalize(&s));
  CHECK(s == MPI_SESSION_NULL, "finalize with a buffer attached left the handle");

  /* Dynamic processes: no parent; disconnect an intra- and an intercommunicator. */
  MPI_Comm parent = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  CHECK(parent == MPI_COMM_NULL, "a parent without spawning");
  CHECK_MPI(MPI_Comm_disconnect(&dup));
  CHECK(dup == MPI_COMM_NULL, "disconnect left the handle");
  int n = empi_size(), r = empi_rank();
  if (n >= 2) {
    MPI_Comm half, inter;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half));
    CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, r % 2 ? 0 : 1, 8, &inter));
    int v = r, w = -1;
    if (r < 2) { /* the two leaders */
      CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, 0, 2, &w, 1, MPI_INT, 0, 2, inter, MPI_STATUS_IGNORE));
      CHECK(w == 1 - r, "intercomm exchange got %d", w);
    }
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    CHECK_MPI(MPI_Comm_free(&half));
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_ERR(MPI_Comm_disconnect(&parent), MPI_ERR_COMM);
  free(cbuf);
  free(pbuf);
  free(sbuf);
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
