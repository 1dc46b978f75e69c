/*
 * Buffered mode: Bsend/Ibsend complete locally using the attached buffer (the receiver posts
 * nothing until after a barrier), Buffer_detach hands back the attached address and size, and a
 * message larger than the attached space minus MPI_BSEND_OVERHEAD fails with MPI_ERR_BUFFER.
 */
#include "empi_test.h"

#include <stdlib.h>
#include <sys/mman.h>

enum { NMSG = 8, MSGLEN = 3000 };

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Room for NMSG messages of MSGLEN bytes plus per-message overhead, computed by Pack_size. */
  int packed = 0;
  CHECK_MPI(MPI_Pack_size(MSGLEN, MPI_BYTE, MPI_COMM_WORLD, &packed));
  int bsize = NMSG * (packed + MPI_BSEND_OVERHEAD);
  char *bbuf = malloc((size_t)bsize);
  unsigned char *sb = malloc(MSGLEN), *rb = malloc(MSGLEN);
  CHECK(bbuf && sb && rb, "malloc");
  CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));

  /* Blocking Bsend: returns although nobody has posted a receive yet. The user buffer is reused
   * (refilled) right away, proving the data was copied out. */
  for (int k = 0; k < NMSG / 2; k++) {
    empi_fill(sb, MSGLEN, empi_seed(rank, right, k));
    CHECK_MPI(MPI_Bsend(sb, MSGLEN, MPI_BYTE, right, k, MPI_COMM_WORLD));
  }
  /* Ibsend: may be completed at once, since it is buffered. */
  MPI_Request rq[NMSG / 2];
  for (int k = NMSG / 2; k < NMSG; k++) {
    empi_fill(sb, MSGLEN, empi_seed(rank, right, k));
    CHECK_MPI(MPI_Ibsend(sb, MSGLEN, MPI_BYTE, right, k, MPI_COMM_WORLD, &rq[k - NMSG / 2]));
    CHECK_MPI(MPI_Wait(&rq[k - NMSG / 2], MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* Receive in reverse tag order: buffered messages must all be matchable independently. */
  for (int k = NMSG - 1; k >= 0; k--) {
    MPI_Status st;
    int count = -1;
    CHECK_MPI(MPI_Recv(rb, MSGLEN, MPI_BYTE, left, k, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == MSGLEN, "bsend message %d: count %d", k, count);
    CHECK_PATTERN(rb, MSGLEN, empi_seed(left, rank, k));
  }

  /* Detach waits for buffered messages to drain and returns exactly what was attached. */
  void *addr = NULL;
  int dsize = -1;
  CHECK_MPI(MPI_Buffer_detach(&addr, &dsize));
  CHECK(addr == (void *)bbuf, "detach returned %p, attached %p", addr, (void *)bbuf);
  CHECK(dsize == bsize, "detach returned size %d, attached %d", dsize, bsize);

  /*
   * Buffer accounting: with exactly `room` bytes usable (attached = room + overhead), a message
   * whose packed size exceeds room fails with MPI_ERR_BUFFER; one that fits succeeds. Messages go
   * to self so nothing is left in flight for other ranks.
   */
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  const int room = 1000;
  int small_bytes = 0;
  CHECK_MPI(MPI_Pack_size(room, MPI_BYTE, comm, &small_bytes));
  char *tiny = malloc((size_t)(small_bytes + MPI_BSEND_OVERHEAD));
  CHECK(tiny != NULL, "malloc");
  CHECK_MPI(MPI_Buffer_attach(tiny, small_bytes + MPI_BSEND_OVERHEAD));
  empi_fill(sb, 2 * (size_t)room, empi_seed(rank, rank, 77));
  CHECK_ERR(MPI_Bsend(sb, 2 * room, MPI_BYTE, rank, 77, comm), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Bsend(sb, room, MPI_BYTE, rank, 78, comm));
  MPI_Status st;
  int flag = 0;
  /* The failed message must not have been sent. */
  CHECK_MPI(MPI_Recv(rb, MSGLEN, MPI_BYTE, rank, 78, comm, &st));
  CHECK_PATTERN(rb, (size_t)room, empi_seed(rank, rank, 77));
  CHECK_MPI(MPI_Iprobe(rank, 77, comm, &flag, &st));
  CHECK(!flag, "a Bsend that failed with MPI_ERR_BUFFER still delivered a message");
  CHECK_MPI(MPI_Buffer_detach(&addr, &dsize));
  CHECK(addr == (void *)tiny && dsize == small_bytes + MPI_BSEND_OVERHEAD, "second detach");
  /* With no buffer attached at all, any non-empty Bsend has no room. */
  CHECK_ERR(MPI_Bsend(sb, room, MPI_BYTE, rank, 79, comm), MPI_ERR_BUFFER);

  /* k pending messages fit in the sum of their packed sizes plus k overheads, whatever their
     sizes' alignment: large odd-sized ones, held until the barrier */
  enum { PENDING = 3, BIG = 100001 };
  unsigned char *big = malloc(BIG), *bigr = malloc(BIG);
  CHECK_MPI(MPI_Pack_size(BIG, MPI_BYTE, comm, &packed));
  char *room3 = malloc((size_t)PENDING * (size_t)(packed + MPI_BSEND_OVERHEAD));
  CHECK(big && bigr && room3, "malloc");
  CHECK_MPI(MPI_Buffer_attach(room3, PENDING * (packed + MPI_BSEND_OVERHEAD)));
  for (int k = 0; k < PENDING; k++) {
    empi_fill(big, BIG, empi_seed(rank, right, 100 + k));
    CHECK_MPI(MPI_Bsend(big, BIG, MPI_BYTE, right, 100 + k, comm));
  }
  CHECK_MPI(MPI_Barrier(comm));
  for (int k = 0; k < PENDING; k++) {
    CHECK_MPI(MPI_Recv(bigr, BIG, MPI_BYTE, left, 100 + k, comm, MPI_STATUS_IGNORE));
    CHECK_PATTERN(bigr, BIG, empi_seed(left, rank, 100 + k));
  }
  CHECK_MPI(MPI_Buffer_detach(&addr, &dsize));
  free(room3), free(big), free(bigr);

  /* a size beyond int comes back from the int form as MPI_UNDEFINED (never touched: no pages) */
  MPI_Count huge = (MPI_Count)3 << 30;
  void *vast = mmap(NULL, (size_t)huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  CHECK(vast != MAP_FAILED, "mmap of 3 GiB");
  CHECK_MPI(MPI_Buffer_attach_c(vast, huge));
  CHECK_MPI(MPI_Buffer_detach(&addr, &dsize));
  CHECK(addr == vast && dsize == MPI_UNDEFINED, "detach of 3 GiB gave size %d", dsize);
  munmap(vast, (size_t)huge);

  CHECK_MPI(MPI_Comm_free(&comm));
  free(tiny);
  free(bbuf);
  free(sb);
  free(rb);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
