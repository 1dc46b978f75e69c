/*
 * Group operations, checked against a straightforward model of groups as ordered lists of
 * world ranks: incl/excl, range_incl/range_excl, union/intersection/difference, translate_ranks
 * (with MPI_PROC_NULL and non-members), compare, size/rank (MPI_UNDEFINED for non-members) and
 * MPI_GROUP_EMPTY. Group calls are local, so each rank checks everything.
 */
#include "empi_test.h"

#include <stdlib.h>

static int g_rank, g_size;

/* Compare an MPI group to an expected list of world ranks, order included. */
static void expect_group(MPI_Group g, MPI_Group world, const int *want, int n, const char *what) {
  int gs = -1, gr = -2;
  CHECK_MPI(MPI_Group_size(g, &gs));
  CHECK(gs == n, "%s: size %d, expected %d", what, gs, n);
  int *idx = malloc(sizeof(int) * (size_t)(n + 1)), *wr = malloc(sizeof(int) * (size_t)(n + 1));
  CHECK(idx && wr, "malloc");
  for (int i = 0; i < n; i++) idx[i] = i;
  if (n > 0) CHECK_MPI(MPI_Group_translate_ranks(g, n, idx, world, wr));
  int my = MPI_UNDEFINED;
  for (int i = 0; i < n; i++) {
    CHECK(wr[i] == want[i], "%s: rank %d is world %d, expected %d", what, i, wr[i], want[i]);
    if (want[i] == g_rank) my = i;
  }
  CHECK_MPI(MPI_Group_rank(g, &gr));
  CHECK(gr == my, "%s: Group_rank %d, expected %d", what, gr, my);
  free(idx);
  free(wr);
}

/* Results that are empty may be MPI_GROUP_EMPTY itself, which is not ours to free. */
static void free_group(MPI_Group *g) {
  if (*g != MPI_GROUP_EMPTY) CHECK_MPI(MPI_Group_free(g));
}

