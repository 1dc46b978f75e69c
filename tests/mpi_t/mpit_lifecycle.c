/*
 * The MPI_T life cycle: every MPI_T call fails with MPI_T_ERR_NOT_INITIALIZED outside
 * MPI_T_init_thread/MPI_T_finalize; the two nest (reference counted); the interface works before
 * MPI_Init, across it and after MPI_Finalize; the last MPI_T_finalize invalidates every handle.
 * MPI_T errors are returned, never raised: MPI_ERRORS_ARE_FATAL stays in place throughout.
 */
#include "mpit_test.h"

/* One call of every MPI_T function (other than init/finalize): all must say NOT_INITIALIZED. */
static void check_all_uninitialized(void) {
  int i = 0;
  char s[8];
  unsigned long long v;
  MPI_Datatype dt;
  MPI_Aint disp;
  MPI_Count c;
  MPI_Info info;
  MPI_T_enum en;
  MPI_T_source_order order;
  MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
  MPI_T_pvar_session ps = MPI_T_PVAR_SESSION_NULL;
  MPI_T_pvar_handle ph = MPI_T_PVAR_HANDLE_NULL;
  MPI_T_event_registration er = NULL;
  const int E = MPI_T_ERR_NOT_INITIALIZED;
  CHECK_T(MPI_T_cvar_get_num(&i), E);
  CHECK_T(MPI_T_cvar_get_info(0, s, &i, &i, &dt, &en, s, &i, &i, &i), E);
  CHECK_T(MPI_T_cvar_get_index("empi_eager_limit", &i), E);
  CHECK_T(MPI_T_cvar_handle_alloc(0, NULL, &ch, &i), E);
  CHECK_T(MPI_T_cvar_handle_free(&ch), E);
  CHECK_T(MPI_T_cvar_read(ch, &v), E);
  CHECK_T(MPI_T_cvar_write(ch, &v), E);
  CHECK_T(MPI_T_pvar_get_num(&i), E);
  CHECK_T(MPI_T_pvar_get_info(0, s, &i, &i, &i, &dt, &en, s, &i, &i, &i, &i, &i), E);
  CHECK_T(MPI_T_pvar_get_index("empi_pt2pt_sends", MPI_T_PVAR_CLASS_COUNTER, &i), E);
  CHECK_T(MPI_T_pvar_session_create(&ps), E);
  CHECK_T(MPI_T_pvar_session_free(&ps), E);
  CHECK_T(MPI_T_pvar_handle_alloc(ps, 0, NULL, &ph, &i), E);
  CHECK_T(MPI_T_pvar_handle_free(ps, &ph), E);
  CHECK_T(MPI_T_pvar_start(ps, ph), E);
  CHECK_T(MPI_T_pvar_stop(ps, ph), E);
  CHECK_T(MPI_T_pvar_read(ps, ph, &v), E);
  CHECK_T(MPI_T_pvar_write(ps, ph, &v), E);
  CHECK_T(MPI_T_pvar_reset(ps, ph), E);
  CHECK_T(MPI_T_pvar_readreset(ps, ph, &v), E);
  CHECK_T(MPI_T_category_get_num(&i), E);
  CHECK_T(MPI_T_category_get_info(0, s, &i, s, &i, &i, &i, &i), E);
  CHECK_T(MPI_T_category_get_index("empi", &i), E);
  CHECK_T(MPI_T_category_get_cvars(0, 1, &i), E);
  CHECK_T(MPI_T_category_get_pvars(0, 1, &i), E);
  CHECK_T(MPI_T_category_get_categories(0, 1, &i), E);
  CHECK_T(MPI_T_category_get_num_events(0, &i), E);
  CHECK_T(MPI_T_category_get_events(0, 1, &i), E);
  CHECK_T(MPI_T_category_changed(&i), E);
  CHECK_T(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &i, s, &i), E);
  CHECK_T(MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &i, s, &i), E);
  CHECK_T(MPI_T_event_get_num(&i), E);
  CHECK_T(MPI_T_event_get_info(0, s, &i, &i, &dt, &disp, &i, &en, &info, s, &i, &i), E);
  CHECK_T(MPI_T_event_get_index("x", &i), E);
  CHECK_T(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &er), E);
  CHECK_T(MPI_T_event_handle_free(er, NULL, NULL), E);
  CHECK_T(MPI_T_event_handle_set_info(er, MPI_INFO_NULL), E);
  CHECK_T(MPI_T_event_handle_get_info(er, &info), E);
  CHECK_T(MPI_T_event_register_callback(er, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL), E);
  CHECK_T(MPI_T_event_callback_set_info(er, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL), E);
  CHECK_T(MPI_T_event_callback_get_info(er, MPI_T_CB_REQUIRE_NONE, &info), E);
  CHECK_T(MPI_T_event_set_dropped_handler(er, NULL), E);
  CHECK_T(MPI_T_event_read(NULL, 0, &v), E);
  CHECK_T(MPI_T_event_copy(NULL, &v), E);
  CHECK_T(MPI_T_event_get_timestamp(NULL, &c), E);
  CHECK_T(MPI_T_event_get_source(NULL, &i), E);
  CHECK_T(MPI_T_source_get_num(&i), E);
  CHECK_T(MPI_T_source_get_info(0, s, &i, s, &i, &order, &c, &c, &info), E);
  CHECK_T(MPI_T_source_get_timestamp(0, &c), E);
  CHECK_T(MPI_T_finalize(), E);
}

