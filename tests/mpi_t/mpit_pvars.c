/*
 * MPI_T performance variables count exactly what the test does: messages and bytes sent and
 * received, eager versus rendezvous, unexpected arrivals, the matching queues' lengths. Ranks work
 * in pairs (rank ^ 1; the odd one out, or a single rank, pairs with itself). Also: writing the
 * live empi_eager_limit cvar switches the protocol of the next send, and the handle semantics
 * (start/stop, reset, write, readreset) and error codes of the pvar calls.
 */
#include <stdlib.h>

#include "mpit_test.h"

enum { K = 5, M = 3, SMALL = 100 };

static const char *const counter_names[] = {
    "empi_pt2pt_sends",    "empi_pt2pt_bytes_sent",     "empi_pt2pt_eager_sends", "empi_pt2pt_rndv_sends",
    "empi_pt2pt_receives", "empi_pt2pt_bytes_received", "empi_pt2pt_unexpected",
};
enum { SENDS, BYTES_SENT, EAGER, RNDV, RECEIVES, BYTES_RECEIVED, UNEXPECTED, NCOUNTERS };

static MPI_T_pvar_session session;
static MPI_T_pvar_handle counters[NCOUNTERS];

static unsigned long long pread(MPI_T_pvar_handle h) { return mpit_pvar_value(session, h); }

static MPI_T_pvar_handle alloc(const char *name, int var_class) {
  MPI_T_pvar_handle h;
  int count;
  CHECK_T(MPI_T_pvar_handle_alloc(session, mpit_pvar(name, var_class), NULL, &h, &count), MPI_SUCCESS);
  CHECK(count == 1, "%s: count %d", name, count);
  return h;
}

static void expect(int which, unsigned long long want) {
  unsigned long long got = pread(counters[which]);
  CHECK(got == want, "%s = %llu, expected %llu", counter_names[which], got, want);
}

/* Every rank sends K eager and M rendezvous messages to its partner and receives as many. */
static void exchange(int partner, int big) {
  char *sbuf = malloc((size_t)big), *rbuf = malloc((size_t)(K + M) * (size_t)big);
  MPI_Request reqs[2 * (K + M)];
  for (int i = 0; i < K + M; i++)
    CHECK_MPI(MPI_Irecv(rbuf + (size_t)i * (size_t)big, big, MPI_CHAR, partner, 1, MPI_COMM_WORLD, &reqs[i]));
  for (int i = 0; i < K + M; i++)
    CHECK_MPI(MPI_Isend(sbuf, i < K ? SMALL : big, MPI_CHAR, partner, 1, MPI_COMM_WORLD, &reqs[K + M + i]));
  CHECK_MPI(MPI_Waitall(2 * (K + M), reqs, MPI_STATUSES_IGNORE));
  free(sbuf);
  free(rbuf);
}

