/*
 * Shared-memory windows: MPI_Win_allocate_shared + MPI_Win_shared_query give every rank a pointer
 * to every other rank's memory; stores become visible to loads after MPI_Win_sync and a barrier
 * (the unified model's recipe). Default allocation is contiguous across ranks; with
 * alloc_shared_noncontig it need not be. Also checks the predefined window attributes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

#define WORDS 64

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int disp_unit, int flavor)
{
  void *v;
  int flag;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
  CHECK(flag && v == base, "MPI_WIN_BASE %p, want %p", v, base);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag));
  CHECK(flag && *(MPI_Aint *)v == size, "MPI_WIN_SIZE %ld", (long)*(MPI_Aint *)v);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
  CHECK(flag && *(int *)v == disp_unit, "MPI_WIN_DISP_UNIT %d", *(int *)v);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
  CHECK(flag && *(int *)v == flavor, "MPI_WIN_CREATE_FLAVOR %d", *(int *)v);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
  CHECK(flag && *(int *)v == MPI_WIN_UNIFIED, "MPI_WIN_MODEL %d", *(int *)v);
}

static void visibility(int noncontig)
{
  int rank = empi_rank(), size = empi_size();
  MPI_Info info = MPI_INFO_NULL;
  if (noncontig) {
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
  }
  /* ranks allocate different sizes (rank 0 the most) to exercise the layout */
  MPI_Aint bytes = (MPI_Aint)(WORDS + (rank == 0 ? 8 : 0)) * (MPI_Aint)sizeof(int64_t);
  int64_t *mine;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared(bytes, sizeof(int64_t), info, MPI_COMM_WORLD, &mine, &win));
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
  check_attrs(win, mine, bytes, sizeof(int64_t), MPI_WIN_FLAVOR_SHARED);

  int64_t **peer = malloc(sizeof(int64_t *) * (size_t)size);
  CHECK(peer != NULL, "malloc");
  for (int r = 0; r < size; r++) {
    MPI_Aint sz;
    int du;
    CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &peer[r]));
    CHECK(du == (int)sizeof(int64_t), "disp_unit %d", du);
    CHECK(sz == (MPI_Aint)(WORDS + (r == 0 ? 8 : 0)) * (MPI_Aint)sizeof(int64_t), "size of rank %d: %ld", r, (long)sz);
    if (r == rank)
      CHECK(peer[r] == mine, "shared_query of myself gives %p, not my base %p", (void *)peer[r], (void *)mine);
    if (!noncontig && r > 0)
      CHECK((char *)peer[r] == (char *)peer[r - 1] + (r == 1 ? WORDS + 8 : WORDS) * sizeof(int64_t),
            "memory of rank %d does not follow rank %d's", r, r - 1);
  }
  MPI_Aint sz0;
  int du0;
  void *p0;
  CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz0, &du0, &p0));
  CHECK(p0 == peer[0], "MPI_PROC_NULL query is not rank 0's memory");

  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  for (int round = 0; round < 20; round++) {
    int next = (rank + 1) % size;
    for (int i = 0; i < WORDS; i++)
      peer[next][i] = (int64_t)rank * 1000000 + round * 1000 + i; /* store into the neighbour */
    CHECK_MPI(MPI_Win_sync(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_sync(win));
    int prev = (rank - 1 + size) % size;
    for (int i = 0; i < WORDS; i++)
      CHECK(mine[i] == (int64_t)prev * 1000000 + round * 1000 + i, "round %d: word %d = %lld", round, i,
            (long long)mine[i]);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  free(peer);
  CHECK_MPI(MPI_Win_free(&win));
}

/* MPI 4.1 lets any flavor be queried: memory this process cannot load from gives size 0, NULL;
   its own memory it can always. */
static void query_other_flavors(void)
{
  int rank = empi_rank(), size = empi_size(), mem[4];
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  for (int r = 0; r < size; r++) {
    MPI_Aint sz = -1;
    int du = 0;
    void *p = mem;
    CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
    CHECK(du == sizeof(int), "created window: disp_unit %d of rank %d", du, r);
    CHECK((sz == 0 && p == NULL) || (sz == (MPI_Aint)sizeof mem && p != NULL),
          "created window, rank %d: size %ld with base %p", r, (long)sz, p);
    /* a process can always load from its own memory */
    if (r == rank)
      CHECK(sz == (MPI_Aint)sizeof mem && p == mem, "my own created memory: size %ld at %p, not %p", (long)sz, p,
            (void *)mem);
  }
  CHECK_MPI(MPI_Win_free(&win));
  int *base;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_Aint sz;
  int du;
  int *p;
  CHECK_MPI(MPI_Win_shared_query(win, rank, &sz, &du, &p));
  CHECK(sz == sizeof(int) && p == base, "allocated window: my size %ld at %p, base %p", (long)sz, (void *)p,
        (void *)base);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_shared_query(win, 0, &sz, &du, &p));
  CHECK(sz == 0 && p == NULL, "dynamic window: size %ld at %p", (long)sz, (void *)p);
  CHECK_MPI(MPI_Win_free(&win));
}

/* mpi_minimum_memory_alignment beyond a page: every allocated base (and, not contiguous, every
   rank's shared memory) starts on that boundary, and the memory is usable to its last byte. */
static void aligned_windows(void)
{
  const MPI_Aint align = 1 << 21;
  int rank = empi_rank(), size = empi_size();
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "mpi_minimum_memory_alignment", "2097152"));
  for (int flavor = 0; flavor < 3; flavor++) {
    if (flavor == 2) CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    MPI_Aint bytes = 3000 + 1000 * rank;
    char *base;
    MPI_Win win;
    if (flavor == 0)
      CHECK_MPI(MPI_Win_allocate(bytes, 1, info, MPI_COMM_WORLD, &base, &win));
    else
      CHECK_MPI(MPI_Win_allocate_shared(bytes, 1, info, MPI_COMM_WORLD, &base, &win));
    if (flavor != 1 || rank == 0)
      CHECK((uintptr_t)base % align == 0, "flavor %d: rank %d's base %p is not 2 MiB aligned", flavor, rank,
            (void *)base);
    memset(base, rank + 1, (size_t)bytes);
    CHECK_MPI(MPI_Win_fence(0, win));
    if (flavor == 2)
      for (int r = 0; r < size; r++) {
        MPI_Aint sz;
        int du;
        unsigned char *p;
        CHECK_MPI(MPI_Win_shared_query(win, r, &sz, &du, &p));
        CHECK((uintptr_t)p % align == 0 && p[sz - 1] == r + 1, "rank %d's shared memory at %p holds %d", r,
              (void *)p, p[sz - 1]);
      }
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_free(&win));
  }
  CHECK_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  visibility(0);
  visibility(1);
  query_other_flavors();
  aligned_windows();
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
