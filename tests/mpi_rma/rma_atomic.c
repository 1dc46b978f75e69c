/*
 * Concurrency guarantees of one-sided MPI, on an allocated and a created window:
 *   - every rank accumulates into one location at once: the exact total;
 *   - fetch_and_op counters: every fetched ticket distinct, the final count exact;
 *   - a compare-and-swap spin lock protects a counter updated with plain get/put;
 *   - exclusive locks exclude: inside one, nobody else's marker is ever seen;
 *   - get_accumulate with MPI_NO_OP and MPI_REPLACE, accumulate on doubles (CAS-loop path) and
 *     on MINLOC pairs (locked path);
 *   - MINLOC and MAXLOC on MPI_DOUBLE_INT (a pair with a gap) into strided target elements, every
 *     rank at once, then fetched whole;
 *   - whole-array accumulates (under the accumulate lock) racing single-element ones and
 *     fetch_and_op (hardware atomics) on the same elements: exact totals;
 *   - small accumulates of MPI_CHAR and get_accumulates of int pairs (the straight-through path,
 *     under the lock) racing fetch_and_op on the same elements: every fetched value distinct.
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
  /* MPI_NO_OP ignores the origin: NULL with a count and type, on the atomic (one int, the pair's
     value) and the fetch-and-op paths too */
  int v1 = -1, v2 = -1;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get_accumulate(NULL, 1, MPI_INT, &v1, 1, MPI_INT, 0, PAIR, 1, MPI_INT, MPI_NO_OP, win));
  CHECK_MPI(MPI_Fetch_and_op(NULL, &v2, MPI_INT, 0, PAIR, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(v1 == got.v && v2 == got.v, "NO_OP with a NULL origin fetched %d and %d, want %d", v1, v2, got.v);
  /* no element: the op need not be defined on the type (MPI_SUM on MPI_BYTE) */
  char none = 0, none_back = 0;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get_accumulate(&none, 0, MPI_BYTE, &none_back, 0, MPI_BYTE, 0, PAIR, 0, MPI_BYTE, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(&none, 0, MPI_BYTE, 0, PAIR, 0, MPI_BYTE, MPI_PROD, win));
  /* empty transfers may pass NULL buffers; their requests complete */
  MPI_Request rq[2];
  CHECK_MPI(MPI_Put(NULL, 0, MPI_INT, 0, PAIR, 0, MPI_INT, win));
  CHECK_MPI(MPI_Rget(NULL, 0, MPI_INT, 0, PAIR, 0, MPI_INT, win, &rq[0]));
  CHECK_MPI(MPI_Rget_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, 0, PAIR, 0, MPI_INT, MPI_SUM, win, &rq[1]));
  CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Win_unlock(0, win));
}

typedef struct {
  double d;
  int i;
} dint_t;

/* Rank r's value for slot j: values repeat across ranks, so ties are broken by the index. */
static double dint_value(int r, int j) { return (double)((r * 7 + j * 3) % 5) + 0.25 * j; }

