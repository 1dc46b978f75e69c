/*
 * Intercommunicators: MPI_Intercomm_create, the queries, point-to-point (ranks name the remote
 * group, wildcards, probe), MPI_Intercomm_merge in every high/low ordering, dup, split, create,
 * compare, MPI_Intercomm_create_from_groups, and the error classes of misuse.
 */
#include <stdlib.h>
#include <string.h>

#include "intercomm_common.h"

/* Every local rank sends to every remote rank and receives from every one; data checked. */
static void all_pairs(MPI_Comm inter, int lrank, int lsize, int rsize, int tag) {
  int n = rsize, me = lrank;
  int *out = malloc(sizeof(int) * 4 * (size_t)n), *in = malloc(sizeof(int) * 4 * (size_t)n);
  MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)n);
  CHECK(out && in && rq, "malloc");
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 4; k++)
      out[4 * i + k] = (int)empi_seed(me, i, k + tag);
    CHECK_MPI(MPI_Irecv(&in[4 * i], 4, MPI_INT, i, tag, inter, &rq[i]));
    CHECK_MPI(MPI_Isend(&out[4 * i], 4, MPI_INT, i, tag, inter, &rq[n + i]));
  }
  MPI_Status st[2 * 64];
  CHECK(n <= 64, "too many ranks");
  CHECK_MPI(MPI_Waitall(2 * n, rq, st));
  for (int i = 0; i < n; i++) {
    CHECK(st[i].MPI_SOURCE == i && st[i].MPI_TAG == tag, "status source %d tag %d", st[i].MPI_SOURCE,
          st[i].MPI_TAG);
    for (int k = 0; k < 4; k++)
      CHECK(in[4 * i + k] == (int)empi_seed(i, me, k + tag), "from remote %d word %d: %d", i, k, in[4 * i + k]);
  }
  (void)lsize;
  free(out);
  free(in);
  free(rq);
}

/* World ranks of the merged communicator's members in rank order. */
static void check_merge(const halves_t *h, int my_high, int their_high) {
  MPI_Comm merged;
  int size = empi_size(), r, n;
  CHECK_MPI(MPI_Intercomm_merge(h->inter, my_high, &merged));
  CHECK_MPI(MPI_Comm_size(merged, &n));
  CHECK(n == size, "merged size %d", n);
  int flag = 1;
  CHECK_MPI(MPI_Comm_test_inter(merged, &flag));
  CHECK(!flag, "merged communicator is an intercommunicator");
  int *w = malloc(sizeof(int) * (size_t)size), wr = empi_rank();
  CHECK(w, "malloc");
  CHECK_MPI(MPI_Allgather(&wr, 1, MPI_INT, w, 1, MPI_INT, merged));
  /* The low group comes first; with equal choices either order is allowed, but consistently. */
  int low_high = h->color == 0 ? my_high : their_high; /* the world-low half's choice */
  int low_first = my_high != their_high ? !low_high : w[0] == 0;
  int half = size / 2;
  for (int i = 0; i < size; i++) {
    int expect;
    if (low_first)
      expect = i;
    else
      expect = i < size - half ? half + i : i - (size - half);
    CHECK(w[i] == expect, "merged rank %d is world %d, expected %d (high %d/%d)", i, w[i], expect, my_high,
          their_high);
  }
  CHECK_MPI(MPI_Comm_rank(merged, &r));
  CHECK(w[r] == wr, "my merged rank %d", r);
  free(w);
  CHECK_MPI(MPI_Comm_free(&merged));
}

