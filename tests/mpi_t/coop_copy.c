/*
 * Cooperative single copy (pt2pt/coop.c) between ranks 0 and 1: large messages of odd sizes at
 * odd offsets, one at a time both ways, a window of messages in flight both ways at once, and a
 * sender that computes outside MPI while its receiver completes alone; every byte checked. The
 * last case also checks that the late sender, handling the receiver's request for help after the
 * transfer ended, writes nothing into the buffer the receiver has reused meanwhile.
 * A receiver with a send of its own in flight is in an exchange and copies alone: rank 0 receives
 * while its send waits for rank 1 to post the matching receive.
 * argv[1] = 1: every other rendezvous receive of rank 0 and 1 outside the window must have been
 * cooperative (the window's are once the receiver's own sends have completed, which timing
 * decides; empi_pt2pt_coop_recvs counts); 0: none may have been (EMPI_SHM_COOP_MIN=0).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpit_test.h"

static const size_t sizes[] = {65536, 65537, 300001, 1048583, 4194307};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define WINDOW 6
#define OFFSET 13 /* buffers not page aligned */

static MPI_T_pvar_session session;
static MPI_T_pvar_handle coop_handle, helped_handle;

/* empi_pt2pt_coop_recvs, counted from here on. */
static void start_counting(void) {
  CHECK_T(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
  coop_handle = mpit_counter_handle(session, "empi_pt2pt_coop_recvs");
  helped_handle = mpit_counter_handle(session, "empi_pt2pt_coop_chunks_helped");
  CHECK_T(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
}

static unsigned long long coop_so_far(void) { return mpit_pvar_value(session, coop_handle); }

/* Also: how many chunks this rank copied for its receivers (timing decides; only reported). */
static unsigned long long coop_recvs(unsigned long long *helped) {
  unsigned long long v = coop_so_far();
  CHECK_T(MPI_T_pvar_read(session, helped_handle, helped), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_handle_free(session, &coop_handle), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_handle_free(session, &helped_handle), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_session_free(&session), MPI_SUCCESS);
  return v;
}

int main(int argc, char **argv) {
  int provided;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  int expect_coop = argc > 1 ? atoi(argv[1]) : 1;
  int rank = empi_rank(), peer = 1 - rank;
  size_t max = sizes[NSIZES - 1];
  unsigned long long received = 0; /* rendezvous messages this rank received outside the window */
  start_counting();

  if (rank < 2) {
    char *base = malloc(WINDOW * (max + OFFSET) + OFFSET), *sbase = malloc(WINDOW * (max + OFFSET) + OFFSET);
    CHECK(base && sbase, "out of memory");
    /* One at a time, each direction in turn. */
    for (size_t i = 0; i < NSIZES; i++) {
      for (int from = 0; from < 2; from++) {
        char *buf = base + OFFSET;
        uint32_t seed = empi_seed(from, 1 - from, (int)i);
        if (rank == from) {
          empi_fill(buf, sizes[i], seed);
          CHECK_MPI(MPI_Send(buf, (int)sizes[i], MPI_BYTE, peer, (int)i, MPI_COMM_WORLD));
        } else {
          MPI_Status st;
          int n;
          CHECK_MPI(MPI_Recv(buf, (int)sizes[i], MPI_BYTE, peer, (int)i, MPI_COMM_WORLD, &st));
          CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
          CHECK(n == (int)sizes[i], "received %d bytes, expected %zu", n, sizes[i]);
          CHECK_PATTERN(buf, sizes[i], seed);
          received++;
        }
      }
    }
    /* A window in flight both ways at once. */
    MPI_Request reqs[2 * WINDOW];
    for (int w = 0; w < WINDOW; w++) {
      size_t len = sizes[(size_t)w % NSIZES];
      CHECK_MPI(MPI_Irecv(base + OFFSET + (size_t)w * (max + OFFSET), (int)len, MPI_BYTE, peer, 100 + w,
                          MPI_COMM_WORLD, &reqs[w]));
      empi_fill(sbase + OFFSET + (size_t)w * (max + OFFSET), len, empi_seed(rank, peer, 100 + w));
      CHECK_MPI(MPI_Isend(sbase + OFFSET + (size_t)w * (max + OFFSET), (int)len, MPI_BYTE, peer, 100 + w,
                          MPI_COMM_WORLD, &reqs[WINDOW + w]));
    }
    CHECK_MPI(MPI_Waitall(2 * WINDOW, reqs, MPI_STATUSES_IGNORE));
    for (int w = 0; w < WINDOW; w++) {
      CHECK_PATTERN(base + OFFSET + (size_t)w * (max + OFFSET), sizes[(size_t)w % NSIZES],
                    empi_seed(peer, rank, 100 + w));
      CHECK_PATTERN(sbase + OFFSET + (size_t)w * (max + OFFSET), sizes[(size_t)w % NSIZES],
                    empi_seed(rank, peer, 100 + w));
    }
    /* A sender away computing: the receiver copies alone, reuses its buffer, and the sender's
       late help must not touch it. */
    char *buf = base + OFFSET;
    if (rank == 0) {
      MPI_Request rq;
      empi_fill(sbase, max, empi_seed(0, 1, 200));
      CHECK_MPI(MPI_Isend(sbase, (int)max, MPI_BYTE, 1, 200, MPI_COMM_WORLD, &rq));
      empi_sleep_ms(300);
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 1, 201, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(MPI_Recv(buf, (int)max, MPI_BYTE, 0, 200, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_PATTERN(buf, max, empi_seed(0, 1, 200));
      empi_fill(buf, max, empi_seed(1, 1, 201));
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 201, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_PATTERN(buf, max, empi_seed(1, 1, 201));
      received++;
    }
    /* An exchange: rank 0's send stays in flight until rank 1 has sent and then posts its receive. */
    empi_fill(sbase, max, empi_seed(rank, peer, 300));
    if (rank == 0) {
      MPI_Request rq;
      CHECK_MPI(MPI_Isend(sbase, (int)max, MPI_BYTE, 1, 300, MPI_COMM_WORLD, &rq));
      unsigned long long before = coop_so_far();
      CHECK_MPI(MPI_Recv(buf, (int)max, MPI_BYTE, 1, 301, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(coop_so_far() == before, "rank 0 received cooperatively with a send of its own in flight");
      CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Send(sbase, (int)max, MPI_BYTE, 0, 301, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(buf, (int)max, MPI_BYTE, 0, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      received++; /* its own send complete: cooperative */
    }
    CHECK_PATTERN(buf, max, empi_seed(peer, rank, 300));
    free(base);
    free(sbase);
  }
  unsigned long long helped;
  unsigned long long coop = coop_recvs(&helped);
  if (rank < 2)
    printf("rank %d: %llu cooperative receives, %llu chunks copied for the receiver\n", rank, coop, helped);
  if (rank < 2 && expect_coop)
    CHECK(coop >= received && coop <= received + WINDOW,
          "rank %d: %llu cooperative receives, expected the %llu outside the window and the exchange, and at most %d "
          "in the window",
          rank, coop, received, WINDOW);
  if (rank < 2 && !expect_coop)
    CHECK(coop == 0, "rank %d: %llu cooperative receives, expected none", rank, coop);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