static int read_state(void) {
  MPI_T_pvar_session s;
  MPI_T_pvar_handle h;
  int count, state;
  CHECK_T(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_handle_alloc(s, mpit_pvar("empi_mpi_state", MPI_T_PVAR_CLASS_STATE), NULL, &h, &count),
          MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_read(s, h, &state), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
  return state;
}

static int state_value(const char *item) {
  MPI_T_enum en;
  int num, value;
  CHECK_T(MPI_T_pvar_get_info(mpit_pvar("empi_mpi_state", MPI_T_PVAR_CLASS_STATE), NULL, NULL, NULL, NULL, NULL,
                              &en, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
  CHECK_T(MPI_T_enum_get_info(en, &num, NULL, NULL), MPI_SUCCESS);
  for (int i = 0; i < num; i++) {
    char name[32];
    int len = sizeof name;
    CHECK_T(MPI_T_enum_get_item(en, i, &value, name, &len), MPI_SUCCESS);
    if (!strcmp(name, item)) return value;
  }
  CHECK(0, "no state named %s", item);
  return -1;
}

int main(int argc, char **argv) {
  int provided, n;
  check_all_uninitialized();

  /* Nesting before MPI_Init. */
  CHECK_T(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  CHECK_T(MPI_T_cvar_get_num(&n), MPI_SUCCESS); /* still one level open */
  CHECK(read_state() == state_value("pre_init"), "state before MPI_Init");

  /* A handle from before the last MPI_T_finalize is dead after it, even once re-initialized. */
  MPI_T_cvar_handle ch;
  MPI_T_pvar_session ps;
  int count, v;
  CHECK_T(MPI_T_cvar_handle_alloc(mpit_cvar("empi_spin_count"), NULL, &ch, &count), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_session_create(&ps), MPI_SUCCESS);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  check_all_uninitialized();
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  CHECK_T(MPI_T_cvar_read(ch, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_session_free(&ps), MPI_T_ERR_INVALID_SESSION);

  /* Across MPI_Init: the level opened before it stays open. */
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK(read_state() == state_value("initialized"), "state after MPI_Init");
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  /* MPI_T errors are returned even though MPI_COMM_SELF's handler is MPI_ERRORS_ARE_FATAL. */
  CHECK_T(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_session_free(&ps), MPI_T_ERR_INVALID_SESSION);
  int rank = empi_rank(), size = empi_size();
  int token = rank;
  CHECK_MPI(MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size, 0,
                                 MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(token == (rank + size - 1) % size, "ring token %d", token);

  /* Counters keep counting into a handle that spans MPI_Finalize, and stay readable after it. */
  MPI_T_pvar_session s;
  MPI_T_pvar_handle sends;
  unsigned long long before, after;
  CHECK_T(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_handle_alloc(s, mpit_pvar("empi_pt2pt_sends", MPI_T_PVAR_CLASS_COUNTER), NULL, &sends, &count),
          MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_start(s, sends), MPI_SUCCESS);
  CHECK_MPI(MPI_Send(&token, 1, MPI_INT, rank, 7, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_T(MPI_T_pvar_read(s, sends, &before), MPI_SUCCESS);
  CHECK(before == 1, "one send to self counted %llu", before);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());

  CHECK(read_state() == state_value("finalized"), "state after MPI_Finalize");
  CHECK_T(MPI_T_pvar_read(s, sends, &after), MPI_SUCCESS);
  CHECK(after >= before, "counter went back from %llu to %llu", before, after);
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  check_all_uninitialized();
  /* And a fresh start after MPI_Finalize. */
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  CHECK_T(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
  CHECK(n > 0, "no cvars after MPI_Finalize");
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  return 0;
}
