/*
 * Status inspection: Get_count vs Get_elements(_x) with a derived type (whole vs partial
 * elements, MPI_UNDEFINED), the Status_set_* setters used by generalized requests and layered
 * libraries, and the MPI 4 large-count (_c) send/receive/count calls.
 */
#include "empi_test.h"

#include <string.h>

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[16], in[16], count, elems;
  MPI_Count xcount;
  MPI_Status st;
  MPI_Request rq[2];

  for (int i = 0; i < 16; i++) out[i] = rank * 100 + i;
  MPI_Datatype tri;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &tri));
  CHECK_MPI(MPI_Type_commit(&tri));

  /* 6 ints = exactly 2 triples. */
  CHECK_MPI(MPI_Irecv(in, 5, tri, left, 1, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(out, 6, MPI_INT, right, 1, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Wait(&rq[0], &st));
  CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Get_count(&st, tri, &count));
  CHECK_MPI(MPI_Get_elements(&st, tri, &elems));
  CHECK(count == 2 && elems == 6, "6 ints as triples: count %d elements %d", count, elems);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 6, "6 ints: Get_count(MPI_INT) %d", count);
  for (int i = 0; i < 6; i++) CHECK(in[i] == left * 100 + i, "data %d", i);

  /* 7 ints: not a whole number of triples -> count MPI_UNDEFINED, elements still 7. */
  CHECK_MPI(MPI_Irecv(in, 5, tri, left, 3, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(out, 7, MPI_INT, right, 3, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Wait(&rq[0], &st));
  CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Get_count(&st, tri, &count));
  CHECK(count == MPI_UNDEFINED, "7 ints as triples: Get_count %d, expected MPI_UNDEFINED", count);
  CHECK_MPI(MPI_Get_elements(&st, tri, &elems));
  CHECK(elems == 7, "7 ints as triples: Get_elements %d", elems);
  CHECK_MPI(MPI_Get_elements_x(&st, tri, &xcount));
  CHECK(xcount == 7, "Get_elements_x %lld", (long long)xcount);
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == 7 * (int)sizeof(int), "7 ints in bytes: %d", count);
  /* 7*4 bytes counted in doubles is not whole either. */
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
  CHECK(count == MPI_UNDEFINED, "28 bytes as doubles: %d", count);

  /* Setters: values round-trip through the getters. */
  memset(&st, 0, sizeof st);
  CHECK_MPI(MPI_Status_set_elements(&st, MPI_INT, 10));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 10, "set_elements(INT,10): Get_count %d", count);
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == 10 * (int)sizeof(int), "set_elements(INT,10): bytes %d", count);
  CHECK_MPI(MPI_Status_set_elements(&st, tri, 4)); /* 4 ints: one triple + one extra */
  CHECK_MPI(MPI_Get_count(&st, tri, &count));
  CHECK(count == MPI_UNDEFINED, "set_elements(tri,4): Get_count %d", count);
  CHECK_MPI(MPI_Get_elements(&st, tri, &elems));
  CHECK(elems == 4, "set_elements(tri,4): Get_elements %d", elems);
  CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_DOUBLE, (MPI_Count)5));
  CHECK_MPI(MPI_Get_elements_x(&st, MPI_DOUBLE, &xcount));
  CHECK(xcount == 5, "set_elements_x(DOUBLE,5): Get_elements_x %lld", (long long)xcount);
  CHECK_MPI(MPI_Status_set_elements_c(&st, MPI_CHAR, (MPI_Count)3000000000LL));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_CHAR, &xcount));
  CHECK(xcount == 3000000000LL, "set_elements_c beyond INT_MAX: Get_count_c %lld",
        (long long)xcount);
  /* That count does not fit an int: the int getter must say MPI_UNDEFINED. */
  CHECK_MPI(MPI_Get_count(&st, MPI_CHAR, &count));
  CHECK(count == MPI_UNDEFINED, "int Get_count of a >INT_MAX count gave %d", count);
  int flag = -1;
  CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag, "set_cancelled(1) not seen by Test_cancelled");
  CHECK_MPI(MPI_Status_set_cancelled(&st, 0));
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag, "set_cancelled(0) not seen by Test_cancelled");

  /* Large-count API with ordinary sizes: _c send/recv, _c count. */
  MPI_Count n = 13;
  if (size == 1) {
    CHECK_MPI(MPI_Irecv_c(in, n, MPI_INT, left, 4, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend_c(out, n, MPI_INT, right, 4, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rq[0], &st));
  } else if (rank % 2 == 0) {
    CHECK_MPI(MPI_Send_c(out, n, MPI_INT, right, 4, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv_c(in, 16, MPI_INT, left, 4, MPI_COMM_WORLD, &st));
  } else {
    CHECK_MPI(MPI_Recv_c(in, 16, MPI_INT, left, 4, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Send_c(out, n, MPI_INT, right, 4, MPI_COMM_WORLD));
  }
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &xcount));
  CHECK(xcount == 13, "Get_count_c %lld", (long long)xcount);
  CHECK_MPI(MPI_Get_elements_c(&st, MPI_INT, &xcount));
  CHECK(xcount == 13, "Get_elements_c %lld", (long long)xcount);
  for (int i = 0; i < 13; i++) CHECK(in[i] == left * 100 + i, "_c data %d", i);

  CHECK_MPI(MPI_Type_free(&tri));
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