static void check_split(const halves_t *h) {
  /* Color by local rank parity, key reversed: pairs (even, even) and (odd, odd) across groups. */
  MPI_Comm sub;
  int color = h->lrank % 2;
  CHECK_MPI(MPI_Comm_split(h->inter, color, -h->lrank, &sub));
  int lcount = (h->lsize + 1 - color) / 2, rcount = (h->rsize + 1 - color) / 2;
  if (rcount == 0) {
    CHECK(sub == MPI_COMM_NULL, "split with an empty remote side gave a communicator");
    return;
  }
  CHECK(sub != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
  int flag = 0, n = -1, rn = -1, r = -1;
  CHECK_MPI(MPI_Comm_test_inter(sub, &flag));
  CHECK_MPI(MPI_Comm_size(sub, &n));
  CHECK_MPI(MPI_Comm_remote_size(sub, &rn));
  CHECK_MPI(MPI_Comm_rank(sub, &r));
  CHECK(flag && n == lcount && rn == rcount, "split: inter %d size %d/%d remote %d/%d", flag, n, lcount, rn, rcount);
  /* Reversed keys: the highest local rank of my color is rank 0. */
  int expect = (h->lsize - 1 - color) / 2 - h->lrank / 2;
  CHECK(r == expect, "split rank %d expected %d", r, expect);
  all_pairs(sub, r, n, rn, 31);
  CHECK_MPI(MPI_Comm_free(&sub));
}

/* Split by type: on one node every process shares memory, so the result pairs both whole groups;
   MPI_UNDEFINED gives MPI_COMM_NULL. */
static void check_split_type(const halves_t *h) {
  MPI_Comm sub;
  CHECK_MPI(MPI_Comm_split_type(h->inter, MPI_COMM_TYPE_SHARED, h->lrank, MPI_INFO_NULL, &sub));
  CHECK(sub != MPI_COMM_NULL, "split_type SHARED of an intercommunicator gave MPI_COMM_NULL");
  int flag = 0, n = -1, rn = -1, r = -1;
  CHECK_MPI(MPI_Comm_test_inter(sub, &flag));
  CHECK_MPI(MPI_Comm_size(sub, &n));
  CHECK_MPI(MPI_Comm_remote_size(sub, &rn));
  CHECK_MPI(MPI_Comm_rank(sub, &r));
  CHECK(flag && n == h->lsize && rn == h->rsize && r == h->lrank, "split_type: inter %d size %d/%d remote %d/%d rank %d/%d",
        flag, n, h->lsize, rn, h->rsize, r, h->lrank);
  all_pairs(sub, r, n, rn, 32);
  CHECK_MPI(MPI_Comm_free(&sub));
  CHECK_MPI(MPI_Comm_split_type(h->inter, MPI_UNDEFINED, 0, MPI_INFO_NULL, &sub));
  CHECK(sub == MPI_COMM_NULL, "split_type MPI_UNDEFINED gave a communicator");
}

static void check_create(const halves_t *h) {
  /* Each side keeps its local rank 0 only. */
  MPI_Group lg, first;
  int zero = 0;
  CHECK_MPI(MPI_Comm_group(h->inter, &lg));
  CHECK_MPI(MPI_Group_incl(lg, 1, &zero, &first));
  MPI_Comm sub;
  CHECK_MPI(MPI_Comm_create(h->inter, first, &sub));
  if (h->lrank != 0) {
    CHECK(sub == MPI_COMM_NULL, "non-member got a communicator");
  } else {
    int rn = -1;
    CHECK_MPI(MPI_Comm_remote_size(sub, &rn));
    CHECK(rn == 1, "create: remote size %d", rn);
    int out = empi_rank(), in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, 0, 3, &in, 1, MPI_INT, 0, 3, sub, MPI_STATUS_IGNORE));
    CHECK(in == h->rbase, "create: got %d from the other leader, expected %d", in, h->rbase);
    CHECK_MPI(MPI_Comm_free(&sub));
  }
  CHECK_MPI(MPI_Group_free(&first));
  CHECK_MPI(MPI_Group_free(&lg));
}

static void check_from_groups(const halves_t *h) {
  MPI_Group world, lg, rg;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_MPI(MPI_Comm_group(h->inter, &lg));
  CHECK_MPI(MPI_Comm_remote_group(h->inter, &rg));
  int res = -1;
  CHECK_MPI(MPI_Group_compare(lg, rg, &res));
  CHECK(res == MPI_UNEQUAL, "local and remote groups compare %d", res);
  MPI_Comm ic;
  /* Leaders: the last member on each side. */
  CHECK_MPI(MPI_Intercomm_create_from_groups(lg, h->lsize - 1, rg, h->rsize - 1, "org.ethermpi.test.halves",
                                             MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic));
  int rn = -1;
  CHECK_MPI(MPI_Comm_remote_size(ic, &rn));
  CHECK(rn == h->rsize, "from_groups remote size %d", rn);
  all_pairs(ic, h->lrank, h->lsize, h->rsize, 41);
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_get_errhandler(ic, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "from_groups error handler not the one given");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Comm_free(&ic));
  CHECK_MPI(MPI_Group_free(&world));
  CHECK_MPI(MPI_Group_free(&lg));
  CHECK_MPI(MPI_Group_free(&rg));
}

