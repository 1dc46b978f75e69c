/*
 * Collectives on an intercommunicator, blocking and nonblocking, data checked: barrier, bcast,
 * reduce, allreduce, gather(v), scatter(v), allgather(v), alltoall(v/w), reduce_scatter(_block).
 * Rooted calls use MPI_ROOT at the root, MPI_PROC_NULL in the rest of its group and the root's
 * rank in the other group; both groups take turns at being the root's.
 */
#include <stdlib.h>
#include <string.h>

#include "intercomm_common.h"

static halves_t h;
static int nb; /* 0: blocking calls, 1: nonblocking + wait */
static MPI_Request req;

#define RUN(blocking, nonblocking)                               \
  do {                                                           \
    if (nb) {                                                    \
      CHECK_MPI(nonblocking);                                    \
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));              \
    } else {                                                     \
      CHECK_MPI(blocking);                                       \
    }                                                            \
  } while (0)

/* The value a process of `group` with local rank `r` contributes at index k. */
static int val(int group, int r, int k) { return 100000 * (group + 1) + 100 * r + k; }

/* Root argument for a call whose root is local rank `root_rank` of group `root_group`. */
static int root_arg(int root_group, int root_rank) {
  if (h.color != root_group)
    return root_rank;
  return h.lrank == root_rank ? MPI_ROOT : MPI_PROC_NULL;
}

static void t_barrier(void) { RUN(MPI_Barrier(h.inter), MPI_Ibarrier(h.inter, &req)); }

static void t_bcast(int rg, int rr) {
  int buf[5], root = root_arg(rg, rr);
  for (int k = 0; k < 5; k++)
    buf[k] = root == MPI_ROOT ? val(rg, rr, k) : -1;
  RUN(MPI_Bcast(buf, 5, MPI_INT, root, h.inter), MPI_Ibcast(buf, 5, MPI_INT, root, h.inter, &req));
  for (int k = 0; k < 5; k++)
    if (h.color != rg)
      CHECK(buf[k] == val(rg, rr, k), "bcast[%d] = %d", k, buf[k]);
    else if (root == MPI_PROC_NULL)
      CHECK(buf[k] == -1, "bcast touched a PROC_NULL buffer");
}

static void t_reduce(int rg, int rr) {
  int in[3], out[3] = {-1, -1, -1}, root = root_arg(rg, rr);
  for (int k = 0; k < 3; k++)
    in[k] = val(h.color, h.lrank, k);
  RUN(MPI_Reduce(in, out, 3, MPI_INT, MPI_SUM, root, h.inter),
      MPI_Ireduce(in, out, 3, MPI_INT, MPI_SUM, root, h.inter, &req));
  if (root != MPI_ROOT)
    return;
  for (int k = 0; k < 3; k++) {
    int want = 0;
    for (int r = 0; r < h.rsize; r++)
      want += val(1 - h.color, r, k);
    CHECK(out[k] == want, "reduce[%d] = %d, want %d", k, out[k], want);
  }
}

static void t_allreduce(void) {
  int in[4], out[4];
  for (int k = 0; k < 4; k++)
    in[k] = val(h.color, h.lrank, k);
  RUN(MPI_Allreduce(in, out, 4, MPI_INT, MPI_MAX, h.inter),
      MPI_Iallreduce(in, out, 4, MPI_INT, MPI_MAX, h.inter, &req));
  for (int k = 0; k < 4; k++)
    CHECK(out[k] == val(1 - h.color, h.rsize - 1, k), "allreduce[%d] = %d", k, out[k]);
}