static void split_pairs(void)
{
  enum { N = 3, SLOTS = 2 * N };
  dint_t *mem;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(SLOTS * sizeof(dint_t), sizeof(dint_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    for (int j = 0; j < SLOTS; j++) mem[j] = (dint_t){j % 2 ? -1e300 : 1e300, -1};
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_DOUBLE_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  dint_t lo[N], hi[N];
  for (int j = 0; j < N; j++) {
    lo[j] = (dint_t){dint_value(rank, j), rank};
    hi[j] = (dint_t){dint_value(rank, j + N), rank};
  }
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Accumulate(lo, N, MPI_DOUBLE_INT, 0, 0, 1, every_other, MPI_MINLOC, win));
  CHECK_MPI(MPI_Accumulate(hi, N, MPI_DOUBLE_INT, 0, 1, 1, every_other, MPI_MAXLOC, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  dint_t got[SLOTS];
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, got, SLOTS, MPI_DOUBLE_INT, 0, 0, SLOTS, MPI_DOUBLE_INT,
                               MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  for (int j = 0; j < SLOTS; j++) {
    int k = j / 2 + (j % 2 ? N : 0);
    dint_t want = {dint_value(0, k), 0};
    for (int r = 1; r < size; r++) {
      double v = dint_value(r, k);
      if (j % 2 ? v > want.d : v < want.d) want = (dint_t){v, r};
    }
    CHECK(got[j].d == want.d && got[j].i == want.i, "%s slot %d: (%g, %d), want (%g, %d)",
          j % 2 ? "MAXLOC" : "MINLOC", j, got[j].d, got[j].i, want.d, want.i);
  }
  CHECK_MPI(MPI_Type_free(&every_other));
  CHECK_MPI(MPI_Win_free(&win));
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

/*
 * Whole-array accumulates (updated under the accumulate lock with plain loads and stores), single
 * elements and fetch_and_op (hardware atomics) on the same elements from every rank at once: a
 * lost update on either side shows in the exact totals.
 */
static void bulk_with_atomics(void)
{
  enum { N = 1024, ROUNDS = 60 };
  long long *mem, *ones = malloc(N * sizeof(long long)), one = 1, ticket;
  double *dmem, *dones = malloc(N * sizeof(double)), dhalf = 0.5;
  for (int j = 0; j < N; j++)
    ones[j] = 1, dones[j] = 0.25;
  MPI_Win win, dwin;
  CHECK_MPI(MPI_Win_allocate(N * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  CHECK_MPI(MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &dmem, &dwin));
  memset(mem, 0, N * sizeof(long long));
  memset(dmem, 0, N * sizeof(double));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(MPI_Win_lock_all(0, dwin));
  for (int i = 0; i < ROUNDS; i++) {
    int t = i % size, j = (i * 37 + rank * 11) % N;
    CHECK_MPI(MPI_Accumulate(ones, N, MPI_LONG_LONG, t, 0, N, MPI_LONG_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG_LONG, t, j, 1, MPI_LONG_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Fetch_and_op(&one, &ticket, MPI_LONG_LONG, t, 0, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(dones, N, MPI_DOUBLE, t, 0, N, MPI_DOUBLE, MPI_SUM, dwin));
    CHECK_MPI(MPI_Accumulate(&dhalf, 1, MPI_DOUBLE, t, j, 1, MPI_DOUBLE, MPI_SUM, dwin));
    if (i % 8 == 0) {
      CHECK_MPI(MPI_Win_flush(t, win));
      CHECK_MPI(MPI_Win_flush(t, dwin));
    }
  }
  CHECK_MPI(MPI_Win_unlock_all(dwin));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* what every rank did to me: the same rounds replayed */
  long long bulk = 0, fops = 0, *single = calloc(N, sizeof(long long));
  for (int r = 0; r < size; r++)
    for (int i = 0; i < ROUNDS; i++)
      if (i % size == rank) {
        bulk++, fops++;
        single[(i * 37 + r * 11) % N]++;
      }
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, dwin));
  for (int j = 0; j < N; j++) {
    long long w = bulk + single[j] + (j == 0 ? fops : 0);
    double dw = 0.25 * (double)bulk + 0.5 * (double)single[j];
    CHECK(mem[j] == w, "bulk+atomic element %d: %lld, want %lld", j, mem[j], w);
    CHECK(dmem[j] == dw, "bulk+atomic double element %d: %g, want %g", j, dmem[j], dw);
  }
  CHECK_MPI(MPI_Win_unlock(rank, dwin));
  CHECK_MPI(MPI_Win_unlock(rank, win));
  CHECK_MPI(MPI_Win_free(&dwin));
  CHECK_MPI(MPI_Win_free(&win));
  free(ones), free(dones), free(single);
}

/*
 * Everyone at rank 0's bytes: 8-char accumulates and 2-int get_accumulates (several elements: the
 * exclusive lock) mixed with single-element fetch_and_ops (hardware atomics) on the same char and
 * int. Each int update is a ticket: the old values fetched by all ranks, through either path, must
 * be 0, 1, 2, ... with none twice; the chars must hold the exact count.
 */
static void small_tickets(int created)
{
  enum { ROUNDS = 7 };   /* 8 ranks x 7 rounds x 2 updates of one char stay below 128 */
  char ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, cone = 1, cold, *mem, *priv = NULL;
  int pair[2] = {1, 1}, got[2], ione = 1, mine[3 * ROUNDS];
  MPI_Win win;
  if (created) {   /* private memory: the general path (CMA or active messages) */
    mem = priv = calloc(16, 1);
    CHECK_MPI(MPI_Win_create(priv, 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  } else {
    CHECK_MPI(MPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    memset(mem, 0, 16);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  for (int i = 0; i < ROUNDS; i++) {
    CHECK_MPI(MPI_Accumulate(ones, 8, MPI_CHAR, 0, 0, 8, MPI_CHAR, MPI_SUM, win));
    CHECK_MPI(MPI_Fetch_and_op(&cone, &cold, MPI_CHAR, 0, 3, MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(pair, 2, MPI_INT, got, 2, MPI_INT, 0, 8, 2, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    mine[3 * i] = got[0], mine[3 * i + 1] = got[1];
    CHECK_MPI(MPI_Fetch_and_op(&ione, &mine[3 * i + 2], MPI_INT, 0, 8, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
  }
  CHECK_MPI(MPI_Win_unlock(0, win));
  int *all = malloc(sizeof(int) * 3 * ROUNDS * (size_t)size);
  char *seen = calloc((size_t)size * 2 * ROUNDS, 2);
  CHECK(all && seen, "malloc");
  CHECK_MPI(MPI_Allgather(mine, 3 * ROUNDS, MPI_INT, all, 3 * ROUNDS, MPI_INT, MPI_COMM_WORLD));
  for (int k = 0; k < 3 * ROUNDS * size; k++) {
    int second = k % 3 == 1, v = all[k], n = second ? size * ROUNDS : 2 * size * ROUNDS;
    CHECK(v >= 0 && v < n, "%s int fetched %d, outside [0, %d)", second ? "second" : "first", v, n);
    if (v >= 0 && v < n) {
      CHECK(!seen[second * 2 * size * ROUNDS + v], "%s int: value %d fetched twice", second ? "second" : "first", v);
      seen[second * 2 * size * ROUNDS + v] = 1;
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    for (int j = 0; j < 8; j++) {
      int want = size * ROUNDS * (j == 3 ? 2 : 1);
      CHECK(mem[j] == want, "char %d: %d, want %d", j, mem[j], want);
    }
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Win_free(&win));
  free(all), free(seen), free(priv);
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
  split_pairs();
  bulk_with_atomics();
  small_tickets(0);
  small_tickets(1);

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
