/*
 * Every one-sided operation under every synchronization mode, with contiguous and derived
 * datatypes, on windows of each flavor that has memory at creation (create, allocate, shared).
 *
 * Round: rank r works on target t = (r + 1) % n, in the slot r of t's window (so no two origins
 * touch the same bytes). The target's window starts with known values; after the epoch every
 * rank checks what the standard says must be there: the window of its own memory (slot of its
 * origin) and its origin-side buffers (gets, fetched values).
 *
 * Slot layout: 2*N ints. "contig" operations use the first N ints; "derived" ones use every other
 * int (a vector on the target) with an indexed type on the origin; "shifted" ones ints 1..N through
 * one contiguous struct type whose data starts one int after its buffer address, on both sides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

#define N 16
#define SLOT (2 * N)

enum { OP_PUT, OP_GET, OP_ACC, OP_GET_ACC, OP_FOP, OP_CAS, OP_RPUT, OP_RGET, OP_RACC, OP_RGET_ACC, NOPS };
enum { SYNC_FENCE, SYNC_PSCW, SYNC_LOCK, SYNC_LOCK_ALL, SYNC_LOCK_SHARED_FLUSH_LOCAL, NSYNCS };
enum { FL_CREATE, FL_ALLOCATE, FL_SHARED, NFLAVORS };

static const char *op_names[] = {"put", "get", "acc", "get_acc", "fetch_and_op", "cas",
                                 "rput", "rget", "racc", "rget_acc"};
static const char *sync_names[] = {"fence", "pscw", "lock", "lock_all", "lock_shared+flush_local"};
static const char *flavor_names[] = {"create", "allocate", "shared"};

static int rank, size;

static int base_val(int owner, int slot, int i)
{
  return owner * 100000 + slot * 1000 + i;
}

static int origin_val(int origin, int i, int round)
{
  return 7 * origin + 3 * i + round * 11 + 1;
}

/* Index (in ints) of element k of a slot for the datatype mode. */
static int elem_index(int derived, int k)
{
  return derived ? 2 * k : k;
}

typedef struct {
  MPI_Win win;
  int *mem;
  MPI_Group left, right; /* origin of my memory, target of my operations */
  MPI_Datatype tvec, oidx; /* derived: target vector, origin indexed */
  MPI_Datatype shifted;    /* N ints at displacement sizeof(int) */
} ctx_t;

static void open_epoch(ctx_t *c, int sync, int target)
{
  switch (sync) {
  case SYNC_FENCE: CHECK_MPI(MPI_Win_fence(0, c->win)); break;
  case SYNC_PSCW:
    CHECK_MPI(MPI_Win_post(c->left, 0, c->win));
    CHECK_MPI(MPI_Win_start(c->right, 0, c->win));
    break;
  case SYNC_LOCK: CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, c->win)); break;
  case SYNC_LOCK_ALL: CHECK_MPI(MPI_Win_lock_all(0, c->win)); break;
  default: CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, c->win)); break;
  }
}

static void close_epoch(ctx_t *c, int sync, int target)
{
  switch (sync) {
  case SYNC_FENCE: CHECK_MPI(MPI_Win_fence(0, c->win)); break;
  case SYNC_PSCW:
    CHECK_MPI(MPI_Win_complete(c->win));
    CHECK_MPI(MPI_Win_wait(c->win));
    break;
  case SYNC_LOCK: CHECK_MPI(MPI_Win_unlock(target, c->win)); break;
  case SYNC_LOCK_ALL:
    CHECK_MPI(MPI_Win_flush_all(c->win));
    CHECK_MPI(MPI_Win_unlock_all(c->win));
    break;
  default:
    CHECK_MPI(MPI_Win_flush_local(target, c->win));
    CHECK_MPI(MPI_Win_flush(target, c->win));
    CHECK_MPI(MPI_Win_unlock(target, c->win));
    break;
  }
}

/* Reset my window to base values (under my own exclusive lock, as the standard asks). */
static void reset_window(ctx_t *c)
{
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, c->win));
  for (int s = 0; s < size; s++)
    for (int i = 0; i < SLOT; i++)
      c->mem[s * SLOT + i] = base_val(rank, s, i);
  CHECK_MPI(MPI_Win_unlock(rank, c->win));
}

