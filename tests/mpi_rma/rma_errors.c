/*
 * Error classes of one-sided calls, and the window object API (names, info, attributes, error
 * handlers, groups, Fortran handles). Every failing call runs under MPI_ERRORS_RETURN.
 */
#include <string.h>

#include <stdint.h>

#include "empi_test.h"

static int handler_calls, handler_code;

static void win_handler(MPI_Win *win, int *code, ...)
{
  (void)win;
  handler_calls++;
  handler_code = *code;
}

static int deleted;

static int delete_fn(MPI_Win win, int keyval, void *val, void *extra)
{
  (void)win;
  (void)keyval;
  (void)extra;
  deleted += *(int *)val;
  return MPI_SUCCESS;
}

static void errors(MPI_Win win, int *mem, int n)
{
  int rank = empi_rank(), size = empi_size(), next = (rank + 1) % size, x = 1;
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  /* no epoch open */
  CHECK_ERR(MPI_Put(&x, 1, MPI_INT, next, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Win_unlock(next, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Win_flush(next, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);

  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
  /* displacement outside the window, negative, and a count running past its end */
  CHECK_ERR(MPI_Put(&x, 1, MPI_INT, next, n, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  CHECK_ERR(MPI_Put(&x, 1, MPI_INT, next, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  int two[2] = {0, 0};
  CHECK_ERR(MPI_Get(two, 2, MPI_INT, next, n - 1, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
  CHECK_ERR(MPI_Accumulate(&x, 1, MPI_INT, next, n, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_RANGE);
  /* a displacement whose byte offset fits but whose end wraps past the largest address */
  CHECK_ERR(MPI_Put(&x, 1, MPI_INT, next, (MPI_Aint)(INTPTR_MAX / sizeof(int)), 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  /* a contiguous type whose data starts 2 ints past its address: at displacement n - 2 its bytes
     lie just past the window (the straight-through put and get must see that too) */
  {
    int blen = 2, pair[4] = {0, 0, 0, 0};
    MPI_Aint at = 2 * sizeof(int);
    MPI_Datatype shifted, in = MPI_INT;
    CHECK_MPI(MPI_Type_create_struct(1, &blen, &at, &in, &shifted));
    CHECK_MPI(MPI_Type_commit(&shifted));
    CHECK_ERR(MPI_Put(pair, 1, shifted, next, n - 2, 1, shifted, win), MPI_ERR_RMA_RANGE);
    CHECK_ERR(MPI_Get(pair, 1, shifted, next, n - 2, 1, shifted, win), MPI_ERR_RMA_RANGE);
    CHECK_MPI(MPI_Put(pair, 1, shifted, next, n - 4, 1, shifted, win)); /* the last two ints: inside */
    CHECK_MPI(MPI_Type_free(&shifted));
  }
  /* a negative extent lays elements out downwards: 3 of them from displacement 1 reach below the
     window's start, from displacement 2 they do not */
  {
    MPI_Datatype down;
    int three[3] = {0, 0, 0};
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, -(MPI_Aint)sizeof(int), &down));
    CHECK_MPI(MPI_Type_commit(&down));
    CHECK_ERR(MPI_Put(three, 3, MPI_INT, next, 1, 3, down, win), MPI_ERR_RMA_RANGE);
    CHECK_ERR(MPI_Get(three, 3, MPI_INT, next, 1, 3, down, win), MPI_ERR_RMA_RANGE);
    CHECK_MPI(MPI_Get(three, 3, MPI_INT, next, 2, 3, down, win));
    CHECK_MPI(MPI_Type_free(&down));
  }
  /* bad arguments */
  CHECK_ERR(MPI_Put(&x, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
  CHECK_ERR(MPI_Put(&x, 1, MPI_DATATYPE_NULL, next, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
  CHECK_ERR(MPI_Accumulate(&x, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
  double d = 1;
  CHECK_ERR(MPI_Accumulate(&d, 1, MPI_DOUBLE, next, 0, 2, MPI_INT, MPI_SUM, win), MPI_ERR_TYPE);
  CHECK_ERR(MPI_Compare_and_swap(&d, &d, &d, MPI_DOUBLE, next, 0, win), MPI_ERR_TYPE);
  /* a second lock on the same target, and conflicting epochs */
  CHECK_ERR(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Win_lock(42, next, 0, win), MPI_ERR_LOCKTYPE);
  /* MPI_PROC_NULL targets are no-ops */
  CHECK_MPI(MPI_Put(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(next, win));

  /* an operation between two fences without NOSUCCEED is fine; after NOSUCCEED it is not */
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  CHECK_MPI(MPI_Put(&x, 1, MPI_INT, next, 0, 1, MPI_INT, win));
  CHECK_ERR(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win), MPI_ERR_RMA_SYNC);
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK_ERR(MPI_Put(&x, 1, MPI_INT, next, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
  CHECK(mem[0] == 1, "the fenced put did not land: %d", mem[0]);

  /* a user handler sees the error */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Win_create_errhandler(win_handler, &eh));
  CHECK_MPI(MPI_Win_set_errhandler(win, eh));
  MPI_Errhandler got;
  CHECK_MPI(MPI_Win_get_errhandler(win, &got));
  CHECK(got == eh, "MPI_Win_get_errhandler gave another handler");
  CHECK_MPI(MPI_Errhandler_free(&got));
  int rc = MPI_Put(&x, 1, MPI_INT, next, 0, 1, MPI_INT, win);
  int cls;
  MPI_Error_class(rc, &cls);
  CHECK(handler_calls == 1 && cls == MPI_ERR_RMA_SYNC, "handler calls %d, class %d", handler_calls, cls);
  CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler: %d calls, code %d", handler_calls,
        handler_code);
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
}

/* Calls the standard restricts beyond argument validity (MPI 4.1 12.2, 12.3.4, 12.3.5). */
static void semantics(MPI_Win win, int *mem)
{
  int rank = empi_rank(), size = empi_size(), next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  int x = 5, res[2] = {-1, -1};
  MPI_Request req = MPI_REQUEST_NULL;
  /* request-based operations belong to passive-target epochs only */
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_ERR(MPI_Rput(&x, 1, MPI_INT, next, 0, 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Rget(res, 1, MPI_INT, next, 0, 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Raccumulate(&x, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_SUM, win, &req), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Rget_accumulate(&x, 1, MPI_INT, res, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_SUM, win, &req),
            MPI_ERR_RMA_SYNC);
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  MPI_Group world, gnext, gprev;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_MPI(MPI_Group_incl(world, 1, &next, &gnext));
  CHECK_MPI(MPI_Group_incl(world, 1, &prev, &gprev));
  CHECK_MPI(MPI_Win_post(gprev, 0, win));
  CHECK_MPI(MPI_Win_start(gnext, 0, win));
  CHECK_ERR(MPI_Rput(&x, 1, MPI_INT, next, 0, 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
  CHECK_ERR(MPI_Rget(res, 1, MPI_INT, next, 0, 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
  CHECK_MPI(MPI_Win_complete(win));
  CHECK_MPI(MPI_Win_wait(win));
  CHECK(req == MPI_REQUEST_NULL, "a refused request-based call returned a request");

  /* MPI_NO_OP is not an accumulate operation; get-accumulate ignores the origin's count and type */
  int two[2] = {7, 8}, got[2] = {-1, -1}, got2[2] = {-1, -1};
  MPI_Datatype uncommitted, one;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  CHECK_MPI(MPI_Type_contiguous(1, MPI_INT, &one));
  CHECK_MPI(MPI_Type_commit(&one));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
  CHECK_ERR(MPI_Accumulate(&x, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_NO_OP, win), MPI_ERR_OP);
  CHECK_ERR(MPI_Raccumulate(&x, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_NO_OP, win, &req), MPI_ERR_OP);
  CHECK_MPI(MPI_Put(two, 2, MPI_INT, next, 2, 2, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush(next, win));
  CHECK_MPI(MPI_Get_accumulate(NULL, -1, MPI_INT, got, 2, MPI_INT, next, 2, 2, MPI_INT, MPI_NO_OP, win));
  CHECK_MPI(MPI_Rget_accumulate(NULL, 1, uncommitted, got2, 2, MPI_INT, next, 2, 2, MPI_INT, MPI_NO_OP, win, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_flush(next, win));
  CHECK(got[0] == 7 && got[1] == 8 && got2[0] == 7 && got2[1] == 8, "MPI_NO_OP fetched %d %d / %d %d", got[0],
        got[1], got2[0], got2[1]);
  /* fetch-and-op takes a predefined datatype only */
  CHECK_ERR(MPI_Fetch_and_op(&x, res, one, next, 0, MPI_SUM, win), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Win_unlock(next, win));
  CHECK(res[0] == -1 && res[1] == -1, "a refused fetch-and-op wrote its result buffer");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(mem[2] == 7 && mem[3] == 8, "window holds %d %d, want 7 8", mem[2], mem[3]);
  MPI_Type_free(&uncommitted);
  MPI_Type_free(&one);
  MPI_Group_free(&gnext);
  MPI_Group_free(&gprev);
  MPI_Group_free(&world);
}

/* Windows are made over intracommunicators (MPI 4.1 12.2). */
static void intercomm_window(void)
{
  int rank = empi_rank();
  MPI_Comm half, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter));
  int buf[2];
  void *base = NULL;
  MPI_Win w = MPI_WIN_NULL;
  CHECK_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
  CHECK_ERR(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, inter, &w), MPI_ERR_COMM);
  CHECK_ERR(MPI_Win_allocate(8, 1, MPI_INFO_NULL, inter, &base, &w), MPI_ERR_COMM);
  CHECK_ERR(MPI_Win_allocate_shared(8, 1, MPI_INFO_NULL, inter, &base, &w), MPI_ERR_COMM);
  CHECK_ERR(MPI_Win_create_dynamic(MPI_INFO_NULL, inter, &w), MPI_ERR_COMM);
  CHECK(w == MPI_WIN_NULL, "a refused window creation returned a window");
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
}

static void object_api(MPI_Win win)
{
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(len == 0 && name[0] == '\0', "a new window has name '%s'", name);
  CHECK_MPI(MPI_Win_set_name(win, "my window"));
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(strcmp(name, "my window") == 0 && len == 9, "name '%s'", name);

  MPI_Group g, wg;
  int cmp;
  CHECK_MPI(MPI_Win_get_group(win, &g));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_compare(g, wg, &cmp));
  CHECK(cmp == MPI_IDENT, "window group differs from the communicator's");
  MPI_Group_free(&g);
  MPI_Group_free(&wg);

  int keyval, val = 5, *out, flag;
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_fn, &keyval, NULL));
  CHECK_MPI(MPI_Win_set_attr(win, keyval, &val));
  CHECK_MPI(MPI_Win_get_attr(win, keyval, &out, &flag));
  CHECK(flag && out == &val, "attribute not found");
  CHECK_MPI(MPI_Win_delete_attr(win, keyval));
  CHECK(deleted == 5, "delete callback not run");
  CHECK_MPI(MPI_Win_get_attr(win, keyval, &out, &flag));
  CHECK(!flag, "deleted attribute still there");
  CHECK_MPI(MPI_Win_set_attr(win, keyval, &val)); /* deleted again by MPI_Win_free */
  CHECK_MPI(MPI_Win_free_keyval(&keyval));
  CHECK(keyval == MPI_KEYVAL_INVALID, "keyval not reset");
  CHECK_ERR(MPI_Win_set_attr(win, MPI_WIN_BASE, &val), MPI_ERR_KEYVAL);

  MPI_Info info;
  char v[MPI_MAX_INFO_VAL + 1];
  CHECK_MPI(MPI_Win_get_info(win, &info));
  CHECK_MPI(MPI_Info_get_string(info, "no_locks", &(int){MPI_MAX_INFO_VAL + 1}, v, &flag));
  CHECK(flag && strcmp(v, "false") == 0, "no_locks is '%s'", v);
  CHECK_MPI(MPI_Info_get_string(info, "mpi_memory_alloc_kinds", &(int){MPI_MAX_INFO_VAL + 1}, v, &flag));
  CHECK(flag && strstr(v, "mpi") && strstr(v, "system"), "mpi_memory_alloc_kinds is '%s'", flag ? v : "(none)");
  MPI_Info_free(&info);
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "accumulate_ordering", "none"));
  CHECK_MPI(MPI_Win_set_info(win, info));
  MPI_Info_free(&info);
  CHECK_MPI(MPI_Win_get_info(win, &info));
  CHECK_MPI(MPI_Info_get_string(info, "accumulate_ordering", &(int){MPI_MAX_INFO_VAL + 1}, v, &flag));
  CHECK(flag && strcmp(v, "none") == 0, "accumulate_ordering is '%s'", v);
  MPI_Info_free(&info);

  CHECK(MPI_Win_fromint(MPI_Win_toint(win)) == win, "toint/fromint do not round-trip");
  CHECK(MPI_Win_fromint(MPI_Win_toint(MPI_WIN_NULL)) == MPI_WIN_NULL, "MPI_WIN_NULL does not round-trip");
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  enum { N = 8 };
  int *mem;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  for (int i = 0; i < N; i++)
    mem[i] = 0;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  errors(win, mem, N);
  semantics(win, mem);
  object_api(win);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(deleted == 10, "MPI_Win_free did not delete the attribute");
  CHECK_ERR(MPI_Win_free(&win), MPI_ERR_WIN);
  CHECK_ERR(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
  CHECK_ERR(MPI_Win_allocate(-1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win), MPI_ERR_SIZE);
  CHECK_ERR(MPI_Win_allocate(8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win), MPI_ERR_DISP);
  if (empi_size() > 1)
    intercomm_window();
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
