/*
 * Sessions: a session before MPI_Init, process sets and their info, a communicator from the
 * WORLD and SELF process-set groups, communication on it, MPI_Init and MPI_Finalize while
 * sessions come and go, a session that outlives MPI_Finalize, a session started after
 * MPI_Finalize, session error handlers, handle conversion and misuse.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

/* MPI 4.1 11.4.3: the supported memory allocation kinds, mpi and system at least, in the info of
   sessions, communicators and windows. */
static void check_memory_kinds(MPI_Info info, const char *what)
{
  char kinds[256];
  int len = (int)sizeof kinds - 1, flag = 0;
  CHECK_MPI(MPI_Info_get_string(info, "mpi_memory_alloc_kinds", &len, kinds, &flag));
  CHECK(flag, "%s: no mpi_memory_alloc_kinds", what);
  int mpi = 0, sys = 0;
  for (char *tok = strtok(kinds, ","); flag && tok; tok = strtok(NULL, ","))
    mpi |= !strcmp(tok, "mpi"), sys |= !strcmp(tok, "system");
  CHECK(mpi && sys, "%s: mpi_memory_alloc_kinds lacks mpi or system", what);
}

static int handler_calls, handler_code;
static void count_errors(MPI_Session *s, int *code, ...) {
  (void)s;
  handler_calls++;
  handler_code = *code;
}

/* A communicator over the WORLD process set, checked with an allreduce and a ring exchange. */
static void use_world_pset(MPI_Session s, const char *tag, int expect_size) {
  MPI_Group g;
  MPI_Comm c;
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  int gs = -1, gr = -1;
  CHECK_MPI(MPI_Group_size(g, &gs));
  CHECK_MPI(MPI_Group_rank(g, &gr));
  CHECK(gs == expect_size && gr >= 0, "WORLD group size %d rank %d", gs, gr);
  CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  int n = -1, r = -1;
  CHECK_MPI(MPI_Comm_size(c, &n));
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK(n == gs && r == gr, "communicator size %d rank %d", n, r);
  /* the predefined attributes hold their values without MPI_Init too */
  int *ub = NULL, *host = NULL, *io = NULL, f1 = 0, f2 = 0, f3 = 0;
  CHECK_MPI(MPI_Comm_get_attr(c, MPI_TAG_UB, &ub, &f1));
  CHECK_MPI(MPI_Comm_get_attr(c, MPI_HOST, &host, &f2));
  CHECK_MPI(MPI_Comm_get_attr(c, MPI_IO, &io, &f3));
  CHECK(f1 && *ub >= 32767, "MPI_TAG_UB flag %d value %d", f1, f1 ? *ub : 0);
  CHECK(f2 && *host == MPI_PROC_NULL, "MPI_HOST flag %d value %d", f2, f2 ? *host : 0);
  CHECK(f3 && *io == MPI_ANY_SOURCE, "MPI_IO flag %d value %d", f3, f3 ? *io : 0);
  MPI_Info ci;
  CHECK_MPI(MPI_Comm_get_info(c, &ci));
  check_memory_kinds(ci, "communicator from a session group");
  CHECK_MPI(MPI_Info_free(&ci));
  long in = r + 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, c));
  CHECK(sum == (long)n * (n + 1) / 2, "allreduce %ld", sum);
  int right = (r + 1) % n, left = (r + n - 1) % n, out = 1000 + r, got = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, right, 4, &got, 1, MPI_INT, left, 4, c, MPI_STATUS_IGNORE));
  CHECK(got == 1000 + left, "ring got %d", got);
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_get_errhandler(c, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "the communicator's error handler is not the one given");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Group_free(&g));
}

static void check_psets(MPI_Session s, int world_size) {
  int n = -1, found_world = 0, found_self = 0;
  CHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
  CHECK(n >= 2, "%d process sets", n);
  for (int i = 0; i < n; i++) {
    int len = 0;
    char name[MPI_MAX_PSET_NAME_LEN];
    CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
    CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d length %d", i, len);
    int full = len;
    CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
    CHECK(len == full && (int)strlen(name) == full - 1, "pset %d name '%s' length %d", i, name, len);
    char small[4];
    len = 4;
    CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, small));
    CHECK(strlen(small) == 3 && strncmp(small, name, 3) == 0 && len == full, "truncated name '%s'", small);
    MPI_Info info;
    char value[32];
    int flag = 0;
    CHECK_MPI(MPI_Session_get_pset_info(s, name, &info));
    int vlen = (int)sizeof value;
    CHECK_MPI(MPI_Info_get_string(info, "mpi_size", &vlen, value, &flag));
    CHECK(flag, "pset %s has no mpi_size", name);
    if (strcmp(name, "mpi://WORLD") == 0) {
      found_world = 1;
      CHECK(atoi(value) == world_size, "WORLD mpi_size %s", value);
    } else if (strcmp(name, "mpi://SELF") == 0) {
      found_self = 1;
      CHECK(atoi(value) == 1, "SELF mpi_size %s", value);
    }
    CHECK_MPI(MPI_Info_free(&info));
  }
  CHECK(found_world && found_self, "WORLD %d SELF %d", found_world, found_self);

  MPI_Group self;
  MPI_Comm c;
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://SELF", &self));
  CHECK_MPI(MPI_Comm_create_from_group(self, "org.ethermpi.test.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  int cs = -1;
  CHECK_MPI(MPI_Comm_size(c, &cs));
  CHECK(cs == 1, "SELF communicator size %d", cs);
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Group_free(&self));
}

