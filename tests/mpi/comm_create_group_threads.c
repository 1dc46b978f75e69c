/*
 * MPI_Comm_create_group is collective over the group only, so one thread may run it on a
 * communicator while another thread runs that communicator's collectives (MPI_Bcast, rotating
 * roots) or MPI_Intercomm_create through it. Every user tag must keep the creation's internal
 * messages apart from that traffic: tag 0 used to become MPI_ANY_TAG internally and took the
 * broadcasts' messages (a hang or MPI_ERR_TRUNCATE). Tags 0, 7 and the largest are run; every
 * broadcast is checked.
 */
#include "empi_test.h"

#include <pthread.h>

enum { ITERS = 40 };

static int g_tag;

static void *creator(void *arg) {
  (void)arg;
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &g));
  for (int i = 0; i < ITERS; i++) {
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, g_tag, &c));
    int n = 0;
    CHECK_MPI(MPI_Comm_size(c, &n));
    CHECK(n == empi_size(), "create_group made a communicator of %d", n);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK_MPI(MPI_Group_free(&g));
  return NULL;
}

static void *broadcaster(void *arg) {
  (void)arg;
  int rank = empi_rank(), size = empi_size();
  for (int i = 0; i < 2 * ITERS; i++) {
    int buf[4], root = i % size;
    for (int k = 0; k < 4; k++)
      buf[k] = rank == root ? i * 10 + k : -1;
    CHECK_MPI(MPI_Bcast(buf, 4, MPI_INT, root, MPI_COMM_WORLD));
    for (int k = 0; k < 4; k++)
      CHECK(buf[k] == i * 10 + k, "bcast %d: element %d is %d", i, k, buf[k]);
  }
  return NULL;
}

/* Every process meets its right neighbour's group of one through MPI_COMM_WORLD. */
static void *intercomms(void *arg) {
  (void)arg;
  int rank = empi_rank(), size = empi_size();
  for (int i = 0; i < ITERS && size % 2 == 0; i++) {
    MPI_Comm ic;
    int peer = rank % 2 ? rank - 1 : rank + 1;
    CHECK_MPI(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, peer, 101, &ic));
    CHECK_MPI(MPI_Comm_free(&ic));
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  int *tag_ub = NULL, flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag && tag_ub, "MPI_TAG_UB missing");
  const int tags[] = {0, 7, *tag_ub};
  for (int t = 0; t < 3; t++) {
    g_tag = tags[t];
    pthread_t a, b;
    CHECK(pthread_create(&a, NULL, creator, NULL) == 0, "pthread_create");
    CHECK(pthread_create(&b, NULL, t == 1 ? intercomms : broadcaster, NULL) == 0, "pthread_create");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