static void t_gather(int rg, int rr, int v) {
  int root = root_arg(rg, rr), n = h.rsize;
  int mine[2] = {val(h.color, h.lrank, 0), val(h.color, h.lrank, 1)};
  int *all = malloc(sizeof(int) * 2 * (size_t)n), *counts = malloc(sizeof(int) * (size_t)n),
      *displs = malloc(sizeof(int) * (size_t)n);
  CHECK(all && counts && displs, "malloc");
  for (int i = 0; i < 2 * n; i++)
    all[i] = -1;
  /* v: remote rank i's block is i % 2 + 1 ints, stored in reverse order of ranks. */
  for (int i = 0, off = 0; i < n; i++) {
    counts[n - 1 - i] = (n - 1 - i) % 2 + 1;
    displs[n - 1 - i] = off;
    off += counts[n - 1 - i];
  }
  int scount = v ? h.lrank % 2 + 1 : 2;
  if (v)
    RUN(MPI_Gatherv(mine, scount, MPI_INT, all, counts, displs, MPI_INT, root, h.inter),
        MPI_Igatherv(mine, scount, MPI_INT, all, counts, displs, MPI_INT, root, h.inter, &req));
  else
    RUN(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, h.inter),
        MPI_Igather(mine, 2, MPI_INT, all, 2, MPI_INT, root, h.inter, &req));
  if (root == MPI_ROOT)
    for (int i = 0; i < n; i++)
      for (int k = 0; k < (v ? counts[i] : 2); k++) {
        int got = all[(v ? displs[i] : 2 * i) + k];
        CHECK(got == val(1 - h.color, i, k), "gather%s from %d [%d] = %d", v ? "v" : "", i, k, got);
      }
  free(all);
  free(counts);
  free(displs);
}

static void t_scatter(int rg, int rr, int v) {
  int root = root_arg(rg, rr), n = h.rsize;
  int *all = malloc(sizeof(int) * 2 * (size_t)n), *counts = malloc(sizeof(int) * (size_t)n),
      *displs = malloc(sizeof(int) * (size_t)n), mine[2] = {-1, -1};
  CHECK(all && counts && displs, "malloc");
  for (int i = 0; i < n; i++) {
    counts[i] = i % 2 + 1;
    displs[i] = 2 * (n - 1 - i);
    for (int k = 0; k < 2; k++)
      all[(v ? displs[i] : 2 * i) + k] = val(9, i, k);
  }
  int rcount = v ? h.lrank % 2 + 1 : 2;
  if (v)
    RUN(MPI_Scatterv(all, counts, displs, MPI_INT, mine, rcount, MPI_INT, root, h.inter),
        MPI_Iscatterv(all, counts, displs, MPI_INT, mine, rcount, MPI_INT, root, h.inter, &req));
  else
    RUN(MPI_Scatter(all, 2, MPI_INT, mine, 2, MPI_INT, root, h.inter),
        MPI_Iscatter(all, 2, MPI_INT, mine, 2, MPI_INT, root, h.inter, &req));
  if (h.color != rg)
    for (int k = 0; k < rcount; k++)
      CHECK(mine[k] == val(9, h.lrank, k), "scatter%s [%d] = %d", v ? "v" : "", k, mine[k]);
  free(all);
  free(counts);
  free(displs);
}

static void t_allgather(int v) {
  int n = h.rsize, mine[2] = {val(h.color, h.lrank, 0), val(h.color, h.lrank, 1)};
  int *all = malloc(sizeof(int) * 2 * (size_t)n), *counts = malloc(sizeof(int) * (size_t)n),
      *displs = malloc(sizeof(int) * (size_t)n);
  CHECK(all && counts && displs, "malloc");
  for (int i = 0; i < n; i++) {
    counts[i] = i % 2 + 1;
    displs[i] = 2 * (n - 1 - i);
  }
  if (v)
    RUN(MPI_Allgatherv(mine, h.lrank % 2 + 1, MPI_INT, all, counts, displs, MPI_INT, h.inter),
        MPI_Iallgatherv(mine, h.lrank % 2 + 1, MPI_INT, all, counts, displs, MPI_INT, h.inter, &req));
  else
    RUN(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, h.inter),
        MPI_Iallgather(mine, 2, MPI_INT, all, 2, MPI_INT, h.inter, &req));
  for (int i = 0; i < n; i++)
    for (int k = 0; k < (v ? counts[i] : 2); k++)
      CHECK(all[(v ? displs[i] : 2 * i) + k] == val(1 - h.color, i, k), "allgather%s from %d", v ? "v" : "", i);
  free(all);
  free(counts);
  free(displs);
}

