/*
 * Shared helpers for the MPI-program tests in tests/mpi/.
 *
 * Tests are written only against the standard mpi.h so they run unchanged on EtherMPI and on a
 * peer implementation (tests/mpi/run_with_peer.sh). Every failure aborts the whole job through
 * MPI_Abort so a broken rank can never leave the others hanging until the ctest timeout.
 */
#ifndef EMPI_TEST_H_INCLUDED
#define EMPI_TEST_H_INCLUDED

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define EMPI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define EMPI_NORETURN __attribute__((noreturn))
#else
#define EMPI_PRINTF(a, b)
#define EMPI_NORETURN
#endif

/* Report "rank R: file:line: message" on stderr and abort the job. */
EMPI_NORETURN void empi_fail(const char *file, int line, const char *fmt, ...) EMPI_PRINTF(3, 4);

/* Report a non-MPI_SUCCESS return code (with its class and error string) and abort. */
EMPI_NORETURN void empi_fail_mpi(const char *file, int line, const char *call, int rc);

/* Assert cond; the remaining arguments are a printf format and its arguments. */
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) empi_fail(__FILE__, __LINE__, __VA_ARGS__);                                       \
  } while (0)

/* Assert that an MPI call returns MPI_SUCCESS. */
#define CHECK_MPI(call)                                                                            \
  do {                                                                                             \
    int empi_rc_ = (call);                                                                         \
    if (empi_rc_ != MPI_SUCCESS) empi_fail_mpi(__FILE__, __LINE__, #call, empi_rc_);               \
  } while (0)

/*
 * Assert that an MPI call (made under MPI_ERRORS_RETURN) fails with error class `cls`, and that
 * MPI_Error_string gives a non-empty message for the returned code.
 */
#define CHECK_ERR(call, cls) empi_check_err_class(__FILE__, __LINE__, #call, (call), (cls))
void empi_check_err_class(const char *file, int line, const char *call, int rc, int cls);

/* Rank and size in MPI_COMM_WORLD (valid after MPI_Init). */
int empi_rank(void);
int empi_size(void);

/*
 * Deterministic byte patterns. Byte i of stream `seed` is empi_pattern_byte(seed, i); using a
 * different seed per (sender, message) lets a receiver detect mixed-up or misplaced data, and the
 * index dependence catches shifted or partially copied buffers.
 */
uint8_t empi_pattern_byte(uint32_t seed, size_t index);
void empi_fill(void *buf, size_t len, uint32_t seed);
/* Returns the index of the first mismatching byte, or (size_t)-1 when the buffer matches. */
size_t empi_find_mismatch(const void *buf, size_t len, uint32_t seed);
/* Abort with the first mismatching byte (index, expected, got) if buf does not match. */
#define CHECK_PATTERN(buf, len, seed)                                                              \
  empi_check_pattern(__FILE__, __LINE__, (buf), (len), (seed))
void empi_check_pattern(const char *file, int line, const void *buf, size_t len, uint32_t seed);

/* Seed for a message identified by (source, destination, sequence number). */
uint32_t empi_seed(int src, int dst, int seq);

/* Barrier on MPI_COMM_WORLD, then rank 0 prints "PASS". Call it right before MPI_Finalize. */
#define TEST_PASS() empi_test_pass()
void empi_test_pass(void);

/* The three forms of a collective call: blocking, nonblocking (MPI_I...) and persistent (..._init).
   empi_form_finish completes what the call of that form started in *rq: waits for the nonblocking
   request; starts, waits for and frees the persistent one; nothing for the blocking form. */
enum { EMPI_FORM_BLOCKING, EMPI_FORM_NONBLOCKING, EMPI_FORM_PERSISTENT, EMPI_NFORMS };
void empi_form_finish(MPI_Request *rq, int form);

/* Sleep without spinning, so oversubscribed peers can run. */
void empi_sleep_ms(int ms);

/* Print from rank 0 only, e.g. to explain why a test is skipped at this size. */
void empi_note(const char *fmt, ...) EMPI_PRINTF(1, 2);

#endif /* EMPI_TEST_H_INCLUDED */
