/*
 * Truncation: a message longer than the receive buffer is an MPI_ERR_TRUNCATE error, reported by
 * the return code under MPI_ERRORS_RETURN (and via MPI_ERR_IN_STATUS + status.MPI_ERROR from
 * multi-request completion). The communicator stays usable afterwards.
 */
#include "empi_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_class(int code, int want, const char *what) {
  int cls = -1;
  CHECK_MPI(MPI_Error_class(code, &cls));
  CHECK(cls == want, "%s: error class %d, expected %d", what, cls, want);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  /* WORLD and SELF keep MPI_ERRORS_ARE_FATAL: every error here, the multiple-completion calls'
     MPI_ERR_IN_STATUS included, must go to the handler of the requests' communicator. */
  unsigned char *sb = malloc(200000), *rb = malloc(200000);
  CHECK(sb && rb, "malloc");
  MPI_Request sq, rq[2];
  MPI_Status st, sts[2];

  /* Blocking receive, small and large (possibly rendezvous) messages. */
  const int lens[] = {100, 150000};
  for (int i = 0; i < 2; i++) {
    empi_fill(sb, (size_t)lens[i], empi_seed(rank, right, i));
    CHECK_MPI(MPI_Isend(sb, lens[i], MPI_BYTE, right, 1, comm, &sq));
    CHECK_ERR(MPI_Recv(rb, lens[i] / 2, MPI_BYTE, left, 1, comm, &st), MPI_ERR_TRUNCATE);
    /* The send side completes normally: truncation is the receiver's error. */
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
  }

  /* The message names the sender and tag that arrived, not MPI_ANY_SOURCE / MPI_ANY_TAG, even
     with MPI_STATUS_IGNORE. */
  {
    empi_fill(sb, 100, empi_seed(rank, right, 3));
    CHECK_MPI(MPI_Isend(sb, 100, MPI_BYTE, right, 3, comm, &sq));
    int code = MPI_Recv(rb, 50, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE), len;
    check_class(code, MPI_ERR_TRUNCATE, "any-source receive");
    char msg[MPI_MAX_ERROR_STRING], want[64];
    CHECK_MPI(MPI_Error_string(code, msg, &len));
    snprintf(want, sizeof want, "from rank %d with tag 3", left);
    CHECK(strstr(msg, want) != NULL, "truncation message \"%s\" does not say \"%s\"", msg, want);
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
  }

  /* Nonblocking receive: the error comes from Wait. */
  empi_fill(sb, 64, empi_seed(rank, right, 5));
  CHECK_MPI(MPI_Irecv(rb, 10, MPI_BYTE, left, 2, comm, &rq[0]));
  CHECK_MPI(MPI_Isend(sb, 64, MPI_BYTE, right, 2, comm, &sq));
  CHECK_ERR(MPI_Wait(&rq[0], &st), MPI_ERR_TRUNCATE);
  CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));

  /* Matched probes: the error goes to the communicator the message was matched on (SELF, still
     fatal, must not see it), from MPI_Mrecv itself and from the Wait of MPI_Imrecv. Both sizes
     around the 48 bytes that unexpected records keep inline. */
  for (int form = 0; form < 2; form++) {
    const int len = form ? 200 : 49;
    MPI_Message msg;
    empi_fill(sb, (size_t)len, empi_seed(rank, right, 6 + form));
    CHECK_MPI(MPI_Isend(sb, len, MPI_BYTE, right, 6 + form, comm, &sq));
    CHECK_MPI(MPI_Mprobe(left, 6 + form, comm, &msg, &st));
    rb[len - 1] = 0x5a;
    if (form == 0) {
      CHECK_ERR(MPI_Mrecv(rb, len - 1, MPI_BYTE, &msg, &st), MPI_ERR_TRUNCATE);
    } else {
      CHECK_MPI(MPI_Imrecv(rb, len - 1, MPI_BYTE, &msg, &rq[0]));
      CHECK_ERR(MPI_Wait(&rq[0], &st), MPI_ERR_TRUNCATE);
    }
    CHECK(msg == MPI_MESSAGE_NULL, "form %d: the message handle was not set to MPI_MESSAGE_NULL", form);
    CHECK(rb[len - 1] == 0x5a, "form %d: the byte past the receive buffer was written", form);
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
  }

  /* Waitall with one good and one truncated receive: MPI_ERR_IN_STATUS, per-request errors. */
  int good[4] = {0}, goodsrc[4] = {1, 2, 3, 4};
  CHECK_MPI(MPI_Irecv(good, 4, MPI_INT, left, 3, comm, &rq[0]));
  CHECK_MPI(MPI_Irecv(rb, 3, MPI_INT, left, 4, comm, &rq[1]));
  MPI_Request sq2[2];
  CHECK_MPI(MPI_Isend(goodsrc, 4, MPI_INT, right, 3, comm, &sq2[0]));
  CHECK_MPI(MPI_Isend(sb, 16, MPI_INT, right, 4, comm, &sq2[1]));
  sts[0].MPI_ERROR = 4242; /* written too, as MPI_SUCCESS, since the call returns MPI_ERR_IN_STATUS */
  int rc = MPI_Waitall(2, rq, sts);
  CHECK(rc == MPI_ERR_IN_STATUS, "Waitall returned %d, not MPI_ERR_IN_STATUS itself", rc);
  check_class(sts[1].MPI_ERROR, MPI_ERR_TRUNCATE, "Waitall status[1]");
  CHECK(sts[0].MPI_ERROR == MPI_SUCCESS, "Waitall status[0].MPI_ERROR = %d", sts[0].MPI_ERROR);
  CHECK(good[0] == 1 && good[3] == 4, "good receive alongside a truncated one lost its data");
  CHECK_MPI(MPI_Waitall(2, sq2, MPI_STATUSES_IGNORE));

  /* The same through Testall, Waitsome and Testsome (polled until the truncated one is in). */
  for (int form = 0; form < 3; form++) {
    CHECK_MPI(MPI_Irecv(rb, 3, MPI_INT, left, 10 + form, comm, &rq[0]));
    CHECK_MPI(MPI_Isend(sb, 16, MPI_INT, right, 10 + form, comm, &sq));
    int flag = 0, n = 0, idx[1];
    rc = MPI_SUCCESS;
    while (!flag && n == 0) {
      if (form == 0)
        rc = MPI_Testall(1, rq, &flag, sts);
      else if (form == 1)
        rc = MPI_Waitsome(1, rq, &n, idx, sts);
      else
        rc = MPI_Testsome(1, rq, &n, idx, sts);
    }
    CHECK(rc == MPI_ERR_IN_STATUS, "form %d returned %d, not MPI_ERR_IN_STATUS", form, rc);
    check_class(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE, "Testall/Waitsome/Testsome status");
    CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));
  }

  /* A call completing one request leaves status.MPI_ERROR alone (MPI 4.1 3.2.5). */
  st.MPI_ERROR = 4242;
  CHECK_MPI(MPI_Sendrecv(sb, 8, MPI_BYTE, right, 8, rb, 8, MPI_BYTE, left, 8, comm, &st));
  CHECK(st.MPI_ERROR == 4242, "Sendrecv wrote status.MPI_ERROR = %d", st.MPI_ERROR);
  CHECK_MPI(MPI_Isend(sb, 8, MPI_BYTE, right, 9, comm, &sq));
  CHECK_MPI(MPI_Probe(left, 9, comm, &st));
  CHECK(st.MPI_ERROR == 4242, "Probe wrote status.MPI_ERROR = %d", st.MPI_ERROR);
  CHECK_MPI(MPI_Recv(rb, 8, MPI_BYTE, left, 9, comm, &st));
  CHECK(st.MPI_ERROR == 4242, "Recv wrote status.MPI_ERROR = %d", st.MPI_ERROR);
  CHECK_MPI(MPI_Irecv(rb, 8, MPI_BYTE, MPI_PROC_NULL, 9, comm, &rq[0]));
  CHECK_MPI(MPI_Wait(&rq[0], &st));
  CHECK(st.MPI_ERROR == 4242 && st.MPI_SOURCE == MPI_PROC_NULL, "Wait (PROC_NULL) wrote MPI_ERROR %d",
        st.MPI_ERROR);
  CHECK_MPI(MPI_Wait(&sq, MPI_STATUS_IGNORE));

  /* Calls completing several requests write the error fields only when they return
     MPI_ERR_IN_STATUS (MPI 4.1 3.2.5): not after a success. */
  for (int form = 0; form < 5; form++) {
    MPI_Request two[2];
    MPI_Status sts2[2];
    CHECK_MPI(MPI_Irecv(rb, 8, MPI_BYTE, left, 20 + form, comm, &two[0]));
    CHECK_MPI(MPI_Isend(sb, 8, MPI_BYTE, right, 20 + form, comm, &two[1]));
    for (int done = 0; done < 2;) {
      int flag = 0, n = 0, idx[2];
      sts2[0].MPI_ERROR = sts2[1].MPI_ERROR = 4242;
      if (form == 0) {
        CHECK_MPI(MPI_Waitall(2, two, sts2));
        n = 2;
      } else if (form == 1) {
        CHECK_MPI(MPI_Testall(2, two, &flag, sts2));
        n = flag ? 2 : 0;
      } else if (form == 2) {
        CHECK_MPI(MPI_Waitsome(2, two, &n, idx, sts2));
      } else if (form == 3) {
        CHECK_MPI(MPI_Testsome(2, two, &n, idx, sts2));
      } else {
        CHECK_MPI(MPI_Request_get_status_all(2, two, &flag, sts2));
        if (flag)
          CHECK_MPI(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
        n = flag ? 2 : 0;
      }
      for (int k = 0; k < n && n != MPI_UNDEFINED; k++)
        CHECK(sts2[k].MPI_ERROR == 4242, "form %d wrote status[%d].MPI_ERROR = %d after a success", form, k,
              sts2[k].MPI_ERROR);
      done += n == MPI_UNDEFINED ? 2 : n;
    }
  }

  /* MPI_Request_get_status and its _any/_all/_some forms report a truncated receive's error as the
     Test calls do (they said success), and leave the requests for a later completion call. */
  for (int form = 0; form < 4; form++) {
    MPI_Request two[2];
    MPI_Status sts2[2];
    int flag = 0, idx = -1, n = -1, idxs[2];
    CHECK_MPI(MPI_Irecv(rb, 8, MPI_BYTE, left, 30 + form, comm, &two[0]));
    CHECK_MPI(MPI_Isend(sb, 32, MPI_BYTE, right, 30 + form, comm, &two[1]));
    while (!flag)
      MPI_Request_get_status_all(2, two, &flag, MPI_STATUSES_IGNORE);
    sts2[0].MPI_ERROR = sts2[1].MPI_ERROR = 4242;
    if (form == 0) {
      check_class(MPI_Request_get_status(two[0], &flag, &st), MPI_ERR_TRUNCATE, "Request_get_status");
    } else if (form == 1) {
      check_class(MPI_Request_get_status_any(1, two, &idx, &flag, &st), MPI_ERR_TRUNCATE, "Request_get_status_any");
      CHECK(idx == 0 && flag, "Request_get_status_any: index %d flag %d", idx, flag);
    } else {
      int rc = form == 2 ? MPI_Request_get_status_all(2, two, &flag, sts2)
                         : MPI_Request_get_status_some(2, two, &n, idxs, sts2);
      check_class(rc, MPI_ERR_IN_STATUS, form == 2 ? "Request_get_status_all" : "Request_get_status_some");
      CHECK(form == 2 || n == 2, "Request_get_status_some: outcount %d", n);
      int k = form == 2 || idxs[0] == 0 ? 0 : 1; /* the receive's status */
      check_class(sts2[k].MPI_ERROR, MPI_ERR_TRUNCATE, "the truncated receive's status");
      CHECK(sts2[1 - k].MPI_ERROR == MPI_SUCCESS, "the send's status error %d", sts2[1 - k].MPI_ERROR);
    }
    check_class(MPI_Waitall(2, two, sts2), MPI_ERR_IN_STATUS, "Waitall after Request_get_status");
    CHECK(two[0] == MPI_REQUEST_NULL && two[1] == MPI_REQUEST_NULL, "Waitall left requests");
  }

  /* Sendrecv with a short receive buffer. */
  CHECK_ERR(MPI_Sendrecv(sb, 32, MPI_BYTE, right, 6, rb, 8, MPI_BYTE, left, 6, comm, &st),
            MPI_ERR_TRUNCATE);

  /* The communicator still works, and a receive of exactly the right size is fine. */
  empi_fill(sb, 1000, empi_seed(rank, right, 9));
  CHECK_MPI(MPI_Sendrecv(sb, 1000, MPI_BYTE, right, 7, rb, 1000, MPI_BYTE, left, 7, comm, &st));
  CHECK_PATTERN(rb, 1000, empi_seed(left, rank, 9));
  CHECK_MPI(MPI_Barrier(comm));

  CHECK_MPI(MPI_Comm_free(&comm));
  free(sb);
  free(rb);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
