/*
 * MPI_IN_PLACE in the alltoall family reads only the receive blocks' type-map entries: here the
 * blocks are separated by inaccessible (PROT_NONE) pages, and alltoallw's blocks are given as
 * absolute addresses from MPI_BOTTOM, one on the stack and one on the heap. A raw copy of the span
 * from the lowest to the highest block crashed or failed; every block must be exchanged exactly.
 * The CMake file runs it under each alltoall(v/w) algorithm.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "empi_test.h"

#define N 4

static int want(int from, int to, int i)
{
  return from * 1000 + to * 10 + i;
}

static void check_blocks(int **block, int p, const char *what)
{
  int me = empi_rank();
  for (int r = 0; r < p; r++)
    for (int i = 0; i < N; i++)
      CHECK(block[r][i] == want(r, me, i), "%s: block from %d [%d] = %d", what, r, i, block[r][i]);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me = empi_rank(), p = empi_size();
  long pg = sysconf(_SC_PAGESIZE);
  char *base = mmap(NULL, (size_t)(2 * p) * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(base != MAP_FAILED, "mmap");
  int **block = malloc((size_t)p * sizeof *block), *counts = malloc((size_t)p * sizeof(int));
  int *displs = malloc((size_t)p * sizeof(int));
  CHECK(block && counts && displs, "malloc");
  for (int r = 0; r < p; r++) {
    CHECK(mprotect(base + (2 * r + 1) * pg, (size_t)pg, PROT_NONE) == 0, "mprotect");
    block[r] = (int *)(base + 2 * r * pg);
    counts[r] = N;
    displs[r] = (int)(2 * r * pg / (long)sizeof(int));
  }

  /* alltoallv: int displacements, a guard page after every block */
  for (int r = 0; r < p; r++)
    for (int i = 0; i < N; i++)
      block[r][i] = want(me, r, i);
  CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, base, counts, displs, MPI_INT, MPI_COMM_WORLD));
  check_blocks(block, p, "alltoallv");

  /* alltoall: each block a type whose extent spans its guard page, which holds no entry */
  MPI_Datatype spread, blk;
  CHECK_MPI(MPI_Type_contiguous(N, MPI_INT, &blk));
  CHECK_MPI(MPI_Type_create_resized(blk, 0, 2 * pg, &spread));
  CHECK_MPI(MPI_Type_commit(&spread));
  for (int r = 0; r < p; r++)
    for (int i = 0; i < N; i++)
      block[r][i] = want(me, r, i);
  CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, base, 1, spread, MPI_COMM_WORLD));
  check_blocks(block, p, "alltoall");
  CHECK_MPI(MPI_Type_free(&spread));
  CHECK_MPI(MPI_Type_free(&blk));

  /* alltoallw (large-count form: address displacements) on MPI_BOTTOM: absolute addresses, block
     0 on the stack, the others in the mapping */
  int on_stack[N];
  int **wblock = malloc((size_t)p * sizeof *wblock);
  MPI_Count *wcounts = malloc((size_t)p * sizeof(MPI_Count));
  MPI_Aint *wdispls = malloc((size_t)p * sizeof(MPI_Aint));
  MPI_Datatype *types = malloc((size_t)p * sizeof(MPI_Datatype));
  CHECK(wblock && wcounts && wdispls && types, "malloc");
  for (int r = 0; r < p; r++) {
    wblock[r] = r == 0 ? on_stack : block[r];
    CHECK_MPI(MPI_Get_address(wblock[r], &wdispls[r]));
    wcounts[r] = N;
    types[r] = MPI_INT;
    for (int i = 0; i < N; i++)
      wblock[r][i] = want(me, r, i);
  }
  CHECK_MPI(MPI_Alltoallw_c(MPI_IN_PLACE, NULL, NULL, NULL, MPI_BOTTOM, wcounts, wdispls, types, MPI_COMM_WORLD));
  check_blocks(wblock, p, "alltoallw");
  free(wblock);
  free(wcounts);
  free(wdispls);
  free(types);
  free(block);
  free(counts);
  free(displs);
  munmap(base, (size_t)(2 * p) * (size_t)pg);
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