static int comm_handler_calls;

static void count_comm_errors(MPI_Comm *c, int *code, ...) {
  (void)c, (void)code;
  comm_handler_calls++;
}

static void check_errors(MPI_Session s) {
  int len = 0, n = 0;
  MPI_Group g;
  CHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
  CHECK_ERR(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &len, NULL), MPI_ERR_ARG);
  CHECK_ERR(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG);
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Session_create_errhandler(count_errors, &eh));
  CHECK_MPI(MPI_Session_set_errhandler(s, eh));
  handler_calls = 0;
  CHECK_MPI(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
  CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER, "handler called %d times, code %d", handler_calls,
        handler_code);
  MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, NULL);
  CHECK(handler_calls == 2, "a session error did not reach the session's handler");
  int cls = -1;
  MPI_Error_class(handler_code, &cls);
  CHECK(cls == MPI_ERR_ARG, "handler got class %d", cls);
  MPI_Errhandler got;
  CHECK_MPI(MPI_Session_get_errhandler(s, &got));
  CHECK(got == eh, "get_errhandler gave another handler");
  CHECK_MPI(MPI_Errhandler_free(&got));
  CHECK_MPI(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_free(&eh));

  /* The errhandler argument of the *_from_group(s) calls is also the one their own errors invoke
     (MPI 4.1 7.4.2); they went to MPI_COMM_SELF's. */
  MPI_Errhandler ceh;
  MPI_Comm c = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_create_errhandler(count_comm_errors, &ceh));
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
  comm_handler_calls = 0;
  CHECK_ERR(MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, ceh, &c), MPI_ERR_ARG);
  CHECK_ERR(MPI_Intercomm_create_from_groups(g, 5, MPI_GROUP_EMPTY, 0, "org.ethermpi.test.bad", MPI_INFO_NULL,
                                             ceh, &c), MPI_ERR_RANK);
  CHECK(comm_handler_calls == 2, "%d of 2 errors reached the errhandler argument", comm_handler_calls);
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Errhandler_free(&ceh));
}

int main(int argc, char **argv) {
  int world = -1;
  /* 1. A session before MPI_Init, asking for MPI_THREAD_MULTIPLE. */
  MPI_Info hints;
  MPI_Session a, b, c;
  CHECK_MPI(MPI_Info_create(&hints));
  CHECK_MPI(MPI_Info_set(hints, "thread_level", "MPI_THREAD_MULTIPLE"));
  CHECK_MPI(MPI_Session_init(hints, MPI_ERRORS_RETURN, &a));
  CHECK_MPI(MPI_Info_free(&hints));
  int flag = 1;
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(!flag, "a session initialized the world model");
  MPI_Info used;
  char level[64];
  int vlen = (int)sizeof level;
  CHECK_MPI(MPI_Session_get_info(a, &used));
  CHECK_MPI(MPI_Info_get_string(used, "thread_level", &vlen, level, &flag));
  CHECK(flag && strcmp(level, "MPI_THREAD_MULTIPLE") == 0, "thread_level '%s'", flag ? level : "(none)");
  check_memory_kinds(used, "session");
  CHECK_MPI(MPI_Info_free(&used));
  CHECK(MPI_Session_fromint(MPI_Session_toint(a)) == a, "Session_toint/fromint round trip");
  MPI_Info info;
  CHECK_MPI(MPI_Session_get_pset_info(a, "mpi://WORLD", &info));
  char value[32];
  vlen = (int)sizeof value;
  CHECK_MPI(MPI_Info_get_string(info, "mpi_size", &vlen, value, &flag));
  CHECK_MPI(MPI_Info_free(&info));
  world = atoi(value);
  CHECK(world >= 1, "world size %d", world);
  check_psets(a, world);
  use_world_pset(a, "org.ethermpi.test.before-init", world);
  check_errors(a);

  /* 2. The world model joins; the session keeps working beside it and ends first. */
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK(empi_size() == world, "MPI_COMM_WORLD size %d, WORLD pset %d", empi_size(), world);
  use_world_pset(a, "org.ethermpi.test.with-world", world);
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &b));
  CHECK_MPI(MPI_Session_finalize(&a));
  CHECK(a == MPI_SESSION_NULL, "finalize did not null the handle");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_ERR(MPI_Session_get_num_psets(a, MPI_INFO_NULL, &flag), MPI_ERR_SESSION);
  int sum = 0, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == world, "world allreduce %d", sum);
  TEST_PASS();

  /* 3. Session b outlives MPI_Finalize. */
  CHECK_MPI(MPI_Finalize());
  use_world_pset(b, "org.ethermpi.test.after-finalize", world);
  CHECK_MPI(MPI_Session_finalize(&b));

  /* 4. Everything was finalized: a new session brings MPI back up. */
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  use_world_pset(c, "org.ethermpi.test.restart", world);
  CHECK_MPI(MPI_Session_finalize(&c));
  return 0;
}
