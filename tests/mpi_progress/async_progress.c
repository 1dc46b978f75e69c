/*
 * Work aimed at a rank that computes without calling MPI completes, under asynchronous progress:
 *   1. passive target: every other rank locks rank 0's window exclusively, puts its mark and
 *      accumulates into a counter, while rank 0 only watches its own memory;
 *   2. the same with fetch-and-op tickets and gets of what phase 1 wrote;
 *   3. a rendezvous-sized receive fills while the receiver computes;
 *   4. a nonblocking broadcast reaches every rank while all non-roots compute (a tree needs the
 *      inner ranks to forward while they compute).
 * Without asynchronous progress every phase waits for the computing rank, which gives up after
 * a time limit (argv[1] seconds, default 60) and fails the test.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "empi_test.h"

#define BIG (4u << 20)

static int rank, size;
static double limit_s = 60;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "Compute" (no MPI call) until done(arg) holds; a short nap per pass lets oversubscribed
   ranks and progress threads run. */
static void compute_until(int (*done)(const void *), const void *arg, const char *what)
{
  double t0 = now();
  struct timespec nap = {0, 20000};
  while (!done(arg)) {
    CHECK(now() - t0 < limit_s, "%s did not happen in %.0f s while this rank computed outside MPI",
          what, limit_s);
    nanosleep(&nap, NULL);
  }
}

static long long load_ll(const long long *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

static const long long *win_mem;

static int marks_in(const void *arg)
{
  (void)arg;
  if (load_ll(&win_mem[0]) != size - 1) return 0;
  for (int r = 1; r < size; r++)
    if (load_ll(&win_mem[r]) != 1000 + r) return 0;
  return 1;
}

static int tickets_in(const void *arg)
{
  (void)arg;
  return load_ll(&win_mem[size]) == 2LL * (size - 1);
}

static void one_sided(void)
{
  long long *base;
  MPI_Win win;
  MPI_Aint bytes = (MPI_Aint)sizeof(long long) * (size + 1);
  CHECK_MPI(MPI_Win_allocate(rank == 0 ? bytes : 0, sizeof(long long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &base, &win));
  if (rank == 0) memset(base, 0, (size_t)bytes);
  win_mem = base;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    compute_until(marks_in, NULL, "the puts and accumulates of every other rank");
    compute_until(tickets_in, NULL, "the fetch-and-op tickets of every other rank");
    CHECK_MPI(MPI_Win_sync(win));
  } else {
    long long mark = 1000 + rank, one = 1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Put(&mark, 1, MPI_LONG_LONG, 0, rank, 1, MPI_LONG_LONG, win));
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    /* Phase 2: wait for everyone's phase 1 by reading the counter (each read in an epoch of its
       own: a held shared lock would keep the others' exclusive ones out). */
    long long count = 0, zero = 0;
    while (count != size - 1) {
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
      CHECK_MPI(MPI_Fetch_and_op(&zero, &count, MPI_LONG_LONG, 0, 0, MPI_NO_OP, win));
      CHECK_MPI(MPI_Win_unlock(0, win));
    }
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    long long *seen = malloc(sizeof(long long) * (size_t)size);
    CHECK(seen != NULL, "malloc");
    CHECK_MPI(MPI_Get(seen, size, MPI_LONG_LONG, 0, 0, size, MPI_LONG_LONG, win));
    long long t1, t2;
    CHECK_MPI(MPI_Fetch_and_op(&one, &t1, MPI_LONG_LONG, 0, size, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK_MPI(MPI_Fetch_and_op(&one, &t2, MPI_LONG_LONG, 0, size, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    for (int r = 1; r < size; r++)
      CHECK(seen[r] == 1000 + r, "get of rank %d's mark: %lld", r, seen[r]);
    CHECK(t2 > t1 && t1 >= 0 && t2 < 2LL * (size - 1), "tickets %lld, %lld", t1, t2);
    free(seen);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0)
    for (int r = 1; r < size; r++)
      CHECK(base[r] == 1000 + r, "rank %d's mark is %lld", r, base[r]);
  CHECK_MPI(MPI_Win_free(&win));
}

struct tail {
  const unsigned char *buf;
  size_t len;
  uint32_t seed;
};

/* The last bytes land last: each transfer fills the buffer front to back. */
static int tail_arrived(const void *arg)
{
  const struct tail *t = arg;
  for (size_t i = t->len - 8; i < t->len; i++)
    if (__atomic_load_n(&t->buf[i], __ATOMIC_ACQUIRE) != empi_pattern_byte(t->seed, i)) return 0;
  return 1;
}

static void rendezvous(void)
{
  unsigned char *buf = malloc(BIG);
  CHECK(buf != NULL, "malloc");
  uint32_t seed = empi_seed(1, 0, 7);
  if (rank == 0) {
    memset(buf, 0, BIG);
    /* The pattern's last bytes must differ from the zero fill for the watch to mean anything. */
    buf[BIG - 1] = (unsigned char)~empi_pattern_byte(seed, BIG - 1);
    MPI_Request req;
    CHECK_MPI(MPI_Irecv(buf, BIG, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    struct tail t = {buf, BIG, seed};
    compute_until(tail_arrived, &t, "the 4 MiB message from rank 1");
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_PATTERN(buf, BIG, seed);
  } else {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
      empi_fill(buf, BIG, seed);
      CHECK_MPI(MPI_Send(buf, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD));
    }
  }
  free(buf);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void broadcast(int root, size_t len)
{
  unsigned char *buf = malloc(len);
  CHECK(buf != NULL, "malloc");
  uint32_t seed = empi_seed(root, -1, (int)len);
  if (rank == root)
    empi_fill(buf, len, seed);
  else {
    memset(buf, 0, len);
    buf[len - 1] = (unsigned char)~empi_pattern_byte(seed, len - 1);
  }
  MPI_Request req;
  CHECK_MPI(MPI_Ibcast(buf, (int)len, MPI_BYTE, root, MPI_COMM_WORLD, &req));
  if (rank != root) {
    struct tail t = {buf, len, seed};
    compute_until(tail_arrived, &t, "the nonblocking broadcast");
  }
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_PATTERN(buf, len, seed);
  free(buf);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
  CHECK_MPI(MPI_Init(&argc, &argv));
  rank = empi_rank();
  size = empi_size();
  if (argc > 1) limit_s = atof(argv[1]);
  int provided;
  CHECK_MPI(MPI_Query_thread(&provided));
  CHECK(provided == MPI_THREAD_SINGLE, "MPI_Init provides %d, not MPI_THREAD_SINGLE", provided);
  CHECK(size >= 2, "needs at least 2 ranks");
  one_sided();
  rendezvous();
  broadcast(size - 1, 64);
  broadcast(0, 1u << 20);
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