static int gcmp(MPI_Group a, MPI_Group b) {
  int r = -1;
  CHECK_MPI(MPI_Group_compare(a, b, &r));
  return r;
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  g_rank = empi_rank();
  g_size = empi_size();
  int n = g_size;
  CHECK(n <= 64, "group_ops supports at most 64 ranks");
  MPI_Group world, g1, g2, g3;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int *all = malloc(sizeof(int) * (size_t)n), *list = malloc(sizeof(int) * (size_t)n);
  int *want = calloc((size_t)n, sizeof(int));
  CHECK(all && list && want, "malloc");
  for (int i = 0; i < n; i++) all[i] = i;
  expect_group(world, world, all, n, "world group");
  CHECK(gcmp(world, world) == MPI_IDENT, "world vs world");

  /* Empty group. */
  int sz = -1, rk = -1;
  CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &sz));
  CHECK_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &rk));
  CHECK(sz == 0 && rk == MPI_UNDEFINED, "GROUP_EMPTY size %d rank %d", sz, rk);
  CHECK_MPI(MPI_Group_incl(world, 0, list, &g1));
  CHECK(gcmp(g1, MPI_GROUP_EMPTY) == MPI_IDENT, "incl of nothing is not IDENT to GROUP_EMPTY");
  free_group(&g1);
  CHECK_MPI(MPI_Group_incl(world, 1, all, &g1));
  CHECK_MPI(MPI_Group_free(&g1));
  CHECK(g1 == MPI_GROUP_NULL, "Group_free did not null the handle");

  /* incl in reverse order: same members, different order -> SIMILAR (IDENT when n == 1). */
  for (int i = 0; i < n; i++) list[i] = n - 1 - i;
  CHECK_MPI(MPI_Group_incl(world, n, list, &g1));
  expect_group(g1, world, list, n, "incl reversed");
  CHECK(gcmp(g1, world) == (n == 1 ? MPI_IDENT : MPI_SIMILAR), "reversed vs world %d",
        gcmp(g1, world));
  /* Translate from the reversed group back, including PROC_NULL. */
  int tin[3] = {0, MPI_PROC_NULL, n - 1}, tout[3];
  CHECK_MPI(MPI_Group_translate_ranks(g1, 3, tin, world, tout));
  CHECK(tout[0] == n - 1 && tout[1] == MPI_PROC_NULL && tout[2] == 0, "translate %d %d %d",
        tout[0], tout[1], tout[2]);
  free_group(&g1);

  /* excl of rank 0: everyone else, in order; rank 0 is a non-member. */
  int zero = 0;
  CHECK_MPI(MPI_Group_excl(world, 1, &zero, &g1));
  expect_group(g1, world, all + 1, n - 1, "excl 0");
  /* Translating world rank 0 into that group: MPI_UNDEFINED. */
  CHECK_MPI(MPI_Group_translate_ranks(world, 1, &zero, g1, tout));
  CHECK(tout[0] == MPI_UNDEFINED, "non-member translates to %d", tout[0]);
  CHECK(gcmp(g1, world) == MPI_UNEQUAL, "excl vs world");

  /* range_incl: evens (0, n-1, 2); odds via a descending range (last odd down to 1, stride -2). */
  int ne = 0, no = 0;
  int ev[64], od[64];
  for (int i = 0; i < n; i += 2) ev[ne++] = i;
  for (int i = (n % 2 ? n - 2 : n - 1); i >= 1; i -= 2) od[no++] = i;
  int r_even[1][3] = {{0, n - 1, 2}};
  CHECK_MPI(MPI_Group_range_incl(world, 1, r_even, &g2));
  expect_group(g2, world, ev, ne, "range_incl evens");
  if (no > 0) {
    int r_odd[1][3] = {{od[0], 1, -2}};
    CHECK_MPI(MPI_Group_range_incl(world, 1, r_odd, &g3));
    expect_group(g3, world, od, no, "range_incl odds descending");
  } else {
    g3 = MPI_GROUP_EMPTY;
  }

  /* A range's last rank may lie outside the group when the stride steps over it: (n-1, n, 2) and
     (0, -1, -2) name one rank each (they were refused with MPI_ERR_RANK). */
  int r_over[2][3] = {{n - 1, n, 2}, {0, -1, -2}};
  MPI_Group g5;
  CHECK_MPI(MPI_Group_range_incl(world, n > 1 ? 2 : 1, r_over, &g5));
  int over_want[2] = {n - 1, 0};
  expect_group(g5, world, over_want, n > 1 ? 2 : 1, "range_incl with last beyond the group");
  MPI_Group_free(&g5);
  CHECK_MPI(MPI_Group_range_excl(world, 1, r_over, &g5));
  expect_group(g5, world, all, n - 1, "range_excl with last beyond the group");
  MPI_Group_free(&g5);

  /* range_excl of the evens leaves the odds in ascending order. */
  MPI_Group g4;
  CHECK_MPI(MPI_Group_range_excl(world, 1, r_even, &g4));
  for (int i = 0; i < no; i++) want[i] = 2 * i + 1;
  expect_group(g4, world, want, no, "range_excl evens");
  if (no > 1) CHECK(gcmp(g4, g3) == MPI_SIMILAR, "ascending vs descending odds");
  else CHECK(gcmp(g4, g3) == MPI_IDENT, "odds (<= 1 member) compare");

  /* Union: members of the first in its order, then the second's new ones in its order. */
  MPI_Group u, in, df;
  CHECK_MPI(MPI_Group_union(g2, g3, &u));
  int k = 0;
  for (int i = 0; i < ne; i++) want[k++] = ev[i];
  for (int i = 0; i < no; i++) want[k++] = od[i];
  expect_group(u, world, want, k, "union evens+odds");
  CHECK(gcmp(u, world) == (n <= 2 ? MPI_IDENT : MPI_SIMILAR), "union vs world %d", gcmp(u, world));
  free_group(&u);
  /* Union with overlap: world U evens == world, same order. */
  CHECK_MPI(MPI_Group_union(world, g2, &u));
  CHECK(gcmp(u, world) == MPI_IDENT, "world U evens not IDENT to world");
  free_group(&u);

  /* Intersection keeps the first group's order; disjoint sets give an empty group. */
  CHECK_MPI(MPI_Group_intersection(g1, g2, &in)); /* (world minus 0) ∩ evens */
  k = 0;
  for (int i = 2; i < n; i += 2) want[k++] = i;
  expect_group(in, world, want, k, "intersection");
  free_group(&in);
  CHECK_MPI(MPI_Group_intersection(g2, g3, &in));
  CHECK(gcmp(in, MPI_GROUP_EMPTY) == MPI_IDENT, "evens ∩ odds not empty");
  free_group(&in);

  /* Difference: world minus evens = odds ascending; evens minus world = empty. */
  CHECK_MPI(MPI_Group_difference(world, g2, &df));
  for (int i = 0; i < no; i++) want[i] = 2 * i + 1;
  expect_group(df, world, want, no, "world minus evens");
  CHECK(gcmp(df, g4) == MPI_IDENT, "difference vs range_excl");
  free_group(&df);
  CHECK_MPI(MPI_Group_difference(g2, world, &df));
  CHECK(gcmp(df, MPI_GROUP_EMPTY) == MPI_IDENT, "evens minus world not empty");
  free_group(&df);

  /* Groups from communicators agree with the communicators. */
  MPI_Comm sc;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, 0, &sc));
  MPI_Group sg;
  CHECK_MPI(MPI_Comm_group(sc, &sg));
  CHECK(gcmp(sg, g_rank % 2 ? g4 : g2) == MPI_IDENT, "split comm group vs parity group");
  CHECK_MPI(MPI_Group_free(&sg));
  CHECK_MPI(MPI_Comm_free(&sc));

  free_group(&g1);
  CHECK_MPI(MPI_Group_free(&g2));
  free_group(&g3);
  free_group(&g4);
  CHECK_MPI(MPI_Group_free(&world));
  free(all);
  free(list);
  free(want);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
