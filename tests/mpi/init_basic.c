/*
 * Environment basics: init/finalize state queries, thread-level queries, version strings,
 * processor name, timers, world/self sizes and the standard-ABI introspection calls.
 */
#include "empi_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int flag = -1;

  /* Both queries are callable before MPI_Init and must report "not yet". */
  CHECK_MPI(MPI_Initialized(&flag));
  if (flag) { fprintf(stderr, "FAIL: MPI_Initialized true before MPI_Init\n"); return 1; }
  CHECK_MPI(MPI_Finalized(&flag));
  if (flag) { fprintf(stderr, "FAIL: MPI_Finalized true before MPI_Init\n"); return 1; }

  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(flag, "MPI_Initialized false after MPI_Init");
  CHECK_MPI(MPI_Finalized(&flag));
  CHECK(!flag, "MPI_Finalized true before MPI_Finalize");

  int rank = empi_rank(), size = empi_size();
  CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d size %d", rank, size);

  /* MPI_Init provides some level; whatever it is, it must be a valid one. */
  int level = -1;
  CHECK_MPI(MPI_Query_thread(&level));
  CHECK(level == MPI_THREAD_SINGLE || level == MPI_THREAD_FUNNELED ||
            level == MPI_THREAD_SERIALIZED || level == MPI_THREAD_MULTIPLE,
        "Query_thread gave %d", level);
  CHECK_MPI(MPI_Is_thread_main(&flag));
  CHECK(flag, "Is_thread_main false on the thread that called MPI_Init");

  int ver = 0, sub = -1;
  CHECK_MPI(MPI_Get_version(&ver, &sub));
  CHECK(ver == 5 && sub == 0, "Get_version %d.%d, expected 5.0", ver, sub);
  CHECK(ver == MPI_VERSION && sub == MPI_SUBVERSION, "Get_version differs from mpi.h");

  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = -1;
  memset(lib, 'x', sizeof lib);
  CHECK_MPI(MPI_Get_library_version(lib, &len));
  CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING, "library version length %d", len);
  CHECK((int)strlen(lib) == len, "library version strlen %zu != len %d", strlen(lib), len);

  char host[MPI_MAX_PROCESSOR_NAME];
  memset(host, 'x', sizeof host);
  CHECK_MPI(MPI_Get_processor_name(host, &len));
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "processor name length %d", len);
  CHECK((int)strlen(host) == len, "processor name strlen %zu != len %d", strlen(host), len);

  /* Timers: resolution below a millisecond, and time never goes backwards. */
  double tick = MPI_Wtick();
  CHECK(tick > 0.0 && tick < 1e-3, "Wtick %g", tick);
  double prev = MPI_Wtime();
  for (int i = 0; i < 100000; i++) {
    double now = MPI_Wtime();
    CHECK(now >= prev, "Wtime went backwards: %.9f after %.9f", now, prev);
    prev = now;
  }
  double t0 = MPI_Wtime();
  while (MPI_Wtime() - t0 < 0.01) {
  }
  CHECK(MPI_Wtime() - t0 >= 0.01 && MPI_Wtime() - t0 < 10.0, "Wtime does not advance sanely");

  /* World ranks are exactly 0..size-1, each once; self is a world of one. */
  int *all = malloc(sizeof(int) * (size_t)size);
  CHECK(all != NULL, "malloc");
  CHECK_MPI(MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; i++) CHECK(all[i] == i, "rank slot %d holds %d", i, all[i]);
  int other = -1;
  CHECK_MPI(MPI_Allreduce(&size, &other, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(other == size, "ranks disagree on world size");
  free(all);
  int ssize = -1, srank = -1;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &ssize));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &srank));
  CHECK(ssize == 1 && srank == 0, "COMM_SELF size %d rank %d", ssize, srank);

  /* Standard ABI introspection. */
  int amaj = -1, amin = -1;
  CHECK_MPI(MPI_Abi_get_version(&amaj, &amin));
  CHECK(amaj == 1 && amin == 0, "Abi_get_version %d.%d, expected 1.0", amaj, amin);
  MPI_Info abi = MPI_INFO_NULL;
  CHECK_MPI(MPI_Abi_get_info(&abi));
  CHECK(abi != MPI_INFO_NULL, "Abi_get_info returned MPI_INFO_NULL");
  int nkeys = 0;
  CHECK_MPI(MPI_Info_get_nkeys(abi, &nkeys));
  CHECK(nkeys > 0, "Abi_get_info has no keys");
  for (int i = 0; i < nkeys; i++) {
    char key[MPI_MAX_INFO_KEY + 1];
    CHECK_MPI(MPI_Info_get_nthkey(abi, i, key));
    CHECK(key[0] != '\0', "ABI info key %d is empty", i);
  }
  CHECK_MPI(MPI_Info_free(&abi));

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());

  /* After finalize both queries remain callable: initialized stays true, finalized is true. */
  flag = 0;
  if (MPI_Initialized(&flag) != MPI_SUCCESS || !flag) {
    fprintf(stderr, "FAIL: MPI_Initialized not true after MPI_Finalize\n");
    return 1;
  }
  flag = 0;
  if (MPI_Finalized(&flag) != MPI_SUCCESS || !flag) {
    fprintf(stderr, "FAIL: MPI_Finalized not true after MPI_Finalize\n");
    return 1;
  }
  return 0;
}
