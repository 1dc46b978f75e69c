/*
 * Non-overtaking: messages from one sender on one communicator that match the same receive must
 * be received in the order they were sent, whatever their sizes (small eager messages must not
 * pass large ones still in flight, and vice versa). Every rank talks to every rank, itself too.
 */
#include "empi_test.h"

#include <stdlib.h>
#include <string.h>

enum { NMSG = 48, TAG = 3 };

/* Sizes straddle typical eager/rendezvous thresholds; large ones are rarer to keep runs short.
   16380: just under our eager limit, yet over ofi_rxm's eager buffer with the headers (rxm then
   completed it after smaller messages sent later). */
static size_t msg_size(int seq) {
  static const size_t small[] = {0, 1, 7, 64, 1000, 16380, 8193, 30000};
  if (seq % 16 == 5) return 131072 + 5;
  if (seq % 8 == 3) return 65536 + 3;
  return small[seq % 8];
}

static int msg_tag(int seq) { return 10 + seq % 3; }

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  size_t maxsz = 131072 + 5;
  int nreq = size * NMSG;

  unsigned char **sbuf = calloc((size_t)nreq, sizeof *sbuf);
  unsigned char **rbuf = calloc((size_t)nreq, sizeof *rbuf);
  MPI_Request *sreq = malloc(sizeof(MPI_Request) * (size_t)nreq);
  MPI_Request *rreq = malloc(sizeof(MPI_Request) * (size_t)nreq);
  MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)nreq);
  CHECK(sbuf && rbuf && sreq && rreq && st, "malloc");
  for (int p = 0; p < size; p++)
    for (int s = 0; s < NMSG; s++) {
      int i = p * NMSG + s;
      sbuf[i] = malloc(msg_size(s) + 1);
      rbuf[i] = malloc(maxsz);
      CHECK(sbuf[i] && rbuf[i], "malloc");
    }

  /*
   * Phase A: all receives pre-posted with the same (source, tag) and a buffer big enough for any
   * message, so only arrival order decides which receive gets which message.
   */
  for (int p = 0; p < size; p++)
    for (int s = 0; s < NMSG; s++)
      CHECK_MPI(MPI_Irecv(rbuf[p * NMSG + s], (int)maxsz, MPI_BYTE, p, TAG, MPI_COMM_WORLD,
                          &rreq[p * NMSG + s]));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int s = 0; s < NMSG; s++)
    for (int p = 0; p < size; p++) {
      int i = p * NMSG + s;
      empi_fill(sbuf[i], msg_size(s), empi_seed(rank, p, s));
      CHECK_MPI(MPI_Isend(sbuf[i], (int)msg_size(s), MPI_BYTE, p, TAG, MPI_COMM_WORLD, &sreq[i]));
    }
  CHECK_MPI(MPI_Waitall(nreq, rreq, st));
  for (int p = 0; p < size; p++)
    for (int s = 0; s < NMSG; s++) {
      int i = p * NMSG + s, count = -1;
      CHECK(st[i].MPI_SOURCE == p && st[i].MPI_TAG == TAG, "phase A: status src %d tag %d",
            st[i].MPI_SOURCE, st[i].MPI_TAG);
      CHECK_MPI(MPI_Get_count(&st[i], MPI_BYTE, &count));
      CHECK(count == (int)msg_size(s), "phase A: from %d message %d has %d bytes, expected %zu "
            "(overtaken?)", p, s, count, msg_size(s));
      CHECK_PATTERN(rbuf[i], msg_size(s), empi_seed(p, rank, s));
    }
  CHECK_MPI(MPI_Waitall(nreq, sreq, MPI_STATUSES_IGNORE));

  /*
   * Phase B: messages are sent first (so most arrive unexpected), with varying tags, and received
   * with MPI_ANY_SOURCE/MPI_ANY_TAG. Per source, the sequence must still come out in order.
   */
  for (int s = 0; s < NMSG; s++)
    for (int p = 0; p < size; p++) {
      int i = p * NMSG + s;
      empi_fill(sbuf[i], msg_size(s), empi_seed(rank, p, s + NMSG));
      CHECK_MPI(MPI_Isend(sbuf[i], (int)msg_size(s), MPI_BYTE, p, msg_tag(s), MPI_COMM_WORLD,
                          &sreq[i]));
    }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int *next = calloc((size_t)size, sizeof(int));
  CHECK(next != NULL, "malloc");
  unsigned char *buf = rbuf[0];
  for (int k = 0; k < nreq; k++) {
    MPI_Status s1;
    int count = -1;
    CHECK_MPI(MPI_Recv(buf, (int)maxsz, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &s1));
    int p = s1.MPI_SOURCE;
    CHECK(p >= 0 && p < size, "phase B: bad source %d", p);
    int s = next[p]++;
    CHECK(s < NMSG, "phase B: too many messages from %d", p);
    CHECK(s1.MPI_TAG == msg_tag(s), "phase B: from %d message %d has tag %d, expected %d", p, s,
          s1.MPI_TAG, msg_tag(s));
    CHECK_MPI(MPI_Get_count(&s1, MPI_BYTE, &count));
    CHECK(count == (int)msg_size(s), "phase B: from %d message %d has %d bytes, expected %zu", p,
          s, count, msg_size(s));
    CHECK_PATTERN(buf, msg_size(s), empi_seed(p, rank, s + NMSG));
  }
  CHECK_MPI(MPI_Waitall(nreq, sreq, MPI_STATUSES_IGNORE));

  for (int i = 0; i < nreq; i++) {
    free(sbuf[i]);
    free(rbuf[i]);
  }
  free(sbuf), free(rbuf), free(sreq), free(rreq), free(st), free(next);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
