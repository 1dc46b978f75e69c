/*
 * Noncontiguous rendezvous messages read in place run by run (pt2pt/runs.c): vectors of long
 * blocks into contiguous and into differently cut vector buffers, more runs than one
 * process_vm_readv batch takes on either side, a truncating receive, a message that waited as
 * unexpected, a persistent send started three times, and absolute addresses from MPI_BOTTOM; plus
 * short runs on either side, which must go through the rings. Rank 0 sends, rank 1 receives and
 * checks every byte of its buffer (the gaps included).
 * argv[1] = 1: exactly the long-run cases must have been read in place (empi_pt2pt_runs_recvs,
 * with EMPI_SHM_CMA_RUN_MIN=4k); 0: none may have been (no CMA).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpit_test.h"

#define GAP_BYTE 0xEE

/* n blocks of blk bytes, stride bytes apart (n = 1: contiguous). */
typedef struct {
  int n, blk, stride;
} layout_t;

static size_t span_of(layout_t l) { return (size_t)(l.n - 1) * (size_t)l.stride + (size_t)l.blk; }
static size_t bytes_of(layout_t l) { return (size_t)l.n * (size_t)l.blk; }

static MPI_Datatype type_of(layout_t l) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(l.n, l.blk, l.stride, MPI_BYTE, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

/* The message as the receiver must see it: the sender's blocks, in order. */
static unsigned char *stream_of(layout_t s, uint32_t seed) {
  unsigned char *span = malloc(span_of(s)), *out = malloc(bytes_of(s));
  CHECK(span && out, "out of memory");
  empi_fill(span, span_of(s), seed);
  for (int b = 0; b < s.n; b++)
    memcpy(out + (size_t)b * (size_t)s.blk, span + (size_t)b * (size_t)s.stride, (size_t)s.blk);
  free(span);
  return out;
}

/* Rank 0's side: a buffer laid out as s, filled from seed, sent to rank 1. */
static void send_layout(layout_t s, uint32_t seed, int tag) {
  unsigned char *span = malloc(span_of(s));
  CHECK(span, "out of memory");
  empi_fill(span, span_of(s), seed);
  MPI_Datatype t = type_of(s);
  CHECK_MPI(MPI_Send(span, 1, t, 1, tag, MPI_COMM_WORLD));
  MPI_Type_free(&t);
  free(span);
}

/* Every byte of a receive buffer laid out as r: the first `got` stream bytes in its blocks, the
   gap byte everywhere else. */
static void check_received(const char *what, const unsigned char *buf, layout_t r, const unsigned char *stream,
                           size_t got) {
  size_t pos = 0;
  for (size_t i = 0; i < span_of(r); i++) {
    int in_block = (int)(i % (size_t)r.stride) < r.blk;
    int want = in_block && pos < got ? stream[pos] : GAP_BYTE;
    if (in_block)
      pos++;
    if (buf[i] != want) {
      CHECK(0, "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, buf[i], want);
      return;
    }
  }
}

typedef struct {
  const char *what;
  layout_t send, recv;
  int inplace; /* read in place when CMA is on */
} case_t;

static const case_t cases[] = {
    {"8 KiB blocks into a contiguous buffer", {64, 8192, 12288}, {1, 524288, 524288}, 1},
    {"6000-byte blocks into 5000-byte ones", {80, 6000, 7000}, {96, 5000, 5100}, 1},
    {"600 runs into a contiguous buffer", {600, 4096, 4608}, {1, 2457600, 2457600}, 1},
    {"600 runs into 480 others", {600, 4096, 4608}, {480, 5120, 5200}, 1},
    {"256-byte blocks (through the rings)", {256, 256, 512}, {1, 65536, 65536}, 0},
    {"into 64-byte blocks (through the rings)", {16, 8192, 9000}, {2048, 64, 80}, 0},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

/* One message of layout s from rank 0 into layout r at rank 1; rank 1 checks it. */
static void run_case(const case_t *c, int rank, int tag) {
  uint32_t seed = empi_seed(0, 1, tag);
  if (rank == 0) {
    send_layout(c->send, seed, tag);
  } else if (rank == 1) {
    unsigned char *buf = malloc(span_of(c->recv)), *stream = stream_of(c->send, seed);
    memset(buf, GAP_BYTE, span_of(c->recv));
    MPI_Datatype t = type_of(c->recv);
    MPI_Status st;
    int n;
    CHECK_MPI(MPI_Recv(buf, 1, t, 0, tag, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == (int)bytes_of(c->send), "%s: %d bytes arrived, %zu sent", c->what, n, bytes_of(c->send));
    check_received(c->what, buf, c->recv, stream, bytes_of(c->send));
    MPI_Type_free(&t);
    free(buf), free(stream);
  }
}

/* A receive buffer shorter than the message: MPI_ERR_TRUNCATE, and only its own bytes written. */
static void truncating(int rank, int tag) {
  layout_t s = {64, 8192, 12288}, r = {40, 8192, 9000};
  uint32_t seed = empi_seed(0, 1, tag);
  if (rank == 0) {
    send_layout(s, seed, tag);
  } else if (rank == 1) {
    unsigned char *buf = malloc(span_of(r) + 4096), *stream = stream_of(s, seed);
    memset(buf, GAP_BYTE, span_of(r) + 4096);
    MPI_Datatype t = type_of(r);
    MPI_Status st;
    int n, rc = MPI_Recv(buf, 1, t, 0, tag, MPI_COMM_WORLD, &st), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncating receive: error class %d, expected MPI_ERR_TRUNCATE", cls);
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == (int)bytes_of(r), "truncating receive: count %d, expected %zu", n, bytes_of(r));
    check_received("truncating receive", buf, r, stream, bytes_of(r));
    for (size_t i = span_of(r); i < span_of(r) + 4096; i++)
      if (buf[i] != GAP_BYTE) {
        CHECK(0, "truncating receive wrote byte %zu past its buffer", i);
        break;
      }
    MPI_Type_free(&t);
    free(buf), free(stream);
  }
}

/* The message arrives before its receive is posted. */
static void unexpected(int rank, int tag) {
  layout_t s = {64, 8192, 12288}, r = {1, 524288, 524288};
  uint32_t seed = empi_seed(0, 1, tag);
  if (rank == 0) {
    send_layout(s, seed, tag);
  } else if (rank == 1) {
    unsigned char *buf = malloc(bytes_of(r)), *stream = stream_of(s, seed);
    int flag = 0;
    while (!flag) /* the RTS is in the unexpected queue once Iprobe sees it */
      CHECK_MPI(MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(buf, (int)bytes_of(r), MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_received("unexpected message", buf, r, stream, bytes_of(s));
    free(buf), free(stream);
  }
}

/* A persistent vector send started three times, the data changed in between. */
static void persistent(int rank, int tag) {
  layout_t s = {32, 8192, 8200}, r = {1, 262144, 262144};
  unsigned char *span = malloc(span_of(s)), *buf = malloc(bytes_of(r));
  MPI_Datatype t = type_of(s);
  MPI_Request rq = MPI_REQUEST_NULL;
  if (rank == 0)
    CHECK_MPI(MPI_Send_init(span, 1, t, 1, tag, MPI_COMM_WORLD, &rq));
  for (int round = 0; round < 3; round++) {
    uint32_t seed = empi_seed(0, 1, tag + round);
    if (rank == 0) {
      empi_fill(span, span_of(s), seed);
      CHECK_MPI(MPI_Start(&rq));
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else if (rank == 1) {
      unsigned char *stream = stream_of(s, seed);
      CHECK_MPI(MPI_Recv(buf, (int)bytes_of(r), MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      check_received("persistent send", buf, r, stream, bytes_of(s));
      free(stream);
    }
  }
  if (rank == 0)
    CHECK_MPI(MPI_Request_free(&rq));
  MPI_Type_free(&t);
  free(span), free(buf);
}

/* Three separately allocated pieces named by absolute address, sent from MPI_BOTTOM. */
static void absolute(int rank, int tag) {
  enum { PIECE = 16384, PIECES = 3 };
  uint32_t seed = empi_seed(0, 1, tag);
  unsigned char *whole = malloc(PIECES * PIECE);
  empi_fill(whole, PIECES * PIECE, seed);
  if (rank == 0) {
    unsigned char *piece[PIECES];
    int lens[PIECES];
    MPI_Aint at[PIECES];
    for (int i = 0; i < PIECES; i++) {
      piece[i] = malloc(PIECE + i * 100); /* different allocations, not adjacent */
      memcpy(piece[i], whole + i * PIECE, PIECE);
      lens[i] = PIECE;
      CHECK_MPI(MPI_Get_address(piece[i], &at[i]));
    }
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_hindexed(PIECES, lens, at, MPI_BYTE, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    CHECK_MPI(MPI_Send(MPI_BOTTOM, 1, t, 1, tag, MPI_COMM_WORLD));
    MPI_Type_free(&t);
    for (int i = 0; i < PIECES; i++)
      free(piece[i]);
  } else if (rank == 1) {
    unsigned char *buf = malloc(PIECES * PIECE);
    CHECK_MPI(MPI_Recv(buf, PIECES * PIECE, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(memcmp(buf, whole, PIECES * PIECE) == 0, "pieces at absolute addresses arrived wrong");
    free(buf);
  }
  free(whole);
}

int main(int argc, char **argv) {
  int provided;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int expect_inplace = argc > 1 ? atoi(argv[1]) : 1;
  int rank = empi_rank();
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handle;
  CHECK_T(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
  handle = mpit_counter_handle(session, "empi_pt2pt_runs_recvs");
  CHECK_T(MPI_T_pvar_start(session, handle), MPI_SUCCESS);

  unsigned long long want = 0;
  for (int i = 0; i < NCASES; i++) {
    run_case(&cases[i], rank, i);
    want += (unsigned long long)cases[i].inplace;
  }
  truncating(rank, 100);
  unexpected(rank, 101);
  persistent(rank, 110);
  absolute(rank, 120);
  want += 1 + 1 + 3 + 1;

  unsigned long long got = mpit_pvar_value(session, handle);
  if (rank == 1)
    CHECK(got == (expect_inplace ? want : 0), "%llu receives read in place, expected %llu", got,
          expect_inplace ? want : 0);
  else
    CHECK(got == 0, "rank %d read %llu receives in place, but it receives nothing", rank, got);
  mpit_counting_done(&session, (MPI_T_pvar_handle[]){handle}, 1);
  return 0;
}
