/*
 * Concurrency guarantees of one-sided MPI, on an allocated and a created window:
 *   - every rank accumulates into one location at once: the exact total;
 *   - fetch_and_op counters: every fetched ticket distinct, the final count exact;
 *   - a compare-and-swap spin lock protects a counter updated with plain get/put;
 *   - exclusive locks exclude: inside one, nobody else's marker is ever seen;
 *   - get_accumulate with MPI_NO_OP and MPI_REPLACE, accumulate on doubles (CAS-loop path) and
 *     on MINLOC pairs (locked path).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

#define ITERS 200

enum { SUM = 0, TICKET = 1, LOCKWORD = 2, COUNTER = 3, MARK = 4, DSUM = 5, PAIR = 6, WORDS = 8 };

static int rank, size;

static void sum_all(MPI_Win win)
{
  long long one = 1, many[4] = {1, 2, 3, 4};
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int i = 0; i < ITERS; i++) {
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, SUM, 1, MPI_LONG_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(many, 1, MPI_LONG_LONG, 0, SUM, 1, MPI_LONG_LONG, MPI_SUM, win));
  }
  double d = 0.5;
  for (int i = 0; i < ITERS; i++)
    CHECK_MPI(MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, DSUM, 1, MPI_DOUBLE, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock_all(win));
}

static void tickets(MPI_Win win)
{
  long long one = 1, got;
  char *seen = calloc((size_t)size * ITERS, 1);
  long long *mine = malloc(sizeof(long long) * ITERS);
  CHECK(seen && mine, "malloc");
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  for (int i = 0; i < ITERS; i++) {
    CHECK_MPI(MPI_Fetch_and_op(&one, &got, MPI_LONG_LONG, 0, TICKET, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    mine[i] = got;
  }
  CHECK_MPI(MPI_Win_unlock(0, win));
  long long *all = malloc(sizeof(long long) * ITERS * (size_t)size);
  CHECK(all != NULL, "malloc");
  CHECK_MPI(MPI_Allgather(mine, ITERS, MPI_LONG_LONG, all, ITERS, MPI_LONG_LONG, MPI_COMM_WORLD));
  for (int i = 0; i < size * ITERS; i++) {
    CHECK(all[i] >= 0 && all[i] < size * ITERS, "ticket %lld out of range", all[i]);
    CHECK(!seen[all[i]], "ticket %lld handed out twice", all[i]);
    seen[all[i]] = 1;
  }
  free(all);
  free(seen);
  free(mine);
}

static void spin_lock(MPI_Win win)
{
  long long zero = 0, me = rank + 1, old;
  for (int i = 0; i < ITERS / 4; i++) {
    CHECK_MPI(MPI_Win_lock_all(0, win));
    do {
      CHECK_MPI(MPI_Compare_and_swap(&me, &zero, &old, MPI_LONG_LONG, 0, LOCKWORD, win));
      CHECK_MPI(MPI_Win_flush(0, win));
    } while (old != 0);
    long long v;
    CHECK_MPI(MPI_Get(&v, 1, MPI_LONG_LONG, 0, COUNTER, 1, MPI_LONG_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    v++;
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG_LONG, 0, COUNTER, 1, MPI_LONG_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK_MPI(MPI_Compare_and_swap(&zero, &me, &old, MPI_LONG_LONG, 0, LOCKWORD, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(old == me, "spin lock held by %lld while I (%lld) released it", old, me);
    CHECK_MPI(MPI_Win_unlock_all(win));
  }
}

static void exclusive(MPI_Win win)
{
  long long me = rank + 1, zero = 0, seen;
  for (int i = 0; i < ITERS / 4; i++) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Get(&seen, 1, MPI_LONG_LONG, 0, MARK, 1, MPI_LONG_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(seen == 0, "rank %lld is inside the exclusive lock with me", seen);
    CHECK_MPI(MPI_Put(&me, 1, MPI_LONG_LONG, 0, MARK, 1, MPI_LONG_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK_MPI(MPI_Get(&seen, 1, MPI_LONG_LONG, 0, MARK, 1, MPI_LONG_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(seen == me, "marker overwritten by %lld inside my exclusive lock", seen);
    CHECK_MPI(MPI_Put(&zero, 1, MPI_LONG_LONG, 0, MARK, 1, MPI_LONG_LONG, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
}

static void pairs_and_noop(MPI_Win win)
{
  struct {
    int v, idx;
  } p = {100 - rank, rank}, got;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Accumulate(&p, 1, MPI_2INT, 0, PAIR, 1, MPI_2INT, MPI_MINLOC, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, &got, 1, MPI_2INT, 0, PAIR, 1, MPI_2INT, MPI_NO_OP,
                               win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(got.v == 100 - (size - 1) && got.idx == size - 1, "MINLOC gave (%d, %d)", got.v, got.idx);
}

static void run(MPI_Win win, long long *mem)
{
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    for (int i = 0; i < WORDS; i++)
      mem[i] = 0;
    ((int *)&mem[PAIR])[0] = 1 << 30;
    ((int *)&mem[PAIR])[1] = -1;
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  sum_all(win);
  tickets(win);
  spin_lock(win);
  exclusive(win);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* EtherMPI's active-message path (EMPI_RMA_PATH=am) does not take pair types yet */
  const char *path = getenv("EMPI_RMA_PATH");
  int pairs = !(path && strcmp(path, "am") == 0);
  if (pairs)
    pairs_and_noop(win);
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(mem[SUM] == (long long)size * ITERS * 2, "sum %lld, want %lld", mem[SUM], (long long)size * ITERS * 2);
    CHECK(mem[TICKET] == (long long)size * ITERS, "tickets %lld", mem[TICKET]);
    CHECK(mem[COUNTER] == (long long)size * (ITERS / 4), "counter %lld", mem[COUNTER]);
    CHECK(mem[LOCKWORD] == 0 && mem[MARK] == 0, "lock word %lld, mark %lld", mem[LOCKWORD], mem[MARK]);
    double d = *(double *)&mem[DSUM];
    CHECK(d == 0.5 * ITERS * size, "double sum %g", d);
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* MPI_REPLACE through get_accumulate: swap in my rank, everyone sees a valid previous owner. */
  long long me = rank, prev = -2;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get_accumulate(&me, 1, MPI_LONG_LONG, &prev, 1, MPI_LONG_LONG, 0, MARK, 1, MPI_LONG_LONG,
                               MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(prev >= 0 && prev < size, "replace fetched %lld", prev);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  rank = empi_rank();
  size = empi_size();
  long long *mem;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(WORDS * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                             &win));
  run(win, mem);
  CHECK_MPI(MPI_Win_free(&win));

  long long *priv = calloc(WORDS, sizeof(long long));
  CHECK(priv != NULL, "calloc");
  CHECK_MPI(MPI_Win_create(priv, WORDS * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  run(win, priv);
  CHECK_MPI(MPI_Win_free(&win));
  free(priv);
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
