/*
 * Accumulates whose origin, target or result datatype is derived, racing contiguous ones and
 * fetch_and_op on the same elements (element-wise atomicity holds across layouts):
 *   - every rank sums into every target's elements through a scattered indexed target type and a
 *     strided origin, and through a contiguous accumulate: exact totals, each element landing
 *     where its stream position says;
 *   - ticket counters taken with get_accumulate through a strided target and a strided result,
 *     and with fetch_and_op on single elements, counter j stepping by j + 1: every ticket handed
 *     out once per counter, none from another counter;
 *   - the same sums on doubles;
 *   - MPI_REPLACE through a derived origin, then MPI_NO_OP through a derived target and result;
 *     MPI_REPLACE through a strided target, the words between its elements untouched.
 * With the argument "derived" the contiguous operations are left out (across hosts the run then
 * counts only transport atomics taken by derived layouts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

#define N 16         /* summed elements */
#define K 8          /* ticket counters, every second element after the sums */
#define ITERS 50
#define WORDS (N + 2 * K)

static int rank, size, derived_only;

/* Target elements in stream order of the scattered type: blocks out of order, two of them abutting. */
static const int blens[] = {3, 2, 1, 4, 3, 3};
static const int disps[] = {10, 0, 9, 2, 6, 13};
static int stream_to_elem[N];

