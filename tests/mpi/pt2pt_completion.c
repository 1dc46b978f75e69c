/*
 * Completion calls: Wait/Test in their all/any/some forms, including arrays holding
 * MPI_REQUEST_NULL and the MPI_UNDEFINED index/outcount when nothing is active;
 * Request_get_status (non-destructive) and Request_free on an active send.
 */
#include "empi_test.h"

#include <string.h>

enum { N = 6 };

static void check_empty(const MPI_Status *st, const char *what) {
  int count = -1;
  CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG,
        "%s: status src %d tag %d, expected empty", what, st->MPI_SOURCE, st->MPI_TAG);
  CHECK_MPI(MPI_Get_count(st, MPI_INT, &count));
  CHECK(count == 0, "%s: empty status count %d", what, count);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request req[N], sreq[N];
  MPI_Status st[N], one;
  int idx = -7, flag = -7, outcount = -7, indices[N];
  int in[N], out[N];

  /* All entries null: every form returns at once; "any"/"some" report MPI_UNDEFINED. */
  for (int i = 0; i < N; i++) req[i] = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Waitall(N, req, st));
  for (int i = 0; i < N; i++) check_empty(&st[i], "Waitall(null)");
  CHECK_MPI(MPI_Testall(N, req, &flag, st));
  CHECK(flag, "Testall on null requests returned false");
  CHECK_MPI(MPI_Waitany(N, req, &idx, &one));
  CHECK(idx == MPI_UNDEFINED, "Waitany(null) index %d", idx);
  check_empty(&one, "Waitany(null)");
  CHECK_MPI(MPI_Testany(N, req, &idx, &flag, &one));
  CHECK(flag && idx == MPI_UNDEFINED, "Testany(null) flag %d index %d", flag, idx);
  CHECK_MPI(MPI_Waitsome(N, req, &outcount, indices, st));
  CHECK(outcount == MPI_UNDEFINED, "Waitsome(null) outcount %d", outcount);
  CHECK_MPI(MPI_Testsome(N, req, &outcount, indices, st));
  CHECK(outcount == MPI_UNDEFINED, "Testsome(null) outcount %d", outcount);
  CHECK_MPI(MPI_Wait(&req[0], &one));
  check_empty(&one, "Wait(null)");
  CHECK_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &one));
  CHECK(flag, "Request_get_status(REQUEST_NULL) flag false");
  check_empty(&one, "Request_get_status(null)");
  /* Zero-length arrays are fine too. */
  CHECK_MPI(MPI_Waitall(0, req, st));
  CHECK_MPI(MPI_Waitany(0, req, &idx, &one));
  CHECK(idx == MPI_UNDEFINED, "Waitany(0) index %d", idx);

  /*
   * Pending receives: nobody sends tag 1..N before the barrier below, so Test* must report
   * "nothing done" and Request_get_status must say "not complete" without touching the request.
   */
  for (int i = 0; i < N; i++) {
    in[i] = -1;
    out[i] = rank * 100 + i;
    if (i % 2 == 1) req[i] = MPI_REQUEST_NULL; /* odd slots stay null throughout */
    else CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, left, 1 + i, MPI_COMM_WORLD, &req[i]));
  }
  CHECK_MPI(MPI_Testall(N, req, &flag, st));
  CHECK(!flag, "Testall true with unmatched receives");
  CHECK_MPI(MPI_Testany(N, req, &idx, &flag, &one));
  CHECK(!flag && idx == MPI_UNDEFINED, "Testany with unmatched receives: flag %d idx %d", flag,
        idx);
  CHECK_MPI(MPI_Testsome(N, req, &outcount, indices, st));
  CHECK(outcount == 0, "Testsome with unmatched receives: outcount %d", outcount);
  CHECK_MPI(MPI_Request_get_status(req[0], &flag, &one));
  CHECK(!flag, "Request_get_status true for an unmatched receive");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Send in reverse tag order so completions arrive in an order different from the array. */
  for (int i = N - 1; i >= 0; i--) {
    if (i % 2 == 1) sreq[i] = MPI_REQUEST_NULL;
    else CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, right, 1 + i, MPI_COMM_WORLD, &sreq[i]));
  }
  /* Request_get_status polls without freeing; the request stays valid for Wait later. */
  flag = 0;
  while (!flag) CHECK_MPI(MPI_Request_get_status(req[0], &flag, &one));
  CHECK(req[0] != MPI_REQUEST_NULL, "Request_get_status freed the request");
  CHECK(one.MPI_SOURCE == left && one.MPI_TAG == 1, "Request_get_status status %d/%d",
        one.MPI_SOURCE, one.MPI_TAG);
  CHECK_MPI(MPI_Request_get_status(req[0], &flag, &one)); /* repeatable */
  CHECK(flag, "second Request_get_status false");

  /* Waitany repeatedly: each active request reported exactly once, then MPI_UNDEFINED. */
  int seen[N] = {0}, done = 0;
  for (;;) {
    CHECK_MPI(MPI_Waitany(N, req, &idx, &one));
    if (idx == MPI_UNDEFINED) break;
    CHECK(idx >= 0 && idx < N && idx % 2 == 0, "Waitany index %d", idx);
    CHECK(!seen[idx], "Waitany reported index %d twice", idx);
    CHECK(req[idx] == MPI_REQUEST_NULL, "Waitany did not null request %d", idx);
    CHECK(one.MPI_SOURCE == left && one.MPI_TAG == 1 + idx, "Waitany status for %d", idx);
    CHECK(in[idx] == left * 100 + idx, "Waitany data %d for %d", in[idx], idx);
    seen[idx] = 1;
    done++;
  }
  CHECK(done == N / 2, "Waitany completed %d requests", done);
  CHECK_MPI(MPI_Waitall(N, sreq, MPI_STATUSES_IGNORE));

  /* Waitsome/Testsome: loop until everything is done; each index exactly once. */
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < N; i++) {
    in[i] = -1;
    CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, left, 20 + i, MPI_COMM_WORLD, &req[i]));
    CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, right, 20 + i, MPI_COMM_WORLD, &sreq[i]));
  }
  done = 0;
  for (int round = 0;; round++) {
    if (round % 2 == 0) CHECK_MPI(MPI_Waitsome(N, req, &outcount, indices, st));
    else CHECK_MPI(MPI_Testsome(N, req, &outcount, indices, st));
    if (outcount == MPI_UNDEFINED) break;
    CHECK(outcount >= 0 && outcount <= N, "outcount %d", outcount);
    if (round % 2 == 0) CHECK(outcount > 0, "Waitsome returned with nothing completed");
    for (int k = 0; k < outcount; k++) {
      int i = indices[k];
      CHECK(i >= 0 && i < N && !seen[i], "Waitsome/Testsome index %d bad or repeated", i);
      seen[i] = 1;
      done++;
      CHECK(st[k].MPI_TAG == 20 + i && st[k].MPI_SOURCE == left, "some: status of %d", i);
      CHECK(in[i] == left * 100 + i, "some: data of %d", i);
    }
  }
  CHECK(done == N, "Waitsome/Testsome completed %d of %d", done, N);
  flag = 0;
  while (!flag) CHECK_MPI(MPI_Testall(N, sreq, &flag, MPI_STATUSES_IGNORE));
  for (int i = 0; i < N; i++) CHECK(sreq[i] == MPI_REQUEST_NULL, "Testall left request %d", i);

  /*
   * Request_free on an active send: the message is still delivered. The receiver acknowledges,
   * so the sender knows when the buffer may be reused.
   */
  int payload[256], got[256], ack = 0;
  for (int i = 0; i < 256; i++) payload[i] = rank * 1000 + i;
  MPI_Request fr, rr;
  CHECK_MPI(MPI_Irecv(got, 256, MPI_INT, left, 40, MPI_COMM_WORLD, &rr));
  CHECK_MPI(MPI_Isend(payload, 256, MPI_INT, right, 40, MPI_COMM_WORLD, &fr));
  CHECK_MPI(MPI_Request_free(&fr));
  CHECK(fr == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
  CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
  for (int i = 0; i < 256; i++) CHECK(got[i] == left * 1000 + i, "freed-send data at %d", i);
  int one_ack = 1;
  CHECK_MPI(MPI_Sendrecv(&one_ack, 1, MPI_INT, left, 41, &ack, 1, MPI_INT, right, 41,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(ack == 1, "ack");

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