static void check_counts(int partner, int big) {
  CHECK_T(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  for (int i = 0; i < NCOUNTERS; i++) expect(i, 0);
  exchange(partner, big);
  CHECK_T(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  unsigned long long bytes = (unsigned long long)K * SMALL + (unsigned long long)M * (unsigned long long)big;
  expect(SENDS, K + M);
  expect(EAGER, K);
  expect(RNDV, M);
  expect(BYTES_SENT, bytes);
  expect(RECEIVES, K + M);
  expect(BYTES_RECEIVED, bytes);
  /* Stopped handles do not count the barrier's traffic. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  expect(SENDS, K + M);
  CHECK_T(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  expect(SENDS, 0);
}

/* The partner with the higher rank receives; a rank paired with itself does both. */
static void check_queues(int rank, int partner) {
  MPI_T_pvar_handle uq = alloc("empi_pt2pt_unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL);
  MPI_T_pvar_handle hwm = alloc("empi_pt2pt_unexpected_queue_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK);
  MPI_T_pvar_handle pq = alloc("empi_pt2pt_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL);
  int sender = rank <= partner, receiver = rank >= partner;
  char buf[SMALL] = {0};
  CHECK(pread(uq) == 0 && pread(pq) == 0, "queues not empty at the start: %llu %llu", pread(uq), pread(pq));
  CHECK_T(MPI_T_pvar_start(session, counters[UNEXPECTED]), MPI_SUCCESS);

  /* K messages plus a sentinel arrive before any receive is posted. */
  if (sender) {
    for (int i = 0; i < K; i++) CHECK_MPI(MPI_Send(buf, SMALL, MPI_CHAR, partner, 2, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(buf, 1, MPI_CHAR, partner, 3, MPI_COMM_WORLD));
  }
  if (receiver) {
    CHECK_MPI(MPI_Probe(partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(pread(uq) == K + 1, "unexpected queue holds %llu, expected %d", pread(uq), K + 1);
    CHECK(pread(hwm) >= K + 1, "high-water mark %llu below %d", pread(hwm), K + 1);
    expect(UNEXPECTED, K + 1);
    for (int i = 0; i < K; i++) CHECK_MPI(MPI_Recv(buf, SMALL, MPI_CHAR, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(buf, 1, MPI_CHAR, partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(pread(uq) == 0, "unexpected queue holds %llu after receiving all", pread(uq));
    CHECK(pread(hwm) >= K + 1, "high-water mark dropped to %llu", pread(hwm));
  }

  /* The receiver posts K receives, then tells the sender to go. */
  MPI_Request reqs[K];
  if (receiver) {
    for (int i = 0; i < K; i++) CHECK_MPI(MPI_Irecv(buf, SMALL, MPI_CHAR, partner, 4, MPI_COMM_WORLD, &reqs[i]));
    CHECK(pread(pq) == K, "posted queue holds %llu, expected %d", pread(pq), K);
    CHECK_MPI(MPI_Send(NULL, 0, MPI_CHAR, partner, 5, MPI_COMM_WORLD));
  }
  if (sender) {
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_CHAR, partner, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < K; i++) CHECK_MPI(MPI_Send(buf, SMALL, MPI_CHAR, partner, 4, MPI_COMM_WORLD));
  }
  if (receiver) CHECK_MPI(MPI_Waitall(K, reqs, MPI_STATUSES_IGNORE));
  CHECK(pread(pq) == 0, "posted queue holds %llu at the end", pread(pq));
  CHECK_T(MPI_T_pvar_stop(session, counters[UNEXPECTED]), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_handle_free(session, &uq), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_handle_free(session, &hwm), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_handle_free(session, &pq), MPI_SUCCESS);
  CHECK(uq == MPI_T_PVAR_HANDLE_NULL, "pvar handle not reset to NULL by free");
}

/* Lowering the live eager limit makes a SMALL message go by rendezvous. */
static void check_cvar_effect(int partner) {
  unsigned long long old, low = SMALL / 2, v;
  char sbuf[SMALL] = {0}, rbuf[SMALL];
  mpit_cvar_rw("empi_eager_limit", &old, &low);
  CHECK_T(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_start(session, counters[EAGER]), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_start(session, counters[RNDV]), MPI_SUCCESS);
  CHECK_MPI(MPI_Sendrecv(sbuf, SMALL, MPI_CHAR, partner, 6, rbuf, SMALL, MPI_CHAR, partner, 6, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  CHECK_T(MPI_T_pvar_readreset(session, counters[RNDV], &v), MPI_SUCCESS);
  CHECK(v == 1, "%llu rendezvous sends with eager limit %llu, expected 1", v, low);
  expect(EAGER, 0);
  expect(RNDV, 0); /* readreset zeroed it */
  mpit_cvar_rw("empi_eager_limit", NULL, &old);
  CHECK_MPI(MPI_Sendrecv(sbuf, SMALL, MPI_CHAR, partner, 6, rbuf, SMALL, MPI_CHAR, partner, 6, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  expect(EAGER, 1);
  expect(RNDV, 0);
  CHECK_T(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
}

static void check_semantics(void) {
  MPI_T_pvar_handle level = alloc("empi_pt2pt_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL);
  MPI_T_pvar_handle state = alloc("empi_mpi_state", MPI_T_PVAR_CLASS_STATE);
  unsigned long long v = 42;
  int st;
  /* Counters: write sets the handle's value, stopped handles keep it. */
  CHECK_T(MPI_T_pvar_write(session, counters[SENDS], &v), MPI_SUCCESS);
  expect(SENDS, 42);
  CHECK_T(MPI_T_pvar_readreset(session, counters[SENDS], &v), MPI_SUCCESS);
  CHECK(v == 42, "readreset returned %llu", v);
  expect(SENDS, 0);
  /* Continuous, read-only variables. */
  CHECK_T(MPI_T_pvar_start(session, level), MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK_T(MPI_T_pvar_stop(session, level), MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK_T(MPI_T_pvar_write(session, level, &v), MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_T(MPI_T_pvar_reset(session, level), MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_T(MPI_T_pvar_readreset(session, level, &v), MPI_T_ERR_PVAR_NO_WRITE);
  /* The state variable and its enumeration. */
  CHECK_T(MPI_T_pvar_read(session, state, &st), MPI_SUCCESS);
  MPI_T_enum en;
  MPI_Datatype dt;
  int var_class, readonly, continuous, atomic, num, value, len;
  char name[64];
  CHECK_T(MPI_T_pvar_get_info(mpit_pvar("empi_mpi_state", MPI_T_PVAR_CLASS_STATE), NULL, NULL, NULL, &var_class,
                              &dt, &en, NULL, NULL, NULL, &readonly, &continuous, &atomic), MPI_SUCCESS);
  CHECK(dt == MPI_INT && en != MPI_T_ENUM_NULL && readonly && continuous, "state pvar info");
  len = sizeof name;
  CHECK_T(MPI_T_enum_get_info(en, &num, name, &len), MPI_SUCCESS);
  CHECK(num == 3 && !strcmp(name, "empi_mpi_state"), "enum %s with %d items", name, num);
  int found = 0;
  for (int i = 0; i < num; i++) {
    len = sizeof name;
    CHECK_T(MPI_T_enum_get_item(en, i, &value, name, &len), MPI_SUCCESS);
    if (value == st) found = !strcmp(name, "initialized");
  }
  CHECK(found, "state %d is not the enumeration's \"initialized\"", st);
  CHECK_T(MPI_T_enum_get_item(en, num, &value, name, &len), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_enum_get_item(en, -1, &value, name, &len), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &num, name, &len), MPI_T_ERR_INVALID_HANDLE);

  /* Bad indices, names, handles and sessions. */
  int n, idx, count;
  MPI_T_pvar_handle h;
  MPI_T_pvar_session other, freed;
  CHECK_T(MPI_T_pvar_get_num(&n), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_pvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_pvar_handle_alloc(session, n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_pvar_get_index("empi_pt2pt_sends", MPI_T_PVAR_CLASS_LEVEL, &idx), MPI_T_ERR_INVALID_NAME);
  CHECK_T(MPI_T_pvar_get_index("no_such_pvar", MPI_T_PVAR_CLASS_COUNTER, &idx), MPI_T_ERR_INVALID_NAME);
  CHECK_T(MPI_T_pvar_read(session, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_write(session, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_readreset(session, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_read(session, MPI_T_PVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_session_create(&other), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_read(other, counters[SENDS], &v), MPI_T_ERR_INVALID_HANDLE); /* not its session */
  CHECK_T(MPI_T_pvar_handle_free(other, &counters[SENDS]), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_handle_alloc(other, 0, NULL, &h, &count), MPI_SUCCESS);
  freed = other;
  CHECK_T(MPI_T_pvar_session_free(&other), MPI_SUCCESS); /* frees h too */
  CHECK(other == MPI_T_PVAR_SESSION_NULL, "session not reset to NULL by free");
  CHECK_T(MPI_T_pvar_read(freed, h, &v), MPI_T_ERR_INVALID_SESSION);
  CHECK_T(MPI_T_pvar_start(freed, h), MPI_T_ERR_INVALID_SESSION);
  CHECK_T(MPI_T_pvar_handle_alloc(freed, 0, NULL, &h, &count), MPI_T_ERR_INVALID_SESSION);
  CHECK_T(MPI_T_pvar_session_free(&freed), MPI_T_ERR_INVALID_SESSION);
  CHECK_T(MPI_T_pvar_reset(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
  CHECK_T(MPI_T_pvar_handle_free(session, &level), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_read(session, level, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_handle_free(session, &state), MPI_SUCCESS);
}

int main(int argc, char **argv) {
  int provided, rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  rank = empi_rank();
  size = empi_size();
  int partner = (rank ^ 1) < size ? rank ^ 1 : rank;
  unsigned long long eager;
  mpit_cvar_rw("empi_eager_limit", &eager, NULL);
  int big = (int)eager * 4;

  CHECK_T(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
  for (int i = 0; i < NCOUNTERS; i++) counters[i] = alloc(counter_names[i], MPI_T_PVAR_CLASS_COUNTER);
  check_counts(partner, big);
  check_queues(rank, partner);
  check_cvar_effect(partner);
  check_semantics();
  CHECK_T(MPI_T_pvar_session_free(&session), MPI_SUCCESS);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