enum { DT_CONTIG, DT_DERIVED, DT_SHIFTED, NDTMODES };
static const char *dt_names[] = {"contig", "derived", "shifted"};

static void run_round(ctx_t *c, int op, int sync, int dtmode, int round, const char *what)
{
  int target = (rank + 1) % size, origin = (rank - 1 + size) % size;
  int obuf[SLOT], rbuf[SLOT], cmp[SLOT];
  int count = (op == OP_FOP || op == OP_CAS) ? 1 : N;
  int use_derived = dtmode == DT_DERIVED && count > 1;
  int shift = dtmode == DT_SHIFTED && count > 1;
  for (int i = 0; i < SLOT; i++) {
    obuf[i] = origin_val(rank, i, round);
    rbuf[i] = -1;
    cmp[i] = base_val(target, rank, i);
  }
  reset_window(c);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  MPI_Aint disp = (MPI_Aint)rank * SLOT; /* disp_unit is sizeof(int) */
  MPI_Datatype tdt = use_derived ? c->tvec : shift ? c->shifted : MPI_INT;
  MPI_Datatype odt = use_derived ? c->oidx : shift ? c->shifted : MPI_INT;
  int tcount = use_derived || shift ? 1 : count, ocount = tcount;
  MPI_Request req = MPI_REQUEST_NULL;

  open_epoch(c, sync, target);
  switch (op) {
  case OP_PUT: CHECK_MPI(MPI_Put(obuf, ocount, odt, target, disp, tcount, tdt, c->win)); break;
  case OP_GET: CHECK_MPI(MPI_Get(rbuf, ocount, odt, target, disp, tcount, tdt, c->win)); break;
  case OP_ACC: CHECK_MPI(MPI_Accumulate(obuf, ocount, odt, target, disp, tcount, tdt, MPI_SUM, c->win)); break;
  case OP_GET_ACC:
    CHECK_MPI(MPI_Get_accumulate(obuf, ocount, odt, rbuf, ocount, odt, target, disp, tcount, tdt, MPI_SUM, c->win));
    break;
  case OP_FOP: CHECK_MPI(MPI_Fetch_and_op(obuf, rbuf, MPI_INT, target, disp, MPI_SUM, c->win)); break;
  case OP_CAS: CHECK_MPI(MPI_Compare_and_swap(obuf, cmp, rbuf, MPI_INT, target, disp, c->win)); break;
  case OP_RPUT: CHECK_MPI(MPI_Rput(obuf, ocount, odt, target, disp, tcount, tdt, c->win, &req)); break;
  case OP_RGET: CHECK_MPI(MPI_Rget(rbuf, ocount, odt, target, disp, tcount, tdt, c->win, &req)); break;
  case OP_RACC:
    CHECK_MPI(MPI_Raccumulate(obuf, ocount, odt, target, disp, tcount, tdt, MPI_SUM, c->win, &req));
    break;
  default:
    CHECK_MPI(MPI_Rget_accumulate(obuf, ocount, odt, rbuf, ocount, odt, target, disp, tcount, tdt, MPI_SUM,
                                  c->win, &req));
    break;
  }
  if (req != MPI_REQUEST_NULL) {
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "%s: request not freed by MPI_Wait", what);
  }
  close_epoch(c, sync, target);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Origin side: fetched values are the target's base values. */
  int fetches = op == OP_GET || op == OP_RGET || op == OP_GET_ACC || op == OP_RGET_ACC || op == OP_FOP ||
                op == OP_CAS;
  for (int k = 0; fetches && k < count; k++) {
    int i = use_derived ? elem_index(1, k) : k + shift;
    /* the origin indexed type picks the same positions as the target vector */
    CHECK(rbuf[i] == base_val(target, rank, i), "%s: fetched [%d] = %d, want %d", what, i, rbuf[i],
          base_val(target, rank, i));
  }
  /* Target side: my slot `origin` after the origin's operation. */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, c->win));
  for (int i = 0; i < SLOT; i++) {
    int want = base_val(rank, origin, i);
    /* the origin's element that lands at i sits at i in its buffer too (same offsets both sides) */
    int touched = use_derived ? i < 2 * count && i % 2 == 0 : i >= shift && i < count + shift;
    if (touched) {
      int ov = origin_val(origin, i, round);
      switch (op) {
      case OP_PUT: case OP_RPUT: want = ov; break;
      case OP_ACC: case OP_RACC: case OP_GET_ACC: case OP_RGET_ACC: case OP_FOP: want += ov; break;
      case OP_CAS: want = ov; break;
      default: break;
      }
    }
    CHECK(c->mem[origin * SLOT + i] == want, "%s: window[%d] = %d, want %d", what, i, c->mem[origin * SLOT + i],
          want);
  }
  /* Nobody else's slot changed. */
  for (int s = 0; s < size; s++)
    for (int i = 0; s != origin && i < SLOT; i++)
      CHECK(c->mem[s * SLOT + i] == base_val(rank, s, i), "%s: slot %d [%d] changed", what, s, i);
  CHECK_MPI(MPI_Win_unlock(rank, c->win));
}

