/*
 * No rank leaves a barrier before every rank has entered it, for the algorithm forced by the
 * environment (CMakeLists runs each): before round k every rank writes k into its cell of a
 * shared-memory window, and after the barrier every rank must read at least k in every cell.
 * A rank chosen per round enters late (it sleeps first), in blocking, nonblocking and
 * persistent barriers, right after a barrier or after another collective (shm_release takes a
 * different form after each), on MPI_COMM_WORLD and on a communicator split in reverse order
 * (rank 0 of it is another process).
 */
#include <stdatomic.h>

#include "empi_test.h"

#define ROUNDS 300

static void check_round(_Atomic int *cells, int size, int k, const char *form) {
  for (int r = 0; r < size; r++) {
    int v = atomic_load_explicit(&cells[r], memory_order_acquire);
    CHECK(v >= k, "%s barrier round %d: left before rank %d entered (its cell holds %d)", form, k, r, v);
  }
}

static void rounds(MPI_Comm comm, _Atomic int *cells, int *next) {
  int rank, size;
  MPI_Request persistent;
  CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CHECK_MPI(MPI_Comm_size(comm, &size));
  CHECK_MPI(MPI_Barrier_init(comm, MPI_INFO_NULL, &persistent));
  for (int i = 0; i < ROUNDS; i++) {
    int k = ++*next, form = i % 3;
    /* The late rank: every rank in turn, and often rank 0, whose release the others may await. */
    int late = i % 4 == 0 ? 0 : (i * 7) % size;
    if (i % 4 == 1 || i % 4 == 2) {
      int v = rank == 0 ? k : -1;
      CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, comm));
      CHECK(v == k, "bcast before round %d gave %d", k, v);
    }
    if (rank == late)
      empi_sleep_ms(i % 10 == 0 ? 5 : 0);
    atomic_store_explicit(&cells[rank], k, memory_order_release);
    if (form == 0) {
      CHECK_MPI(MPI_Barrier(comm));
    } else {
      MPI_Request rq;
      if (form == 1)
        CHECK_MPI(MPI_Ibarrier(comm, &rq));
      else
        CHECK_MPI(MPI_Start(&persistent));
      CHECK_MPI(MPI_Wait(form == 1 ? &rq : &persistent, MPI_STATUS_IGNORE));
    }
    check_round(cells, size, k, form == 0 ? "blocking" : form == 1 ? "nonblocking" : "persistent");
  }
  CHECK_MPI(MPI_Request_free(&persistent));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm node, reversed;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nsize, nrank;
  CHECK_MPI(MPI_Comm_size(node, &nsize));
  CHECK_MPI(MPI_Comm_rank(node, &nrank));
  CHECK(nsize == empi_size(), "the test needs every rank on one node");
  CHECK_MPI(MPI_Comm_split(node, 0, nsize - nrank, &reversed));

  _Atomic int *cells;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared(nrank == 0 ? (MPI_Aint)(nsize * sizeof *cells) : 0, sizeof *cells, MPI_INFO_NULL,
                                    node, &cells, &win));
  MPI_Aint bytes;
  int unit;
  CHECK_MPI(MPI_Win_shared_query(win, 0, &bytes, &unit, &cells));
  atomic_store(&cells[nrank], 0);
  CHECK_MPI(MPI_Barrier(node));

  int next = 0;
  rounds(MPI_COMM_WORLD, cells, &next);
  /* Each process writes the cell of its rank in the communicator: a permutation of the same cells. */
  int rrank;
  CHECK_MPI(MPI_Comm_rank(reversed, &rrank));
  CHECK(rrank == nsize - 1 - nrank, "split put rank %d at %d", nrank, rrank);
  CHECK_MPI(MPI_Barrier(node));
  rounds(reversed, cells, &next);

  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Comm_free(&reversed));
  CHECK_MPI(MPI_Comm_free(&node));
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