/* Elements local rank a of group ga sends to local rank b of the other group. */
static int pair_count(int ga, int a, int b) { return (a + 2 * b + ga) % 3 + 1; }
static int pair_val(int ga, int a, int b, int k) { return val(ga, a, 0) + 10 * b + k; }

static void t_alltoall(int kind) { /* 0: alltoall, 1: alltoallv, 2: alltoallw */
  int n = h.rsize, me = h.lrank, g = h.color;
  int *sb = malloc(sizeof(int) * 3 * (size_t)n), *rb = malloc(sizeof(int) * 3 * (size_t)n);
  int *sc = malloc(sizeof(int) * (size_t)n), *rc = malloc(sizeof(int) * (size_t)n);
  int *sd = malloc(sizeof(int) * (size_t)n), *rd = malloc(sizeof(int) * (size_t)n);
  MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)n);
  CHECK(sb && rb && sc && rc && sd && rd && types, "malloc");
  for (int j = 0; j < n; j++) {
    sc[j] = kind ? pair_count(g, me, j) : 2;
    rc[j] = kind ? pair_count(1 - g, j, me) : 2;
    sd[j] = 3 * j;
    rd[j] = 3 * (n - 1 - j);
    types[j] = MPI_INT;
    for (int k = 0; k < 3; k++) {
      sb[3 * j + k] = pair_val(g, me, j, k);
      rb[3 * j + k] = -1;
    }
  }
  if (kind == 0) {
    /* Plain alltoall: blocks of 2 packed at stride 2. */
    int *sp = malloc(sizeof(int) * 2 * (size_t)n);
    CHECK(sp, "malloc");
    for (int j = 0; j < n; j++)
      for (int k = 0; k < 2; k++)
        sp[2 * j + k] = pair_val(g, me, j, k);
    RUN(MPI_Alltoall(sp, 2, MPI_INT, rb, 2, MPI_INT, h.inter),
        MPI_Ialltoall(sp, 2, MPI_INT, rb, 2, MPI_INT, h.inter, &req));
    for (int j = 0; j < n; j++)
      for (int k = 0; k < 2; k++)
        CHECK(rb[2 * j + k] == pair_val(1 - g, j, me, k), "alltoall from %d [%d] = %d", j, k, rb[2 * j + k]);
    free(sp);
  } else if (kind == 1) {
    RUN(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, h.inter),
        MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, h.inter, &req));
  } else {
    for (int j = 0; j < n; j++) {
      sd[j] *= (int)sizeof(int);
      rd[j] *= (int)sizeof(int);
    }
    RUN(MPI_Alltoallw(sb, sc, sd, types, rb, rc, rd, types, h.inter),
        MPI_Ialltoallw(sb, sc, sd, types, rb, rc, rd, types, h.inter, &req));
    for (int j = 0; j < n; j++)
      rd[j] /= (int)sizeof(int);
  }
  if (kind)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < rc[j]; k++)
        CHECK(rb[rd[j] + k] == pair_val(1 - g, j, me, k), "alltoall%c from %d [%d] = %d", kind == 1 ? 'v' : 'w',
              j, k, rb[rd[j] + k]);
  free(sb);
  free(rb);
  free(sc);
  free(rc);
  free(sd);
  free(rd);
  free(types);
}

/* MPI 4.1 6.10.1: each group reduces count = (local size) * recvcount elements, the same count in
   both groups, so recvcount differs between groups of different sizes. */