static void check_errors(const halves_t *h) {
  int v = 0;
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(h->inter, MPI_ERRORS_RETURN));
  CHECK_ERR(MPI_Comm_remote_size(MPI_COMM_WORLD, &v), MPI_ERR_COMM);
  CHECK_ERR(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM);
  CHECK_ERR(MPI_Intercomm_create(h->inter, 0, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_COMM);
  CHECK_ERR(MPI_Intercomm_create(MPI_COMM_WORLD, empi_size(), MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_RANK);
  CHECK_ERR(MPI_Send(&v, 1, MPI_INT, h->rsize, 0, h->inter), MPI_ERR_RANK);
  CHECK_ERR(MPI_Scan(&v, &v, 1, MPI_INT, MPI_SUM, h->inter), MPI_ERR_COMM);
  CHECK_ERR(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, h->inter), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Bcast(&v, 1, MPI_INT, h->rsize, h->inter), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Comm_create_group(h->inter, MPI_GROUP_EMPTY, 0, &c), MPI_ERR_COMM);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Intercommunicators take 4 context ids at a time: between processes whose counters differ by
   2 (one made an extra communicator alone) the agreement retried for ever. Pairs (2k, 2k+1) make
   one from MPI_COMM_SELF after 0, 1, 2 and 3 local dups on the even side. */
static void uneven_counters(void) {
  int rank = empi_rank(), partner = rank ^ 1;
  if (partner >= empi_size())
    return;
  for (int nd = 0; nd < 4; nd++) {
    MPI_Comm extra[3], ic;
    for (int i = 0; rank % 2 == 0 && i < nd; i++)
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &extra[i]));
    CHECK_MPI(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, partner, 30 + nd, &ic));
    int out = rank, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, 0, 0, &in, 1, MPI_INT, 0, 0, ic, MPI_STATUS_IGNORE));
    CHECK(in == partner, "after %d dups: got %d from the remote side", nd, in);
    CHECK_MPI(MPI_Comm_free(&ic));
    for (int i = 0; rank % 2 == 0 && i < nd; i++)
      CHECK_MPI(MPI_Comm_free(&extra[i]));
  }
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  if (empi_size() < 2) {
    empi_note("intercommunicators need 2 processes: skipped\n");
    TEST_PASS();
    MPI_Finalize();
    return 0;
  }
  halves_t h;
  make_halves(&h, 12);
  int flag = 0, n = -1;
  CHECK_MPI(MPI_Comm_test_inter(h.inter, &flag));
  CHECK(flag, "not an intercommunicator");
  CHECK_MPI(MPI_Comm_size(h.inter, &n));
  CHECK(n == h.lsize, "size %d, local group %d", n, h.lsize);
  CHECK_MPI(MPI_Comm_remote_size(h.inter, &n));
  CHECK(n == h.rsize, "remote size %d, expected %d", n, h.rsize);
  MPI_Group rg, wg;
  CHECK_MPI(MPI_Comm_remote_group(h.inter, &rg));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  for (int i = 0; i < h.rsize; i++) {
    int w = -1;
    CHECK_MPI(MPI_Group_translate_ranks(rg, 1, &i, wg, &w));
    CHECK(w == h.rbase + i, "remote rank %d is world %d", i, w);
  }
  CHECK_MPI(MPI_Group_free(&rg));
  CHECK_MPI(MPI_Group_free(&wg));

  /* Point-to-point: all pairs, then wildcards and probe from remote rank 0's leader. */
  all_pairs(h.inter, h.lrank, h.lsize, h.rsize, 7);
  if (h.lrank == 0) {
    int out = 100 + h.color, in = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, 0, 9, h.inter));
    CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, h.inter, &st));
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 9, "probe source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, h.inter, &st));
    CHECK(in == 101 - h.color, "wildcard receive got %d", in);
  }

  /* Dup: congruent, independent traffic. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(h.inter, &dup));
  int res = -1;
  CHECK_MPI(MPI_Comm_compare(dup, h.inter, &res));
  CHECK(res == MPI_CONGRUENT, "dup compares %d", res);
  CHECK_MPI(MPI_Comm_compare(dup, MPI_COMM_WORLD, &res));
  CHECK(res == MPI_UNEQUAL, "intercomm vs WORLD compares %d", res);
  all_pairs(dup, h.lrank, h.lsize, h.rsize, 8);
  CHECK_MPI(MPI_Comm_free(&dup));

  /* MPI_Comm_idup does not block: world rank 0 starts it and then receives a message too large to
     go eagerly, which world rank 1 sends before reaching its own idup. */
  {
    enum { BIG = 1 << 22 };
    char *big = malloc(BIG);
    CHECK(big, "malloc");
    int wrank = empi_rank();
    MPI_Request q;
    if (wrank == 1) {
      memset(big, 7, BIG);
      CHECK_MPI(MPI_Send(big, BIG, MPI_CHAR, 0, 99, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Comm_idup(h.inter, &dup, &q));
    if (wrank == 0) {
      CHECK_MPI(MPI_Recv(big, BIG, MPI_CHAR, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(big[0] == 7 && big[BIG - 1] == 7, "large message corrupted");
    }
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_compare(dup, h.inter, &res));
    CHECK(res == MPI_CONGRUENT, "idup compares %d", res);
    all_pairs(dup, h.lrank, h.lsize, h.rsize, 10);
    int flag = 0;
    CHECK_MPI(MPI_Comm_test_inter(dup, &flag));
    CHECK(flag, "the idup of an intercommunicator is not one");
    int sum = -1;
    CHECK_MPI(MPI_Allreduce(&h.lrank, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == h.rsize * (h.rsize - 1) / 2, "allreduce over the idup gave %d", sum);
    CHECK_MPI(MPI_Comm_free(&dup));
    free(big);
  }

  /* Merge in every ordering: (low half, high half) choosing (0,1), (1,0), (0,0), (1,1). */
  for (int k = 0; k < 4; k++) {
    int low_choice = k == 1 || k == 3, high_choice = k == 0 || k == 3;
    int mine = h.color ? high_choice : low_choice, theirs = h.color ? low_choice : high_choice;
    check_merge(&h, mine, theirs);
  }
  check_split(&h);
  check_split_type(&h);
  check_create(&h);
  check_from_groups(&h);
  check_errors(&h);
  free_halves(&h);
  uneven_counters();
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
