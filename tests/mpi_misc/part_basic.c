/*
 * Partitioned communication around a ring: sender and receiver partition the same message
 * differently, partitions become ready in a random order through MPI_Pready, MPI_Pready_range and
 * MPI_Pready_list, the receiver checks each partition's data as soon as MPI_Parrived reports it,
 * channels are restarted over several rounds, a noncontiguous receive type, channels sharing
 * (communicator, peer, tag) paired in the order of their init calls whatever the order of the
 * starts, zero partitions, a receive of another size (MPI_ERR_TRUNCATE there, the send completes),
 * MPI_PROC_NULL, and the error classes of misuse.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

#define TOTAL 192 /* ints per message: divisible by every partition count used */

static int value(int src, int round, int i) { return src * 1000000 + round * 10000 + i; }

/* Ready all send partitions in a shuffled order, alternating the three calls. */
static void ready_all(MPI_Request req, int nparts, unsigned *seed) {
  int *order = malloc(sizeof(int) * (size_t)nparts);
  CHECK(order, "malloc");
  for (int i = 0; i < nparts; i++)
    order[i] = i;
  for (int i = nparts - 1; i > 0; i--) {
    int j = (int)(rand_r(seed) % (unsigned)(i + 1)), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (int k = 0; k < nparts;) {
    int how = (int)(rand_r(seed) % 3);
    if (how == 0) {
      CHECK_MPI(MPI_Pready(order[k], req));
      k++;
    } else if (how == 1) {
      int n = nparts - k < 3 ? nparts - k : 3;
      CHECK_MPI(MPI_Pready_list(n, &order[k], req));
      k += n;
    } else {
      /* A range: ready the run of consecutive partitions starting at order[k] that are still
         pending, by swapping them to the front of what is left. */
      int lo = order[k], hi = lo;
      for (;;) {
        int found = -1;
        for (int m = k + (hi - lo) + 1; m < nparts; m++)
          if (order[m] == hi + 1)
            found = m;
        if (found < 0)
          break;
        int pos = k + (hi - lo) + 1, t = order[pos];
        order[pos] = order[found];
        order[found] = t;
        hi++;
      }
      CHECK_MPI(MPI_Pready_range(lo, hi, req));
      k += hi - lo + 1;
    }
  }
  free(order);
}

/* One round on a (send, receive) pair of channels. rtype: receive datatype (ints or a vector
   of single ints at stride 2); rparts receive partitions. */
static void round_trip(MPI_Request sreq, MPI_Request rreq, int *sbuf, int *rbuf, int sparts, int rparts,
                       int strided, int round, int left, unsigned *seed) {
  int me = empi_rank();
  for (int i = 0; i < TOTAL; i++)
    sbuf[i] = value(me, round, i);
  int rlen = strided ? 2 * TOTAL : TOTAL;
  for (int i = 0; i < rlen; i++)
    rbuf[i] = -1;
  MPI_Request both[2] = {rreq, sreq};
  CHECK_MPI(MPI_Startall(2, both));
  ready_all(sreq, sparts, seed);
  int per = TOTAL / rparts, seen = 0;
  char *done = calloc((size_t)rparts, 1);
  CHECK(done, "calloc");
  while (seen < rparts) {
    for (int q = 0; q < rparts; q++) {
      int flag = 0;
      if (done[q])
        continue;
      CHECK_MPI(MPI_Parrived(rreq, q, &flag));
      if (!flag)
        continue;
      done[q] = 1;
      seen++;
      for (int i = q * per; i < (q + 1) * per; i++) {
        int got = rbuf[strided ? 2 * i : i];
        CHECK(got == value(left, round, i), "round %d partition %d element %d: %d", round, q, i, got);
        if (strided)
          CHECK(rbuf[2 * i + 1] == -1, "strided receive wrote a gap");
      }
    }
  }
  free(done);
  MPI_Status st[2];
  CHECK_MPI(MPI_Waitall(2, both, st));
  CHECK(st[0].MPI_SOURCE == left, "receive status source %d", st[0].MPI_SOURCE);
  int flag = 0;
  CHECK_MPI(MPI_Parrived(rreq, 0, &flag));
  CHECK(flag, "Parrived false on a completed round");
  flag = 0;
  CHECK_MPI(MPI_Parrived(MPI_REQUEST_NULL, 3, &flag));   /* a null request: flag true, no error */
  CHECK(flag, "Parrived false on MPI_REQUEST_NULL");
}

/* Three channels on one (communicator, peer, tag) with different partitionings pair in init order
   (MPI 4.1 4.2.3), though the receiver starts them in reverse and the sender in another order. */
static void init_order(int left, int right) {
  enum { K = 3 };
  int s[K][6], r[K][6];
  MPI_Request sr[K], rr[K];
  for (int k = 0; k < K; k++) {
    for (int i = 0; i < 6; i++) {
      s[k][i] = 100 * (k + 1) + i + 1000 * empi_rank();
      r[k][i] = -1;
    }
    CHECK_MPI(MPI_Psend_init(s[k], k + 1, 6 / (k + 1), MPI_INT, right, 70, MPI_COMM_WORLD, MPI_INFO_NULL, &sr[k]));
  }
  for (int k = 0; k < K; k++)
    CHECK_MPI(MPI_Precv_init(r[k], K - k, 6 / (K - k), MPI_INT, left, 70, MPI_COMM_WORLD, MPI_INFO_NULL, &rr[k]));
  for (int round = 0; round < 2; round++) {
    for (int k = K - 1; k >= 0; k--)
      CHECK_MPI(MPI_Start(&rr[k]));
    const int sorder[K] = {1, 2, 0};
    for (int j = 0; j < K; j++) {
      int k = sorder[j];
      CHECK_MPI(MPI_Start(&sr[k]));
      CHECK_MPI(MPI_Pready_range(0, k, sr[k]));
    }
    CHECK_MPI(MPI_Waitall(K, sr, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Waitall(K, rr, MPI_STATUSES_IGNORE));
    for (int k = 0; k < K; k++)
      for (int i = 0; i < 6; i++)
        CHECK(r[k][i] == 100 * (k + 1) + i + 1000 * left, "round %d channel %d element %d: %d", round, k, i,
              r[k][i]);
  }
  for (int k = 0; k < K; k++) {
    CHECK_MPI(MPI_Request_free(&sr[k]));
    CHECK_MPI(MPI_Request_free(&rr[k]));
  }
}

/* Zero partitions complete; a receive smaller than the send fails with MPI_ERR_TRUNCATE there while
   the send completes (its data dropped, as a truncated message's). */
static void sizes(int left, int right) {
  MPI_Request s, r;
  int sb[10] = {0}, rb[8] = {0};
  CHECK_MPI(MPI_Psend_init(sb, 0, 1, MPI_INT, right, 80, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  CHECK_MPI(MPI_Precv_init(rb, 0, 1, MPI_INT, left, 80, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  for (int round = 0; round < 2; round++) {
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Start(&s));
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_Request_free(&s));
  CHECK_MPI(MPI_Request_free(&r));

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  for (int i = 0; i < 10; i++)
    sb[i] = i;
  CHECK_MPI(MPI_Psend_init(sb, 2, 5, MPI_INT, right, 81, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  CHECK_MPI(MPI_Precv_init(rb, 2, 4, MPI_INT, left, 81, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  for (int round = 0; round < 2; round++) {
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Start(&s));
    CHECK_MPI(MPI_Pready_range(0, 1, s));
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_ERR(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
  }
  CHECK_MPI(MPI_Request_free(&s));
  CHECK_MPI(MPI_Request_free(&r));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  /* Channels freed before they ever start (their SETUP possibly still on the way) do not pair with
     the next ones on the same (communicator, peer, tag). */
  for (int k = 0; k < 3; k++) {
    CHECK_MPI(MPI_Psend_init(sb, 1, 4, MPI_INT, right, 82, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rb, 1, 4, MPI_INT, left, 82, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Request_free(&r));
    CHECK_MPI(MPI_Request_free(&s));
  }
  for (int i = 0; i < 4; i++) {
    sb[i] = 500 + i + 10 * empi_rank();
    rb[i] = -1;
  }
  CHECK_MPI(MPI_Psend_init(sb, 2, 2, MPI_INT, right, 82, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  CHECK_MPI(MPI_Precv_init(rb, 1, 4, MPI_INT, left, 82, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  CHECK_MPI(MPI_Start(&r));
  CHECK_MPI(MPI_Start(&s));
  CHECK_MPI(MPI_Pready_range(0, 1, s));
  CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int i = 0; i < 4; i++)
    CHECK(rb[i] == 500 + i + 10 * left, "after freed channels: element %d is %d", i, rb[i]);
  CHECK_MPI(MPI_Request_free(&s));
  CHECK_MPI(MPI_Request_free(&r));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int me = empi_rank(), n = empi_size();
  int right = (me + 1) % n, left = (me + n - 1) % n;
  unsigned seed = 12345u + (unsigned)me;
  int *sbuf = malloc(sizeof(int) * TOTAL), *rbuf = malloc(sizeof(int) * 2 * TOTAL);
  CHECK(sbuf && rbuf, "malloc");

  /* Three partitionings of the receive side against eight send partitions, several rounds each. */
  const int rparts_list[3] = {4, 8, 24};
  for (int c = 0; c < 3; c++) {
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(sbuf, 8, TOTAL / 8, MPI_INT, right, 40 + c, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rbuf, rparts_list[c], TOTAL / rparts_list[c], MPI_INT, left, 40 + c, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &r));
    for (int round = 0; round < 3; round++)
      round_trip(s, r, sbuf, rbuf, 8, rparts_list[c], 0, round, left, &seed);
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
  }

  /* Noncontiguous receive type: every other int. */
  MPI_Datatype every_other, resized;
  CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_create_resized(every_other, 0, 2 * (MPI_Aint)sizeof(int), &resized));
  CHECK_MPI(MPI_Type_commit(&resized));
  {
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(sbuf, 6, TOTAL / 6, MPI_INT, right, 50, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rbuf, 12, TOTAL / 12, resized, left, 50, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int round = 0; round < 2; round++)
      round_trip(s, r, sbuf, rbuf, 6, 12, 1, round, left, &seed);
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
  }
  CHECK_MPI(MPI_Type_free(&resized));
  CHECK_MPI(MPI_Type_free(&every_other));

  /* User traffic with wildcards on the same communicator never sees partitioned messages. */
  {
    MPI_Request s, r, u;
    int token = -1, mine = 7 + me;
    CHECK_MPI(MPI_Irecv(&token, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &u));
    CHECK_MPI(MPI_Psend_init(sbuf, 2, TOTAL / 2, MPI_INT, right, 60, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rbuf, 2, TOTAL / 2, MPI_INT, left, 60, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    round_trip(s, r, sbuf, rbuf, 2, 2, 0, 9, left, &seed);
    int flag = 1;
    CHECK_MPI(MPI_Test(&u, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a wildcard user receive matched partitioned traffic (got %d)", token);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* nobody sends the user message before all tested */
    CHECK_MPI(MPI_Send(&mine, 1, MPI_INT, right, 61, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&u, MPI_STATUS_IGNORE));
    CHECK(token == 7 + left, "user message %d", token);
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
  }

  /* Channels on tag 0 and on MPI_TAG_UB, set up while an ordinary receive of tag 7 from the same
     peer is posted after them: neither takes the tag-7 message (tag 0 once did, as a wildcard). */
  {
    int *tag_ub = NULL, has = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &has));
    CHECK(has && tag_ub, "MPI_TAG_UB missing");
    const int tags[2] = {0, *tag_ub};
    for (int t = 0; t < 2; t++) {
      MPI_Request s, r, u;
      int token = -1, mine = 70 + me;
      CHECK_MPI(MPI_Precv_init(rbuf, 2, TOTAL / 2, MPI_INT, left, tags[t], MPI_COMM_WORLD, MPI_INFO_NULL, &r));
      CHECK_MPI(MPI_Irecv(&token, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &u));
      CHECK_MPI(MPI_Send(&mine, 1, MPI_INT, right, 7, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&u, MPI_STATUS_IGNORE));
      CHECK(token == 70 + left, "tag %d channel: user message %d", tags[t], token);
      CHECK_MPI(MPI_Psend_init(sbuf, 2, TOTAL / 2, MPI_INT, right, tags[t], MPI_COMM_WORLD, MPI_INFO_NULL, &s));
      round_trip(s, r, sbuf, rbuf, 2, 2, 0, 11 + t, left, &seed);
      CHECK_MPI(MPI_Request_free(&s));
      CHECK_MPI(MPI_Request_free(&r));
    }
  }

  init_order(left, right);
  sizes(left, right);

  /* MPI_PROC_NULL: completes at once. */
  {
    MPI_Request s, r;
    CHECK_MPI(MPI_Psend_init(sbuf, 2, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_MPI(MPI_Precv_init(rbuf, 2, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Start(&s));
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Pready_range(0, 1, s));
    int flag = 0;
    CHECK_MPI(MPI_Parrived(r, 1, &flag));
    CHECK(flag, "PROC_NULL partition not arrived");
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL status source %d", st.MPI_SOURCE);
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));

    /* Misuse. */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_ERR(MPI_Pready(0, s), MPI_ERR_REQUEST); /* inactive */
    CHECK_MPI(MPI_Start(&s));
    CHECK_ERR(MPI_Pready(2, s), MPI_ERR_ARG);
    CHECK_ERR(MPI_Pready_range(1, 0, s), MPI_ERR_ARG);
    CHECK_MPI(MPI_Pready(0, s));
    CHECK_ERR(MPI_Pready(0, s), MPI_ERR_ARG); /* twice in one round */
    CHECK_MPI(MPI_Pready(1, s));
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    int flag2;
    CHECK_ERR(MPI_Parrived(s, 0, &flag2), MPI_ERR_REQUEST);
    CHECK_ERR(MPI_Pready(0, r), MPI_ERR_REQUEST);
    CHECK_ERR(MPI_Parrived(r, 5, &flag2), MPI_ERR_ARG);
    MPI_Request bad;
    CHECK_ERR(MPI_Precv_init(rbuf, 2, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
              MPI_ERR_RANK);
    CHECK_ERR(MPI_Psend_init(sbuf, -1, 1, MPI_INT, right, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &bad), MPI_ERR_ARG);
    int *ub = NULL, has_ub = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &has_ub));
    if (*ub < 0x7fffffff)
      CHECK_ERR(MPI_Psend_init(sbuf, 2, 1, MPI_INT, right, *ub + 1, MPI_COMM_WORLD, MPI_INFO_NULL, &bad), MPI_ERR_TAG);
    CHECK_MPI(MPI_Request_free(&s));
    CHECK_MPI(MPI_Request_free(&r));
  }
  free(sbuf);
  free(rbuf);
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