static void t_reduce_scatter_block(void) {
  int total = 2 * h.lsize * h.rsize, c = total / h.lsize;
  int *in = malloc(sizeof(int) * (size_t)total), *out = malloc(sizeof(int) * (size_t)c);
  CHECK(in && out, "malloc");
  for (int i = 0; i < total; i++)
    in[i] = val(h.color, h.lrank, i);
  for (int k = 0; k < c; k++)
    out[k] = -1;
  RUN(MPI_Reduce_scatter_block(in, out, c, MPI_INT, MPI_SUM, h.inter),
      MPI_Ireduce_scatter_block(in, out, c, MPI_INT, MPI_SUM, h.inter, &req));
  for (int k = 0; k < c; k++) {
    int want = 0;
    for (int q = 0; q < h.rsize; q++)
      want += val(1 - h.color, q, h.lrank * c + k);
    CHECK(out[k] == want, "reduce_scatter_block[%d] = %d, want %d", k, out[k], want);
  }
  free(in);
  free(out);
}

/* Both groups send the same 7 elements; each scatters the other's sum unevenly over its ranks. */
static void t_reduce_scatter(void) {
  enum { T = 7 };
  int in[T], out[T], *counts = malloc(sizeof(int) * (size_t)h.lsize), off = 0;
  CHECK(counts, "malloc");
  for (int i = 0; i < h.lsize; i++)
    counts[i] = T / h.lsize + (i < T % h.lsize);
  for (int i = 0; i < h.lrank; i++)
    off += counts[i];
  for (int k = 0; k < T; k++)
    in[k] = val(h.color, h.lrank, k), out[k] = -1;
  RUN(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, h.inter),
      MPI_Ireduce_scatter(in, out, counts, MPI_INT, MPI_SUM, h.inter, &req));
  for (int k = 0; k < T; k++) {
    int want = 0;
    for (int q = 0; q < h.rsize; q++)
      want += val(1 - h.color, q, off + k);
    if (k < counts[h.lrank])
      CHECK(out[k] == want, "reduce_scatter[%d] = %d, want %d", k, out[k], want);
    else
      CHECK(out[k] == -1, "reduce_scatter wrote past its %d elements", counts[h.lrank]);
  }
  free(counts);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  if (empi_size() < 2) {
    empi_note("intercommunicators need 2 processes: skipped\n");
    TEST_PASS();
    MPI_Finalize();
    return 0;
  }
  make_halves(&h, 5);
  for (nb = 0; nb < 2; nb++) {
    t_barrier();
    for (int rg = 0; rg < 2; rg++) {
      int last = (rg == h.color ? h.lsize : h.rsize) - 1;
      t_bcast(rg, 0);
      t_bcast(rg, last);
      t_reduce(rg, last);
      t_gather(rg, 0, 0);
      t_gather(rg, last, 1);
      t_scatter(rg, last, 0);
      t_scatter(rg, 0, 1);
    }
    t_allreduce();
    t_allgather(0);
    t_allgather(1);
    for (int kind = 0; kind < 3; kind++)
      t_alltoall(kind);
    t_reduce_scatter_block();
    t_reduce_scatter();
    t_barrier();
  }
  /* Persistent: one bcast started three times. */
  int buf = -1, root = root_arg(0, 0);
  MPI_Request p;
  CHECK_MPI(MPI_Bcast_init(&buf, 1, MPI_INT, root, h.inter, MPI_INFO_NULL, &p));
  for (int it = 0; it < 3; it++) {
    buf = root == MPI_ROOT ? 77 + it : -1;
    CHECK_MPI(MPI_Start(&p));
    CHECK_MPI(MPI_Wait(&p, MPI_STATUS_IGNORE));
    if (h.color == 1)
      CHECK(buf == 77 + it, "persistent bcast round %d got %d", it, buf);
  }
  CHECK_MPI(MPI_Request_free(&p));
  free_halves(&h);
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
