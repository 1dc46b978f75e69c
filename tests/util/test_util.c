/* Implementation of the helpers declared in empi_test.h. */
#define _POSIX_C_SOURCE 200809L
#include "empi_test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Rank for messages; usable even when MPI is not (or no longer) initialized. */
static int safe_rank(void) {
  int init = 0, fini = 0, rank = -1;
  MPI_Initialized(&init);
  MPI_Finalized(&fini);
  if (init && !fini) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

static EMPI_NORETURN void abort_job(void) {
  int init = 0, fini = 0;
  fflush(stdout);
  fflush(stderr);
  MPI_Initialized(&init);
  MPI_Finalized(&fini);
  if (init && !fini) MPI_Abort(MPI_COMM_WORLD, 1);
  /* MPI_Abort must not return; exit anyway if it does, or if MPI is not usable. */
  exit(1);
}

void empi_fail(const char *file, int line, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "FAIL rank %d: %s:%d: %s\n", safe_rank(), file, line, msg);
  abort_job();
}

static void describe_code(int rc, int *cls, char *str, int *len) {
  *cls = -1;
  *len = 0;
  str[0] = '\0';
  if (MPI_Error_class(rc, cls) != MPI_SUCCESS) *cls = -1;
  if (MPI_Error_string(rc, str, len) != MPI_SUCCESS) {
    str[0] = '\0';
    *len = 0;
  }
}

void empi_fail_mpi(const char *file, int line, const char *call, int rc) {
  int cls, len;
  char str[MPI_MAX_ERROR_STRING];
  describe_code(rc, &cls, str, &len);
  empi_fail(file, line, "%s returned %d (class %d: %s)", call, rc, cls, str);
}

void empi_check_err_class(const char *file, int line, const char *call, int rc, int want) {
  int cls, len;
  char str[MPI_MAX_ERROR_STRING];
  if (rc == MPI_SUCCESS) empi_fail(file, line, "%s succeeded, expected error class %d", call, want);
  describe_code(rc, &cls, str, &len);
  if (cls != want)
    empi_fail(file, line, "%s: error class %d (%s), expected %d", call, cls, str, want);
  if (len <= 0 || str[0] == '\0' || (int)strlen(str) != len)
    empi_fail(file, line, "%s: MPI_Error_string gave empty/inconsistent text (len %d)", call, len);
}

int empi_rank(void) {
  int r;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &r));
  return r;
}

int empi_size(void) {
  int s;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &s));
  return s;
}

/* A cheap integer mix: neighbouring indices and seeds give unrelated bytes, no short period. */
uint8_t empi_pattern_byte(uint32_t seed, size_t index) {
  uint64_t x = (uint64_t)index * 0x9E3779B97F4A7C15ull + (uint64_t)seed * 0xC2B2AE3D27D4EB4Full;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return (uint8_t)x;
}

void empi_fill(void *buf, size_t len, uint32_t seed) {
  uint8_t *p = buf;
  for (size_t i = 0; i < len; i++) p[i] = empi_pattern_byte(seed, i);
}

size_t empi_find_mismatch(const void *buf, size_t len, uint32_t seed) {
  const uint8_t *p = buf;
  for (size_t i = 0; i < len; i++)
    if (p[i] != empi_pattern_byte(seed, i)) return i;
  return (size_t)-1;
}

void empi_check_pattern(const char *file, int line, const void *buf, size_t len, uint32_t seed) {
  size_t i = empi_find_mismatch(buf, len, seed);
  if (i != (size_t)-1)
    empi_fail(file, line, "data mismatch (seed %u, %zu bytes): first bad byte %zu: got 0x%02x, "
              "expected 0x%02x", (unsigned)seed, len, i, ((const uint8_t *)buf)[i],
              empi_pattern_byte(seed, i));
}

uint32_t empi_seed(int src, int dst, int seq) {
  return (uint32_t)src * 1000003u + (uint32_t)dst * 7919u + (uint32_t)seq * 104729u + 1u;
}

void empi_test_pass(void) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (empi_rank() == 0) {
    printf("PASS\n");
    fflush(stdout);
  }
}

void empi_note(const char *fmt, ...) {
  if (safe_rank() > 0) return;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

void empi_form_finish(MPI_Request *rq, int form) {
  if (form == EMPI_FORM_PERSISTENT) {
    CHECK_MPI(MPI_Start(rq));
    CHECK_MPI(MPI_Wait(rq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Request_free(rq));
  } else if (form == EMPI_FORM_NONBLOCKING) {
    CHECK_MPI(MPI_Wait(rq, MPI_STATUS_IGNORE));
  }
}

void empi_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}
