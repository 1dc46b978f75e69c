/*
 * Combined send-receive: Sendrecv and Sendrecv_replace around a ring (the classic shift that
 * would deadlock with blocking sends), plus PROC_NULL ends. Nonblocking forms: pt2pt_isendrecv.c.
 */
#include "empi_test.h"

#include <stdlib.h>

static const int sizes[] = {0, 1, 333, 8192, 100000, 1 << 20};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

static void check_status(MPI_Status *st, int src, int tag, int len) {
  int count = -1;
  CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag, "status src %d tag %d, expected %d/%d",
        st->MPI_SOURCE, st->MPI_TAG, src, tag);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK(count == len, "count %d, expected %d", count, len);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char *sb = malloc(1 << 20), *rb = malloc(1 << 20);
  CHECK(sb && rb, "malloc");
  MPI_Status st;

  for (int i = 0; i < NSIZES; i++) {
    int n = sizes[i];
    /* Sendrecv: send right, receive from left; tags differ so each half is checked. */
    empi_fill(sb, (size_t)n, empi_seed(rank, right, i));
    CHECK_MPI(MPI_Sendrecv(sb, n, MPI_BYTE, right, 10 + i, rb, n, MPI_BYTE, left, 10 + i,
                           MPI_COMM_WORLD, &st));
    check_status(&st, left, 10 + i, n);
    CHECK_PATTERN(rb, (size_t)n, empi_seed(left, rank, i));
    CHECK_PATTERN(sb, (size_t)n, empi_seed(rank, right, i)); /* send buffer untouched */

    /* Sendrecv_replace: the buffer goes out and is overwritten by the incoming data. */
    empi_fill(sb, (size_t)n, empi_seed(rank, right, 50 + i));
    CHECK_MPI(MPI_Sendrecv_replace(sb, n, MPI_BYTE, right, 20, left, MPI_ANY_TAG, MPI_COMM_WORLD,
                                   &st));
    check_status(&st, left, 20, n);
    CHECK_PATTERN(sb, (size_t)n, empi_seed(left, rank, 50 + i));

  }

  /* Open chain: rank 0 has no left, the last rank no right (PROC_NULL). At size 1 both. */
  int cl = rank == 0 ? MPI_PROC_NULL : rank - 1;
  int cr = rank == size - 1 ? MPI_PROC_NULL : rank + 1;
  empi_fill(sb, 64, empi_seed(rank, cr, 7));
  empi_fill(rb, 64, 12345);
  CHECK_MPI(MPI_Sendrecv(sb, 64, MPI_BYTE, cr, 5, rb, 64, MPI_BYTE, cl, 5, MPI_COMM_WORLD, &st));
  if (cl == MPI_PROC_NULL) {
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    CHECK_PATTERN(rb, 64, 12345); /* receive from PROC_NULL leaves the buffer alone */
  } else {
    check_status(&st, cl, 5, 64);
    CHECK_PATTERN(rb, 64, empi_seed(cl, rank, 7));
  }

  free(sb);
  free(rb);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