static MPI_Datatype scattered(MPI_Datatype base)
{
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_indexed(6, blens, disps, base, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

static MPI_Datatype strided(int count, int stride, MPI_Datatype base)
{
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(count, 1, stride, base, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

/* What rank r adds to element j in one iteration of one kind of accumulate. */
static long long part(int r, int j) { return (long long)(r + 1) * (j + 1); }

static void sums_and_tickets(MPI_Win win, long long *mem)
{
  MPI_Datatype scat = scattered(MPI_LONG_LONG), every2 = strided(N, 2, MPI_LONG_LONG);
  MPI_Datatype tick_t = strided(K, 2, MPI_LONG_LONG), tick_r = strided(K, 3, MPI_LONG_LONG);
  long long spread[2 * N], contig[N], steps[K], got[3 * K];
  for (int i = 0; i < N; i++) {
    spread[2 * i] = part(rank, stream_to_elem[i]);
    spread[2 * i + 1] = -1000000;   /* in the gaps: must never arrive */
    contig[i] = part(rank, i);
  }
  for (int j = 0; j < K; j++)
    steps[j] = j + 1;
  long long *mine = malloc(sizeof(long long) * K * ITERS * 2);
  int nmine = 0;
  CHECK(mine != NULL, "malloc");

  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int i = 0; i < ITERS; i++) {
    for (int d = 0; d < size; d++) {
      int t = (rank + d) % size;
      CHECK_MPI(MPI_Accumulate(spread, 1, every2, t, 0, 1, scat, MPI_SUM, win));
      if (!derived_only)
        CHECK_MPI(MPI_Accumulate(contig, N, MPI_LONG_LONG, t, 0, N, MPI_LONG_LONG, MPI_SUM, win));
    }
    /* Tickets from rank 0's counters. */
    memset(got, 0xff, sizeof got);
    CHECK_MPI(MPI_Get_accumulate(steps, K, MPI_LONG_LONG, got, 1, tick_r, 0, N, 1, tick_t, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    for (int j = 0; j < K; j++) {
      CHECK(got[3 * j + 1] == -1 && got[3 * j + 2] == -1, "get_accumulate wrote between result elements");
      mine[nmine++] = j * 1000000LL + got[3 * j];
    }
    if (!derived_only)
      for (int j = 0; j < K; j++) {
        long long v;
        CHECK_MPI(MPI_Fetch_and_op(&steps[j], &v, MPI_LONG_LONG, 0, N + 2 * j, MPI_SUM, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        mine[nmine++] = j * 1000000LL + v;
      }
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  int kinds = derived_only ? 1 : 2;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));   /* the public copy, read locally */
  for (int j = 0; j < N; j++) {
    long long want = 0;
    for (int r = 0; r < size; r++)
      want += (long long)ITERS * kinds * part(r, j);
    CHECK(mem[j] == want, "element %d: %lld, want %lld", j, mem[j], want);
  }
  long long tickets = (long long)size * ITERS * kinds;
  if (rank == 0)
    for (int j = 0; j < K; j++) {
      CHECK(mem[N + 2 * j] == tickets * (j + 1), "counter %d: %lld, want %lld", j, mem[N + 2 * j],
            tickets * (j + 1));
      CHECK(mem[N + 2 * j + 1] == 0, "the gap after counter %d was written: %lld", j, mem[N + 2 * j + 1]);
    }
  CHECK_MPI(MPI_Win_unlock(rank, win));

  long long *all = malloc(sizeof(long long) * (size_t)(nmine * size));
  char *seen = calloc((size_t)(K * tickets), 1);
  CHECK(all && seen, "malloc");
  CHECK_MPI(MPI_Allgather(mine, nmine, MPI_LONG_LONG, all, nmine, MPI_LONG_LONG, MPI_COMM_WORLD));
  for (int i = 0; i < nmine * size; i++) {
    long long j = all[i] / 1000000, v = all[i] % 1000000;
    CHECK(j >= 0 && j < K && v % (j + 1) == 0, "counter %lld handed out %lld, not a multiple of its step", j, v);
    v /= j + 1;
    CHECK(v >= 0 && v < tickets, "ticket %lld of counter %lld out of range", v, j);
    CHECK(!seen[j * tickets + v], "counter %lld handed out ticket %lld twice", j, v);
    seen[j * tickets + v] = 1;
  }
  free(all), free(seen), free(mine);
  MPI_Type_free(&scat), MPI_Type_free(&every2), MPI_Type_free(&tick_t), MPI_Type_free(&tick_r);
}

static void replace_and_read(MPI_Win win, long long *mem)
{
  MPI_Datatype scat = scattered(MPI_LONG_LONG), every3 = strided(N, 3, MPI_LONG_LONG);
  MPI_Datatype every2 = strided(K, 2, MPI_LONG_LONG);
  long long spread[3 * N], got[3 * N];
  int t = (rank + 1) % size;
  for (int i = 0; i < N; i++)
    spread[3 * i] = 7000 + rank * 100 + stream_to_elem[i], spread[3 * i + 1] = spread[3 * i + 2] = -5;
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Accumulate(spread, 1, every3, t, 0, 1, scat, MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  /* Read back as rank t wrote it, element order this time, into a strided result. */
  memset(got, 0, sizeof got);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
  CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG_LONG, got, 1, every3, t, 0, 1, scat, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(t, win));
  for (int i = 0; i < N; i++) {
    CHECK(got[3 * i] == 7000 + rank * 100 + stream_to_elem[i], "read back stream element %d: %lld", i,
          got[3 * i]);
    CHECK(got[3 * i + 1] == 0 && got[3 * i + 2] == 0, "MPI_NO_OP wrote between result elements");
  }

  /* The words after the sums: zero them, then every second one replaced from the left. */
  long long vals[K];
  for (int j = 0; j < K; j++)
    vals[j] = 5000 + rank * 10 + j;
  CHECK_MPI(MPI_Win_fence(0, win));
  memset(mem + N, 0, 2 * K * sizeof(long long));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Accumulate(vals, K, MPI_LONG_LONG, t, N, 1, every2, MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  int left = (rank + size - 1) % size;
  for (int j = 0; j < K; j++) {
    CHECK(mem[N + 2 * j] == 5000 + left * 10 + j, "replaced word %d: %lld", j, mem[N + 2 * j]);
    CHECK(mem[N + 2 * j + 1] == 0, "MPI_REPLACE wrote the word after element %d: %lld", j, mem[N + 2 * j + 1]);
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  MPI_Type_free(&every2);
  MPI_Type_free(&scat), MPI_Type_free(&every3);
}

static void double_sums(void)
{
  double *mem;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Datatype scat = scattered(MPI_DOUBLE), every2 = strided(N, 2, MPI_DOUBLE);
  double spread[2 * N], contig[N];
  for (int i = 0; i < N; i++)
    spread[2 * i] = 0.5 * (double)part(rank, stream_to_elem[i]), spread[2 * i + 1] = 1e9, contig[i] = 0.25 * i;
  CHECK_MPI(MPI_Win_fence(0, win));
  memset(mem, 0, N * sizeof(double));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int i = 0; i < ITERS; i++)
    for (int d = 0; d < size; d++) {
      int t = (rank + d) % size;
      CHECK_MPI(MPI_Accumulate(spread, 1, every2, t, 0, 1, scat, MPI_SUM, win));
      if (!derived_only)
        CHECK_MPI(MPI_Accumulate(contig, N, MPI_DOUBLE, t, 0, N, MPI_DOUBLE, MPI_SUM, win));
    }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int j = 0; j < N; j++) {
    double want = 0;
    for (int r = 0; r < size; r++)
      want += ITERS * (0.5 * (double)part(r, j) + (derived_only ? 0 : 0.25 * j));
    CHECK(mem[j] == want, "double element %d: %g, want %g", j, mem[j], want);
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  MPI_Type_free(&scat), MPI_Type_free(&every2);
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  rank = empi_rank();
  size = empi_size();
  derived_only = argc > 1 && strcmp(argv[1], "derived") == 0;
  for (int b = 0, s = 0; b < 6; b++)
    for (int e = 0; e < blens[b]; e++)
      stream_to_elem[s++] = disps[b] + e;

  long long *mem;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(WORDS * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                             &win));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
  memset(mem, 0, WORDS * sizeof(long long));
  CHECK_MPI(MPI_Win_unlock(rank, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  sums_and_tickets(win, mem);
  replace_and_read(win, mem);
  CHECK_MPI(MPI_Win_free(&win));
  double_sums();
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
