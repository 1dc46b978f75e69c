/*
 * Argument checking under MPI_ERRORS_RETURN: invalid ranks, tags, counts, null handles, roots
 * and a freed communicator must come back as the right error CLASS (codes may carry extra
 * detail, so always compare through MPI_Error_class), each with a non-empty error string, and
 * must leave the library usable.
 */
#include "empi_test.h"

#include <string.h>

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  /* Errors on a communicator go to its handler; errors with no object (or a null one) go to
   * MPI_COMM_SELF's (MPI 4) or MPI_COMM_WORLD's (earlier practice): make all of them return. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  int buf[8] = {0}, x = 0;
  MPI_Request req;
  MPI_Status st;

  /* Ranks out of range, in sends and receives. */
  CHECK_ERR(MPI_Send(buf, 1, MPI_INT, size, 0, comm), MPI_ERR_RANK);
  CHECK_ERR(MPI_Send(buf, 1, MPI_INT, -5, 0, comm), MPI_ERR_RANK);
  CHECK_ERR(MPI_Isend(buf, 1, MPI_INT, size + 3, 0, comm, &req), MPI_ERR_RANK);
  CHECK_ERR(MPI_Recv(buf, 1, MPI_INT, size, 0, comm, &st), MPI_ERR_RANK);
  CHECK_ERR(MPI_Irecv(buf, 1, MPI_INT, -7, 0, comm, &req), MPI_ERR_RANK);
  /* MPI_ANY_SOURCE is not a valid destination. */
  CHECK_ERR(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm), MPI_ERR_RANK);

  /* Tags: negative (other than ANY_TAG on receives), or beyond MPI_TAG_UB. */
  CHECK_ERR(MPI_Send(buf, 1, MPI_INT, rank, -1, comm), MPI_ERR_TAG);
  CHECK_ERR(MPI_Isend(buf, 1, MPI_INT, rank, -100, comm, &req), MPI_ERR_TAG);
  CHECK_ERR(MPI_Irecv(buf, 1, MPI_INT, rank, -5, comm, &req), MPI_ERR_TAG);
  CHECK_ERR(MPI_Send(buf, 1, MPI_INT, rank, MPI_ANY_TAG, comm), MPI_ERR_TAG);
  int *tag_ub = NULL, flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag && tag_ub != NULL, "MPI_TAG_UB missing");
  if (*tag_ub < 0x7fffffff)
    CHECK_ERR(MPI_Send(buf, 1, MPI_INT, rank, *tag_ub + 1, comm), MPI_ERR_TAG);

  /* Counts. */
  CHECK_ERR(MPI_Send(buf, -1, MPI_INT, rank, 0, comm), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Irecv(buf, -3, MPI_INT, rank, 0, comm, &req), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Bcast(buf, -1, MPI_INT, 0, comm), MPI_ERR_COUNT);

  /* Null communicator. */
  CHECK_ERR(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_ERR(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
  CHECK_ERR(MPI_Comm_size(MPI_COMM_NULL, &x), MPI_ERR_COMM);
  CHECK_ERR(MPI_Comm_rank(MPI_COMM_NULL, &x), MPI_ERR_COMM);
  CHECK_ERR(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  MPI_Comm c2;
  CHECK_ERR(MPI_Comm_dup(MPI_COMM_NULL, &c2), MPI_ERR_COMM);

  /* Null datatype. */
  CHECK_ERR(MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, comm), MPI_ERR_TYPE);
  CHECK_ERR(MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, rank, 0, comm, &req), MPI_ERR_TYPE);
  int tsize = 0;
  CHECK_ERR(MPI_Type_size(MPI_DATATYPE_NULL, &tsize), MPI_ERR_TYPE);

  /* Roots out of range: every rank passes the same bad root, so all detect it. */
  CHECK_ERR(MPI_Bcast(buf, 1, MPI_INT, size, comm), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Bcast(buf, 1, MPI_INT, -1, comm), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Reduce(buf, buf + 4, 1, MPI_INT, MPI_SUM, size + 1, comm), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Gather(buf, 1, MPI_INT, buf + 4, 1, MPI_INT, -2, comm), MPI_ERR_ROOT);

  /* Null reduction operation. */
  CHECK_ERR(MPI_Allreduce(buf, buf + 4, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP);

  /* Request handles: Start on a null request. */
  MPI_Request nullreq = MPI_REQUEST_NULL;
  CHECK_ERR(MPI_Start(&nullreq), MPI_ERR_REQUEST);

  /* Group ranks out of range. */
  MPI_Group wg, ng;
  CHECK_MPI(MPI_Comm_group(comm, &wg));
  int bad[1] = {size};
  CHECK_ERR(MPI_Group_incl(wg, 1, bad, &ng), MPI_ERR_RANK);
  CHECK_MPI(MPI_Group_free(&wg));

  /* A freed communicator: Comm_free nulls the handle, and using it is MPI_ERR_COMM. */
  MPI_Comm gone;
  CHECK_MPI(MPI_Comm_dup(comm, &gone));
  CHECK_MPI(MPI_Comm_set_errhandler(gone, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_free(&gone));
  CHECK(gone == MPI_COMM_NULL, "Comm_free did not set the handle to MPI_COMM_NULL");
  CHECK_ERR(MPI_Send(buf, 1, MPI_INT, rank, 0, gone), MPI_ERR_COMM);
  CHECK_ERR(MPI_Comm_free(&gone), MPI_ERR_COMM);
  /* Predefined communicators cannot be freed. */
  MPI_Comm world = MPI_COMM_WORLD;
  CHECK_ERR(MPI_Comm_free(&world), MPI_ERR_COMM);

  /* Every predefined error class maps to itself and has a non-empty error string. */
  static const int classes[] = {
      MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM,
      MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_TOPOLOGY,
      MPI_ERR_DIMS, MPI_ERR_ARG, MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN,
      MPI_ERR_PENDING, MPI_ERR_IN_STATUS, MPI_ERR_ACCESS, MPI_ERR_AMODE, MPI_ERR_ASSERT,
      MPI_ERR_BAD_FILE, MPI_ERR_BASE, MPI_ERR_CONVERSION, MPI_ERR_DISP, MPI_ERR_DUP_DATAREP,
      MPI_ERR_FILE_EXISTS, MPI_ERR_FILE_IN_USE, MPI_ERR_FILE, MPI_ERR_INFO_KEY,
      MPI_ERR_INFO_NOKEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO, MPI_ERR_IO, MPI_ERR_KEYVAL,
      MPI_ERR_LOCKTYPE, MPI_ERR_NAME, MPI_ERR_NO_MEM, MPI_ERR_NOT_SAME, MPI_ERR_NO_SPACE,
      MPI_ERR_NO_SUCH_FILE, MPI_ERR_PORT, MPI_ERR_QUOTA, MPI_ERR_READ_ONLY, MPI_ERR_RMA_ATTACH,
      MPI_ERR_RMA_CONFLICT, MPI_ERR_RMA_RANGE, MPI_ERR_RMA_SHARED, MPI_ERR_RMA_SYNC,
      MPI_ERR_SERVICE, MPI_ERR_SIZE, MPI_ERR_SPAWN, MPI_ERR_UNSUPPORTED_DATAREP,
      MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_WIN, MPI_ERR_RMA_FLAVOR, MPI_ERR_PROC_ABORTED,
      MPI_ERR_VALUE_TOO_LARGE, MPI_ERR_SESSION, MPI_ERR_ERRHANDLER};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    char str[MPI_MAX_ERROR_STRING];
    int len = -1, c = -1;
    CHECK_MPI(MPI_Error_class(classes[i], &c));
    CHECK(c == classes[i], "Error_class(%d) = %d", classes[i], c);
    CHECK_MPI(MPI_Error_string(classes[i], str, &len));
    CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(str) == len,
          "Error_string(%d) length %d", classes[i], len);
    CHECK(classes[i] <= MPI_ERR_LASTCODE, "class %d above MPI_ERR_LASTCODE", classes[i]);
  }

  /* After all of that, communication still works on both communicators. */
  int sum = 0, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size, "Allreduce after errors gave %d", sum);
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, rank, 1, &x, 1, MPI_INT, rank, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  CHECK(x == rank, "self Sendrecv after errors gave %d", x);

  CHECK_MPI(MPI_Comm_free(&comm));
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