static void make_window(ctx_t *c, int flavor)
{
  MPI_Aint bytes = (MPI_Aint)size * SLOT * (MPI_Aint)sizeof(int);
  c->mem = NULL;
  switch (flavor) {
  case FL_CREATE:
    c->mem = malloc((size_t)bytes);
    CHECK(c->mem != NULL, "malloc");
    CHECK_MPI(MPI_Win_create(c->mem, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &c->win));
    break;
  case FL_ALLOCATE:
    CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &c->mem, &c->win));
    break;
  default:
    CHECK_MPI(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &c->mem, &c->win));
    break;
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  rank = empi_rank();
  size = empi_size();
  ctx_t c;
  MPI_Group world;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int left = (rank - 1 + size) % size, right = (rank + 1) % size;
  CHECK_MPI(MPI_Group_incl(world, 1, &left, &c.left));
  CHECK_MPI(MPI_Group_incl(world, 1, &right, &c.right));
  CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &c.tvec));
  CHECK_MPI(MPI_Type_commit(&c.tvec));
  int blens[N], displs[N];
  for (int k = 0; k < N; k++) {
    blens[k] = 1;
    displs[k] = 2 * k;
  }
  CHECK_MPI(MPI_Type_indexed(N, blens, displs, MPI_INT, &c.oidx));
  CHECK_MPI(MPI_Type_commit(&c.oidx));
  int shift_len = N;
  MPI_Aint shift_disp = sizeof(int);
  MPI_Datatype int_t = MPI_INT;
  CHECK_MPI(MPI_Type_create_struct(1, &shift_len, &shift_disp, &int_t, &c.shifted));
  CHECK_MPI(MPI_Type_commit(&c.shifted));

  /* Shared-memory windows need every rank on one node (across nodes the call is erroneous). */
  MPI_Comm node;
  int node_size;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  CHECK_MPI(MPI_Comm_size(node, &node_size));
  CHECK_MPI(MPI_Comm_free(&node));
  int nflavors = node_size == empi_size() ? NFLAVORS : FL_SHARED;

  int round = 0;
  for (int fl = 0; fl < nflavors; fl++) {
    make_window(&c, fl);
    for (int sync = 0; sync < NSYNCS; sync++)
      for (int dtmode = 0; dtmode < NDTMODES; dtmode++)
        for (int op = 0; op < NOPS; op++) {
          /* request-based operations belong to passive-target epochs (rma_errors checks the refusal) */
          if (op >= OP_RPUT && (sync == SYNC_FENCE || sync == SYNC_PSCW))
            continue;
          char what[160];
          snprintf(what, sizeof what, "%s/%s/%s/%s", flavor_names[fl], sync_names[sync], dt_names[dtmode],
                   op_names[op]);
          run_round(&c, op, sync, dtmode, round++, what);
        }
    CHECK_MPI(MPI_Win_free(&c.win));
    CHECK(c.win == MPI_WIN_NULL, "MPI_Win_free did not reset the handle");
    if (fl == FL_CREATE)
      free(c.mem);
  }
  MPI_Type_free(&c.tvec);
  MPI_Type_free(&c.oidx);
  MPI_Type_free(&c.shifted);
  MPI_Group_free(&c.left);
  MPI_Group_free(&c.right);
  MPI_Group_free(&world);
  TEST_PASS();
  MPI_Finalize();
  return 0;
}
