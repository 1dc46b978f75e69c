/*
 * Communicator construction and comparison: dup, split (colors, MPI_UNDEFINED, key order and
 * ties), split_type(SHARED), create and create_group from groups, compare results, names, and
 * isolation — traffic on a derived communicator never matches receives on its parent.
 */
#include "empi_test.h"

#include <stdlib.h>
#include <string.h>

static void check_name(MPI_Comm comm, const char *want) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Comm_get_name(comm, name, &len));
  CHECK(strcmp(name, want) == 0 && len == (int)strlen(want), "name '%s' (len %d), expected '%s'",
        name, len, want);
}

static int cmp(MPI_Comm a, MPI_Comm b) {
  int r = -1;
  CHECK_MPI(MPI_Comm_compare(a, b, &r));
  return r;
}

/* World ranks of all members of comm, in comm rank order. */
static void members(MPI_Comm comm, int *out) {
  int wr = empi_rank();
  CHECK_MPI(MPI_Allgather(&wr, 1, MPI_INT, out, 1, MPI_INT, comm));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = empi_rank(), size = empi_size();
  int *m = malloc(sizeof(int) * (size_t)size);
  CHECK(m != NULL, "malloc");
  int n = -1, r = -1, flag = -1;

  check_name(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  check_name(MPI_COMM_SELF, "MPI_COMM_SELF");
  CHECK(cmp(MPI_COMM_WORLD, MPI_COMM_WORLD) == MPI_IDENT, "WORLD vs WORLD not IDENT");
  CHECK(cmp(MPI_COMM_SELF, MPI_COMM_SELF) == MPI_IDENT, "SELF vs SELF not IDENT");
  int ws = cmp(MPI_COMM_WORLD, MPI_COMM_SELF);
  CHECK(ws == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "WORLD vs SELF gave %d", ws);
  CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(!flag, "COMM_WORLD is an intercommunicator");

  /* Dup: congruent, same ranks, separate name. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK(cmp(dup, MPI_COMM_WORLD) == MPI_CONGRUENT, "dup not CONGRUENT to WORLD");
  CHECK(cmp(dup, dup) == MPI_IDENT, "dup not IDENT to itself");
  CHECK_MPI(MPI_Comm_size(dup, &n));
  CHECK_MPI(MPI_Comm_rank(dup, &r));
  CHECK(n == size && r == rank, "dup size/rank %d/%d", n, r);
  CHECK_MPI(MPI_Comm_set_name(dup, "my duplicate"));
  check_name(dup, "my duplicate");
  check_name(MPI_COMM_WORLD, "MPI_COMM_WORLD"); /* the parent keeps its name */
  check_name(MPI_COMM_NULL, "MPI_COMM_NULL");   /* null handles have their predefined names */
  char tname[MPI_MAX_OBJECT_NAME];
  int tlen;
  CHECK_MPI(MPI_Type_get_name(MPI_DATATYPE_NULL, tname, &tlen));
  CHECK(strcmp(tname, "MPI_DATATYPE_NULL") == 0 && tlen == 17, "name of MPI_DATATYPE_NULL: '%s'", tname);
  CHECK_MPI(MPI_Win_get_name(MPI_WIN_NULL, tname, &tlen));
  CHECK(strcmp(tname, "MPI_WIN_NULL") == 0 && tlen == 12, "name of MPI_WIN_NULL: '%s'", tname);
  char longname[MPI_MAX_OBJECT_NAME];
  memset(longname, 'n', sizeof longname);
  longname[MPI_MAX_OBJECT_NAME - 1] = '\0';
  CHECK_MPI(MPI_Comm_set_name(dup, longname));
  check_name(dup, longname);

  /* Isolation: same source, tag, and buffer shape on dup and WORLD; sends on dup go first but
   * the WORLD receive (posted first, wildcard source and tag) must get the WORLD message. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int on_dup = 1000 + rank, on_world = 2000 + rank, got_w = -1, got_d = -1;
  MPI_Request rq[4];
  MPI_Status st;
  CHECK_MPI(MPI_Irecv(&got_w, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(&on_dup, 1, MPI_INT, right, 5, dup, &rq[1]));
  CHECK_MPI(MPI_Barrier(dup)); /* give the dup message time to arrive first */
  CHECK_MPI(MPI_Isend(&on_world, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[2]));
  CHECK_MPI(MPI_Wait(&rq[0], &st));
  CHECK(got_w == 2000 + left, "WORLD receive got %d: cross-talk from the dup", got_w);
  CHECK_MPI(MPI_Recv(&got_d, 1, MPI_INT, left, 5, dup, &st));
  CHECK(got_d == 1000 + left, "dup receive got %d", got_d);
  CHECK_MPI(MPI_Waitall(2, &rq[1], MPI_STATUSES_IGNORE));
  /* Probe on WORLD must not see a message sitting on dup. */
  CHECK_MPI(MPI_Isend(&on_dup, 1, MPI_INT, right, 6, dup, &rq[1]));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Barrier(dup));
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "Iprobe on WORLD matched a message sent on its dup");
  CHECK_MPI(MPI_Recv(&got_d, 1, MPI_INT, left, 6, dup, &st));
  CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));

  /* Split: color rank % 3; the last rank opts out (when size > 1). Key -rank reverses order. */
  int color = (size > 1 && rank == size - 1) ? MPI_UNDEFINED : rank % 3;
  MPI_Comm sc;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &sc));
  if (color == MPI_UNDEFINED) {
    CHECK(sc == MPI_COMM_NULL, "MPI_UNDEFINED color gave a communicator");
  } else {
    int expect_n = 0;
    for (int i = 0; i < size; i++)
      if (i % 3 == color && !(size > 1 && i == size - 1)) expect_n++;
    CHECK_MPI(MPI_Comm_size(sc, &n));
    CHECK(n == expect_n, "split size %d, expected %d", n, expect_n);
    members(sc, m);
    for (int i = 0; i < n; i++) {
      CHECK(m[i] % 3 == color, "split member %d has the wrong color", m[i]);
      if (i > 0) CHECK(m[i] < m[i - 1], "split order by key -rank violated: %d then %d", m[i - 1],
                       m[i]);
    }
    CHECK(cmp(sc, MPI_COMM_WORLD) == (n == size ? MPI_SIMILAR : MPI_UNEQUAL) ||
              (n == 1 && size == 1),
          "split vs WORLD compare %d", cmp(sc, MPI_COMM_WORLD));
    check_name(sc, ""); /* new communicators start unnamed */
    CHECK_MPI(MPI_Comm_free(&sc));
    CHECK(sc == MPI_COMM_NULL, "Comm_free did not null the handle");
  }

  /* Split with equal keys: ties are broken by the rank in the old communicator. */
  CHECK_MPI(MPI_Comm_split(dup, 0, 7, &sc));
  CHECK(cmp(sc, MPI_COMM_WORLD) == MPI_CONGRUENT, "equal-key split not CONGRUENT");
  CHECK_MPI(MPI_Comm_free(&sc));

  /* Full reversal via keys gives a SIMILAR communicator (same group, other order). */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &sc));
  CHECK_MPI(MPI_Comm_rank(sc, &r));
  CHECK(r == size - 1 - rank, "reversed split rank %d", r);
  CHECK(cmp(sc, MPI_COMM_WORLD) == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR),
        "reversed split compare %d", cmp(sc, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Comm_free(&sc));

  /* Split by type: everything here shares one node's memory. */
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &sc));
  CHECK_MPI(MPI_Comm_size(sc, &n));
  CHECK_MPI(MPI_Comm_rank(sc, &r));
  CHECK(n == size && r == rank, "split_type SHARED size %d rank %d (single node)", n, r);
  CHECK_MPI(MPI_Comm_free(&sc));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED,
                                0, MPI_INFO_NULL, &sc));
  if (rank % 2) CHECK(sc == MPI_COMM_NULL, "split_type(MPI_UNDEFINED) gave a communicator");
  else CHECK_MPI(MPI_Comm_free(&sc));

  /* Comm_create from the even ranks, in reverse order. */
  MPI_Group wg, eg;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  int ne = (size + 1) / 2, *ev = malloc(sizeof(int) * (size_t)ne);
  CHECK(ev != NULL, "malloc");
  for (int i = 0; i < ne; i++) ev[i] = 2 * (ne - 1 - i);
  CHECK_MPI(MPI_Group_incl(wg, ne, ev, &eg));
  MPI_Comm cc;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, eg, &cc));
  if (rank % 2) {
    CHECK(cc == MPI_COMM_NULL, "non-member got a communicator from Comm_create");
  } else {
    members(cc, m);
    for (int i = 0; i < ne; i++) CHECK(m[i] == ev[i], "Comm_create rank %d is world %d", i, m[i]);
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, cc));
    CHECK(sum == ne * (ne - 1), "Allreduce on created comm: %d", sum);
    CHECK_MPI(MPI_Comm_free(&cc));
  }

  /* Comm_create_group: only the odd ranks call it. */
  if (rank % 2) {
    int no = size / 2, *od = malloc(sizeof(int) * (size_t)no);
    CHECK(od != NULL, "malloc");
    for (int i = 0; i < no; i++) od[i] = 2 * i + 1;
    MPI_Group og;
    CHECK_MPI(MPI_Group_incl(wg, no, od, &og));
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, og, 17, &cc));
    CHECK(cc != MPI_COMM_NULL, "Comm_create_group gave MPI_COMM_NULL to a member");
    members(cc, m);
    for (int i = 0; i < no; i++) CHECK(m[i] == od[i], "create_group rank %d is world %d", i, m[i]);
    CHECK_MPI(MPI_Barrier(cc));
    CHECK_MPI(MPI_Comm_free(&cc));
    CHECK_MPI(MPI_Group_free(&og));
    free(od);
  }
  /* Empty group: everyone gets MPI_COMM_NULL. */
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &cc));
  CHECK(cc == MPI_COMM_NULL, "Comm_create(GROUP_EMPTY) gave a communicator");

  /* Nonblocking dup. */
  MPI_Request dq;
  MPI_Comm idup;
  CHECK_MPI(MPI_Comm_idup(dup, &idup, &dq));
  CHECK_MPI(MPI_Wait(&dq, MPI_STATUS_IGNORE));
  CHECK(cmp(idup, dup) == MPI_CONGRUENT, "idup not CONGRUENT");
  CHECK_MPI(MPI_Barrier(idup));
  CHECK_MPI(MPI_Comm_free(&idup));

  /* MPI_Comm_idup does not block: even ranks start it, then receive a message too large to go
     eagerly that their odd partner sends before reaching its own idup (a blocking idup would wait
     for the partner, which waits for the receive). Several idups and a dup are outstanding at once
     and completed in reverse. */
  {
    enum { BIG = 1 << 22 };
    char *big = malloc(BIG);
    CHECK(big, "malloc");
    int partner = rank ^ 1;
    MPI_Comm nb[2], blocking;
    MPI_Request nq[2];
    if (partner < size && rank % 2 == 1) {
      memset(big, rank, BIG);
      CHECK_MPI(MPI_Send(big, BIG, MPI_CHAR, partner, 77, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &nb[0], &nq[0]));
    if (partner < size && rank % 2 == 0) {
      CHECK_MPI(MPI_Recv(big, BIG, MPI_CHAR, partner, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(big[0] == (char)partner && big[BIG - 1] == (char)partner, "large message corrupted");
    }
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &nb[1], &nq[1]));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &blocking));
    CHECK_MPI(MPI_Wait(&nq[1], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&nq[0], MPI_STATUS_IGNORE));
    MPI_Comm all[3] = {nb[0], nb[1], blocking};
    for (int k = 0; k < 3; k++) {
      int sum = -1, one = rank + 10 * k;
      CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, all[k]));
      CHECK(sum == size * (size - 1) / 2 + 10 * k * size, "allreduce on dup %d: %d", k, sum);
      CHECK(cmp(all[k], MPI_COMM_WORLD) == MPI_CONGRUENT, "dup %d not congruent", k);
    }
    /* distinct contexts: sent on 0, 1, 2, received on 2, 1, 0, each gets its own */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got[3], vals[3] = {0, 1, 2};
    MPI_Request sq[3];
    for (int k = 0; k < 3; k++)
      CHECK_MPI(MPI_Isend(&vals[k], 1, MPI_INT, right, 5, all[k], &sq[k]));
    for (int k = 2; k >= 0; k--) {
      CHECK_MPI(MPI_Recv(&got[k], 1, MPI_INT, left, 5, all[k], MPI_STATUS_IGNORE));
      CHECK(got[k] == k, "dup %d received %d: two dups share a context", k, got[k]);
    }
    CHECK_MPI(MPI_Waitall(3, sq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 3; k++)
      CHECK_MPI(MPI_Comm_free(&all[k]));
    free(big);
  }

  /* Hints are not propagated (MPI 4.0 on): a dup or idup of a communicator carrying one has none;
     dup_with_info carries the one given. */
  MPI_Info hint, used;
  MPI_Comm hinted, plain, iplain;
  char val[16];
  int vlen = sizeof val, found = -1;
  CHECK_MPI(MPI_Info_create(&hint));
  CHECK_MPI(MPI_Info_set(hint, "mpi_assert_no_any_tag", "true"));
  CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, hint, &hinted));
  CHECK_MPI(MPI_Comm_get_info(hinted, &used));
  CHECK_MPI(MPI_Info_get_string(used, "mpi_assert_no_any_tag", &vlen, val, &found));
  CHECK(found && strcmp(val, "true") == 0, "dup_with_info lost its hint");
  CHECK_MPI(MPI_Info_free(&used));
  /* Comm_set_info updates the given hints and leaves the others as they were. */
  MPI_Info more;
  CHECK_MPI(MPI_Info_create(&more));
  CHECK_MPI(MPI_Info_set(more, "mpi_assert_no_any_source", "true"));
  CHECK_MPI(MPI_Comm_set_info(hinted, more));
  CHECK_MPI(MPI_Info_free(&more));
  CHECK_MPI(MPI_Comm_get_info(hinted, &used));
  const char *both[2] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source"};
  for (int k = 0; k < 2; k++) {
    vlen = sizeof val;
    CHECK_MPI(MPI_Info_get_string(used, both[k], &vlen, val, &found));
    CHECK(found && strcmp(val, "true") == 0, "after Comm_set_info, %s is %s", both[k], found ? val : "gone");
  }
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Comm_dup(hinted, &plain));
  CHECK_MPI(MPI_Comm_idup(hinted, &iplain, &dq));
  CHECK_MPI(MPI_Wait(&dq, MPI_STATUS_IGNORE));
  MPI_Comm copies[2] = {plain, iplain};
  for (int k = 0; k < 2; k++) {
    vlen = sizeof val;
    CHECK_MPI(MPI_Comm_get_info(copies[k], &used));
    CHECK_MPI(MPI_Info_get_string(used, "mpi_assert_no_any_tag", &vlen, val, &found));
    CHECK(!found, "%s propagated the hint", k ? "MPI_Comm_idup" : "MPI_Comm_dup");
    CHECK_MPI(MPI_Info_free(&used));
    CHECK_MPI(MPI_Comm_free(&copies[k]));
  }
  CHECK_MPI(MPI_Comm_free(&hinted));
  CHECK_MPI(MPI_Info_free(&hint));

  CHECK_MPI(MPI_Group_free(&eg));
  CHECK_MPI(MPI_Group_free(&wg));
  CHECK_MPI(MPI_Comm_free(&dup));
  free(ev);
  free(m);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
