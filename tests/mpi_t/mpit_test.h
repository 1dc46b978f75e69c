/* Helpers shared by the MPI_T tests: MPI_T calls return their codes directly (no error handler). */
#ifndef EMPI_MPIT_TEST_H
#define EMPI_MPIT_TEST_H

#include <string.h>

#include "empi_test.h"

/* Assert that an MPI_T call returns exactly `code` (MPI_SUCCESS or an MPI_T_ERR_*). */
#define CHECK_T(call, code)                                                                        \
  do {                                                                                             \
    int t_rc_ = (call);                                                                            \
    CHECK(t_rc_ == (code), "%s returned %d, expected %d (%s)", #call, t_rc_, (int)(code), #code);  \
  } while (0)

/* Index of the variable or category `name`, found through the given get_index call. */
static inline int mpit_cvar(const char *name) {
  int i = -1;
  CHECK_T(MPI_T_cvar_get_index(name, &i), MPI_SUCCESS);
  return i;
}

static inline int mpit_pvar(const char *name, int var_class) {
  int i = -1;
  CHECK_T(MPI_T_pvar_get_index(name, var_class, &i), MPI_SUCCESS);
  return i;
}

/* A handle in session s on the counter `name` (a process-wide one: no object to bind). */
static inline MPI_T_pvar_handle mpit_counter_handle(MPI_T_pvar_session s, const char *name) {
  MPI_T_pvar_handle h;
  int count;
  CHECK_T(MPI_T_pvar_handle_alloc(s, mpit_pvar(name, MPI_T_PVAR_CLASS_COUNTER), NULL, &h, &count), MPI_SUCCESS);
  return h;
}

/* The value of an unsigned long long pvar through handle h of session s. */
static inline unsigned long long mpit_pvar_value(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  unsigned long long v;
  CHECK_T(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS);
  return v;
}

/* A counting test's end: free its n pvar handles (in handles[]), session s and MPI_T, then pass
   and finalize MPI. */
static inline void mpit_counting_done(MPI_T_pvar_session *s, MPI_T_pvar_handle *handles, int n) {
  for (int i = 0; i < n; i++)
    CHECK_T(MPI_T_pvar_handle_free(*s, &handles[i]), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_session_free(s), MPI_SUCCESS);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
}

/* Through a temporary handle: read the cvar into read_buf, then write write_buf (either may be NULL). */
static inline void mpit_cvar_rw(const char *name, void *read_buf, const void *write_buf) {
  MPI_T_cvar_handle h;
  int count;
  CHECK_T(MPI_T_cvar_handle_alloc(mpit_cvar(name), NULL, &h, &count), MPI_SUCCESS);
  if (read_buf) CHECK_T(MPI_T_cvar_read(h, read_buf), MPI_SUCCESS);
  if (write_buf) CHECK_T(MPI_T_cvar_write(h, write_buf), MPI_SUCCESS);
  CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
  CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar handle not reset to NULL by free");
}

#endif
