/*
 * Generalized requests (each callback runs exactly when and as often as the standard says, the
 * status comes from query_fn), MPI_Request_get_status_any/_all/_some (no side effects, null and
 * inactive requests), request and message handle conversion, and error classes of misuse.
 */
#include <string.h>

#include "empi_test.h"

typedef struct {
  int queries, frees, cancels, last_cancel_complete, query_rc, cancel_status;
} state_t;

static int query_fn(void *extra, MPI_Status *st) {
  state_t *s = extra;
  s->queries++;
  MPI_Status_set_source(st, 5);
  MPI_Status_set_tag(st, 6);
  MPI_Status_set_elements(st, MPI_INT, 3);
  MPI_Status_set_cancelled(st, s->cancel_status);
  return s->query_rc;
}

static int free_fn(void *extra) {
  ((state_t *)extra)->frees++;
  return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete) {
  state_t *s = extra;
  s->cancels++;
  s->last_cancel_complete = complete;
  return MPI_SUCCESS;
}

static MPI_Request start(state_t *s) {
  MPI_Request r;
  memset(s, 0, sizeof *s);
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &r));
  return r;
}

static void generalized(void) {
  state_t s;
  MPI_Status st;
  int flag = -1, count = -1;

  /* Normal life: tests before completion call nothing; Wait queries once then frees once. */
  MPI_Request r = start(&s);
  CHECK_MPI(MPI_Test(&r, &flag, &st));
  CHECK(!flag && s.queries == 0 && s.frees == 0, "incomplete Test: flag %d queries %d", flag, s.queries);
  CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
  CHECK(!flag && s.queries == 0, "incomplete get_status");
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag && s.queries == 1 && s.frees == 0 && r != MPI_REQUEST_NULL, "get_status after complete");
  CHECK(st.MPI_SOURCE == 5 && st.MPI_TAG == 6, "get_status status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL && s.queries == 2 && s.frees == 1, "wait: queries %d frees %d", s.queries, s.frees);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(st.MPI_SOURCE == 5 && st.MPI_TAG == 6 && count == 3, "wait status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG,
        count);
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag, "not cancelled");

  /* Freed before completion: free_fn runs at MPI_Grequest_complete, query_fn never. */
  r = start(&s);
  MPI_Request keep = r;
  CHECK_MPI(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL && s.frees == 0, "free before complete ran free_fn early");
  CHECK_MPI(MPI_Grequest_complete(keep));
  CHECK(s.frees == 1 && s.queries == 0, "free before complete: frees %d queries %d", s.frees, s.queries);

  /* Freed after completion: free_fn at once. */
  r = start(&s);
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_MPI(MPI_Request_free(&r));
  CHECK(s.frees == 1 && s.queries == 0, "free after complete: frees %d", s.frees);

  /* Cancel before and after completion; the query reports it cancelled. */
  r = start(&s);
  CHECK_MPI(MPI_Cancel(&r));
  CHECK(s.cancels == 1 && s.last_cancel_complete == 0, "cancel: %d calls, complete %d", s.cancels,
        s.last_cancel_complete);
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK(s.cancels == 2 && s.last_cancel_complete != 0, "cancel after complete: complete %d", s.last_cancel_complete);
  s.cancel_status = 1;
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag && s.frees == 1, "cancelled status %d frees %d", flag, s.frees);

  /* A failing query: Waitall reports MPI_ERR_IN_STATUS with the code in the status. */
  state_t s2;
  MPI_Request two[2] = {start(&s), start(&s2)};
  s2.query_rc = MPI_ERR_OTHER;
  CHECK_MPI(MPI_Grequest_complete(two[0]));
  CHECK_MPI(MPI_Grequest_complete(two[1]));
  MPI_Status sts[2];
  CHECK_ERR(MPI_Waitall(2, two, sts), MPI_ERR_IN_STATUS);
  CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_ERR_OTHER, "statuses %d %d", sts[0].MPI_ERROR,
        sts[1].MPI_ERROR);
  CHECK(s.frees == 1 && s2.frees == 1 && s2.queries == 1, "waitall callbacks");

  /* Grequest_complete on something else. */
  MPI_Request other;
  int x = 0;
  CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, 0, 77, MPI_COMM_SELF, &other));
  CHECK_ERR(MPI_Grequest_complete(other), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Cancel(&other));
  CHECK_MPI(MPI_Wait(&other, MPI_STATUS_IGNORE));
}

