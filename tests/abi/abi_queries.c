/*
 * The ABI's run-time queries: MPI_Abi_get_version, MPI_Abi_get_info (widths of MPI_Aint, MPI_Count,
 * MPI_Offset), the Fortran registration calls (first set wins, later sets fail with MPI_ERR_ABI),
 * and MPI_Alloc_mem / MPI_Free_mem.
 */
#include "empi_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void expect_size_key(MPI_Info info, const char *key, size_t want) {
  char val[32];
  int buflen = (int)sizeof val, flag = 0;
  CHECK_MPI(MPI_Info_get_string(info, key, &buflen, val, &flag));
  CHECK(flag, "MPI_Abi_get_info has no key %s", key);
  CHECK((size_t)atoi(val) == want, "%s = %s, expected %zu", key, val, want);
}

static void check_abi_info(void) {
  int major = -1, minor = -1;
  CHECK_MPI(MPI_Abi_get_version(&major, &minor));
  CHECK(major == 1 && minor == 0, "ABI version %d.%d, expected 1.0", major, minor);
  MPI_Info info = MPI_INFO_NULL;
  CHECK_MPI(MPI_Abi_get_info(&info));
  CHECK(info != MPI_INFO_NULL, "MPI_Abi_get_info returned MPI_INFO_NULL");
  expect_size_key(info, "mpi_aint_size", sizeof(MPI_Aint));
  expect_size_key(info, "mpi_count_size", sizeof(MPI_Count));
  expect_size_key(info, "mpi_offset_size", sizeof(MPI_Offset));
  CHECK_MPI(MPI_Info_free(&info));
}

static void check_fortran_registration(void) {
  MPI_Info info = MPI_INFO_NULL;
  CHECK_MPI(MPI_Abi_get_fortran_info(&info));
  CHECK(info == MPI_INFO_NULL, "Fortran details known before anyone registered them");

  MPI_Info mine;
  CHECK_MPI(MPI_Info_create(&mine));
  CHECK_MPI(MPI_Info_set(mine, "mpi_integer_size", "4"));
  CHECK_MPI(MPI_Abi_set_fortran_info(mine));
  CHECK_ERR(MPI_Abi_set_fortran_info(mine), MPI_ERR_ABI);
  CHECK_MPI(MPI_Abi_get_fortran_info(&info));
  char val[8];
  int buflen = (int)sizeof val, flag = 0;
  CHECK_MPI(MPI_Info_get_string(info, "mpi_integer_size", &buflen, val, &flag));
  CHECK(flag && strcmp(val, "4") == 0, "registered mpi_integer_size not returned");
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Info_free(&mine));

  int32_t t = 0, f = 0, is_set = 1;
  CHECK_MPI(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
  CHECK(!is_set, "LOGICAL*4 values reported set before registration");
  int32_t want_t = -1, want_f = 0;
  CHECK_MPI(MPI_Abi_set_fortran_booleans(4, &want_t, &want_f));
  CHECK_ERR(MPI_Abi_set_fortran_booleans(4, &want_t, &want_f), MPI_ERR_ABI);
  CHECK_MPI(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
  CHECK(is_set && t == want_t && f == want_f, "LOGICAL*4 values not returned as set");
  CHECK_MPI(MPI_Abi_get_fortran_booleans(1, &t, &f, &is_set));
  CHECK(!is_set, "LOGICAL*1 values reported set though only size 4 was registered");
  CHECK_ERR(MPI_Abi_set_fortran_booleans(3, &want_t, &want_f), MPI_ERR_ARG);
}

static void check_alloc_mem(void) {
  for (MPI_Aint size = 0; size <= (1 << 20); size = size ? size * 16 : 1) {
    unsigned char *p = NULL;
    CHECK_MPI(MPI_Alloc_mem(size, MPI_INFO_NULL, &p));
    CHECK(p != NULL, "MPI_Alloc_mem(%ld) returned NULL", (long)size);
    memset(p, 0xa5, (size_t)size);
    CHECK_MPI(MPI_Free_mem(p));
  }
  void *p = NULL;
  CHECK_ERR(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_SIZE);
  /* mpi_minimum_memory_alignment: larger alignments are honoured; a value that is no power of two
     is ignored (the default alignment still holds) */
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  const char *aligns[] = {"4096", "65536", "8", "3000"};
  const uintptr_t want[] = {4096, 65536, 64, 64};
  for (int k = 0; k < 4; k++) {
    CHECK_MPI(MPI_Info_set(info, "mpi_minimum_memory_alignment", aligns[k]));
    for (int i = 0; i < 4; i++) {
      p = NULL;
      CHECK_MPI(MPI_Alloc_mem(100 + 1000 * i, info, &p));
      CHECK(((uintptr_t)p & (want[k] - 1)) == 0, "alignment %s: %p", aligns[k], p);
      CHECK_MPI(MPI_Free_mem(p));
    }
  }
  /* From EMPI_ALLOC_MEM_HUGE (1 MiB by default) a block starts on a 2 MiB page; a larger alignment
     asked for still wins. Every byte up to the size asked for is usable. */
  const MPI_Aint big = 3 * (1 << 20) + 12345;
  for (int k = 0; k < 2; k++) {
    unsigned char *b = NULL;
    uintptr_t align = k ? (uintptr_t)8 << 20 : (uintptr_t)2 << 20;
    if (k)
      CHECK_MPI(MPI_Info_set(info, "mpi_minimum_memory_alignment", "8388608"));
    CHECK_MPI(MPI_Alloc_mem(big, k ? info : MPI_INFO_NULL, &b));
    CHECK(((uintptr_t)b & (align - 1)) == 0, "MPI_Alloc_mem(%ld): %p is not aligned to %lu", (long)big, (void *)b,
          (unsigned long)align);
    for (MPI_Aint i = 0; i < big; i++)
      b[i] = (unsigned char)(i * 7);
    for (MPI_Aint i = 0; i < big; i++)
      CHECK(b[i] == (unsigned char)(i * 7), "MPI_Alloc_mem(%ld): byte %ld lost", (long)big, (long)i);
    CHECK_MPI(MPI_Free_mem(b));
  }
  CHECK_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  check_abi_info();
  check_fortran_registration();
  check_alloc_mem();
  empi_test_pass();
  MPI_Finalize();
  return 0;
}