static void get_status_family(void) {
  MPI_Request nulls[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int flag = 0, idx = 0, out = 0, ind[3];
  MPI_Status st, sts[3];
  CHECK_MPI(MPI_Request_get_status_any(2, nulls, &idx, &flag, &st));
  CHECK(flag && idx == MPI_UNDEFINED, "any over nulls: flag %d index %d", flag, idx);
  CHECK_MPI(MPI_Request_get_status_some(2, nulls, &out, ind, sts));
  CHECK(out == MPI_UNDEFINED, "some over nulls: %d", out);
  CHECK_MPI(MPI_Request_get_status_all(2, nulls, &flag, sts));
  CHECK(flag, "all over nulls");

  /* [pending receive, completed generalized request, null] */
  state_t s;
  int in = -1, msg = 42;
  MPI_Request r[3];
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &r[0]));
  r[1] = start(&s);
  r[2] = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Request_get_status_any(3, r, &idx, &flag, &st));
  CHECK(!flag, "any: nothing is complete yet");
  CHECK_MPI(MPI_Request_get_status_all(3, r, &flag, sts));
  CHECK(!flag, "all: nothing is complete yet");
  CHECK_MPI(MPI_Request_get_status_some(3, r, &out, ind, sts));
  CHECK(out == 0, "some: %d complete", out);
  CHECK_MPI(MPI_Grequest_complete(r[1]));
  CHECK_MPI(MPI_Request_get_status_any(3, r, &idx, &flag, &st));
  CHECK(flag && idx == 1 && st.MPI_TAG == 6 && r[1] != MPI_REQUEST_NULL, "any: flag %d index %d", flag, idx);
  CHECK_MPI(MPI_Request_get_status_some(3, r, &out, ind, sts));
  CHECK(out == 1 && ind[0] == 1 && sts[0].MPI_SOURCE == 5, "some: %d, index %d", out, ind[0]);
  CHECK(s.frees == 0 && s.queries == 2, "get_status freed or skipped the query (%d, %d)", s.frees, s.queries);
  CHECK_MPI(MPI_Send(&msg, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
  /* the generalized request stays complete in the array; a loop on get_status_some must still
     see the receive complete (it stopped progressing once one request was complete) */
  for (int i = 0; i < 1000000 && out < 2; i++)
    CHECK_MPI(MPI_Request_get_status_some(3, r, &out, ind, sts));
  CHECK(out == 2 && ind[0] == 0 && ind[1] == 1 && sts[0].MPI_TAG == 9, "some after the send: %d", out);
  do {
    CHECK_MPI(MPI_Request_get_status_all(3, r, &flag, sts));
  } while (!flag);
  CHECK(sts[0].MPI_TAG == 9 && sts[1].MPI_TAG == 6 && sts[2].MPI_TAG == MPI_ANY_TAG, "all statuses %d %d %d",
        sts[0].MPI_TAG, sts[1].MPI_TAG, sts[2].MPI_TAG);
  CHECK(in == 42 && r[0] != MPI_REQUEST_NULL, "get_status_all consumed the receive");
  CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
  CHECK(s.frees == 1, "free_fn after waitall: %d", s.frees);

  /* Handle conversion round trips. */
  MPI_Request q;
  MPI_Message m;
  CHECK_MPI(MPI_Isend(&msg, 1, MPI_INT, 0, 10, MPI_COMM_SELF, &q));
  CHECK(MPI_Request_fromint(MPI_Request_toint(q)) == q, "request toint/fromint");
  CHECK(MPI_Request_fromint(MPI_Request_toint(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "null request round trip");
  CHECK_MPI(MPI_Mprobe(0, 10, MPI_COMM_SELF, &m, &st));
  CHECK(MPI_Message_fromint(MPI_Message_toint(m)) == m, "message toint/fromint");
  CHECK(MPI_Message_fromint(MPI_Message_toint(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC, "no-proc message");
  CHECK_MPI(MPI_Mrecv(&in, 1, MPI_INT, &m, &st));
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK_ERR(MPI_Request_get_status_any(-1, r, &idx, &flag, &st), MPI_ERR_COUNT);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  generalized();
  get_status_family();
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
