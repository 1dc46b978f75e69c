/*
 * Communicator attributes: user keyvals with copy/delete callbacks (invocations counted on
 * Comm_dup, Comm_free, Comm_delete_attr, overwrite, Comm_free_keyval with attached values, and
 * MPI_COMM_SELF at Finalize), the predefined MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN, and the
 * predefined attributes of MPI_COMM_WORLD.
 */
#include "empi_test.h"

#include <stdio.h>
#include <stdlib.h>

static int g_copies, g_deletes, g_self_deleted;
static int g_extra = 1234;

/* Copies are heap-allocated so the delete callback can free them: a leak or a double delete
 * would show up in the counters. */
static int copy_cb(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)oldcomm, (void)keyval;
  CHECK(extra == &g_extra, "copy callback got the wrong extra_state");
  int *v = malloc(sizeof *v);
  CHECK(v != NULL, "malloc");
  *v = *(int *)in + 1; /* each generation increments, to tell copies from originals */
  *(void **)out = v;
  *flag = 1;
  g_copies++;
  return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void *val, void *extra) {
  (void)comm, (void)keyval;
  CHECK(extra == &g_extra, "delete callback got the wrong extra_state");
  free(val);
  g_deletes++;
  return MPI_SUCCESS;
}

/* A copy callback that declines to copy. */
static int nocopy_cb(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out;
  *flag = 0;
  g_copies++;
  return MPI_SUCCESS;
}

static int self_delete_cb(MPI_Comm comm, int keyval, void *val, void *extra) {
  (void)comm, (void)keyval, (void)val, (void)extra;
  g_self_deleted++;
  return MPI_SUCCESS;
}

/* Fails on rank 1 only: one member's dup fails while the others' succeed. */
static int failing_copy_cb(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)oldcomm, (void)keyval, (void)extra;
  *(void **)out = in;
  *flag = 1;
  return empi_rank() == 1 ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int *new_int(int v) {
  int *p = malloc(sizeof *p);
  CHECK(p != NULL, "malloc");
  *p = v;
  return p;
}

static void *get(MPI_Comm comm, int key, int *flag) {
  void *v = NULL;
  CHECK_MPI(MPI_Comm_get_attr(comm, key, &v, flag));
  return v;
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int size = empi_size(), flag = -1;

  /* Predefined attributes on COMM_WORLD. */
  int *ub = get(MPI_COMM_WORLD, MPI_TAG_UB, &flag);
  CHECK(flag && *ub >= 32767, "MPI_TAG_UB flag %d value %d", flag, flag ? *ub : -1);
  int *wg = get(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &flag);
  /* Predefined on COMM_WORLD: present, boolean-valued. */
  CHECK(flag && (*wg == 0 || *wg == 1), "MPI_WTIME_IS_GLOBAL flag %d value %d", flag,
        flag ? *wg : -1);
  /* MPI_APPNUM and MPI_UNIVERSE_SIZE may be absent; when present they must be sensible. */
  int *app = get(MPI_COMM_WORLD, MPI_APPNUM, &flag);
  if (flag) CHECK(*app >= 0, "MPI_APPNUM %d", *app);
  int *us = get(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flag);
  if (flag) CHECK(*us >= size, "MPI_UNIVERSE_SIZE %d below world size %d", *us, size);
  /* A dup carries the same TAG_UB (predefined attributes exist on every communicator). */
  MPI_Comm d0;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d0));
  int *ub2 = get(d0, MPI_TAG_UB, &flag);
  CHECK(flag && *ub2 == *ub, "TAG_UB on a dup: flag %d", flag);
  CHECK_MPI(MPI_Comm_free(&d0));

  /* User keyval with counting callbacks. */
  int key = MPI_KEYVAL_INVALID;
  CHECK_MPI(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, &g_extra));
  CHECK(key != MPI_KEYVAL_INVALID, "create_keyval gave MPI_KEYVAL_INVALID");
  MPI_Comm base, dup1, dup2;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base));
  get(base, key, &flag);
  CHECK(!flag, "attribute present before being set");
  CHECK_MPI(MPI_Comm_set_attr(base, key, new_int(100)));
  int *v = get(base, key, &flag);
  CHECK(flag && *v == 100, "get_attr after set");
  CHECK(g_copies == 0 && g_deletes == 0, "callbacks ran on set");

  CHECK_MPI(MPI_Comm_dup(base, &dup1));
  CHECK(g_copies == 1, "copy callback ran %d times on dup, expected 1", g_copies);
  v = get(dup1, key, &flag);
  CHECK(flag && *v == 101, "dup attribute flag %d value %d", flag, flag ? *v : -1);
  CHECK_MPI(MPI_Comm_dup(dup1, &dup2));
  v = get(dup2, key, &flag);
  CHECK(g_copies == 2 && flag && *v == 102, "second-generation copy");

  /* Overwrite: the old value is deleted first. */
  CHECK_MPI(MPI_Comm_set_attr(dup2, key, new_int(500)));
  CHECK(g_deletes == 1, "overwrite ran delete %d times, expected 1", g_deletes);
  v = get(dup2, key, &flag);
  CHECK(flag && *v == 500, "overwritten value");

  /* Explicit delete, then freeing a communicator with the attribute. */
  CHECK_MPI(MPI_Comm_delete_attr(dup2, key));
  CHECK(g_deletes == 2, "delete_attr ran delete %d times", g_deletes);
  get(dup2, key, &flag);
  CHECK(!flag, "attribute still present after delete_attr");
  CHECK_MPI(MPI_Comm_free(&dup2)); /* no attribute left: no callback */
  CHECK(g_deletes == 2, "free of attribute-less comm ran delete");
  CHECK_MPI(MPI_Comm_free(&dup1));
  CHECK(g_deletes == 3, "Comm_free ran delete %d times, expected 3 in total", g_deletes);

  /* Freeing the keyval with a value still attached: handle becomes invalid, the attribute
   * lives on until its communicator goes, and delete still runs then. */
  int key_copy = key;
  CHECK_MPI(MPI_Comm_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
  v = get(base, key_copy, &flag);
  CHECK(flag && *v == 100, "attribute lost when its keyval was freed");
  CHECK_MPI(MPI_Comm_free(&base));
  CHECK(g_deletes == 4, "delete after keyval free: %d", g_deletes);
  CHECK(g_copies == 2, "copies %d", g_copies);

  /* Copy callback that declines, and the predefined copy functions. */
  int knone, kdup, knull;
  static int payload = 7;
  CHECK_MPI(MPI_Comm_create_keyval(nocopy_cb, MPI_COMM_NULL_DELETE_FN, &knone, NULL));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base));
  CHECK_MPI(MPI_Comm_set_attr(base, knone, &payload));
  CHECK_MPI(MPI_Comm_set_attr(base, kdup, &payload));
  CHECK_MPI(MPI_Comm_set_attr(base, knull, &payload));
  g_copies = 0;
  CHECK_MPI(MPI_Comm_dup(base, &dup1));
  CHECK(g_copies == 1, "declining copy callback ran %d times", g_copies);
  get(dup1, knone, &flag);
  CHECK(!flag, "attribute copied although the callback set flag = 0");
  CHECK(get(dup1, kdup, &flag) == &payload && flag, "MPI_COMM_DUP_FN did not copy the pointer");
  get(dup1, knull, &flag);
  CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied the attribute");
  CHECK_MPI(MPI_Comm_free(&dup1));
  CHECK_MPI(MPI_Comm_free(&base));
  CHECK_MPI(MPI_Comm_free_keyval(&knone));
  CHECK_MPI(MPI_Comm_free_keyval(&kdup));
  CHECK_MPI(MPI_Comm_free_keyval(&knull));

  /* A copy callback failing on one rank fails that rank's MPI_Comm_idup (through the request,
     newcomm MPI_COMM_NULL) while the others' succeed, and the parent's collectives stay in step. */
  {
    int kfail;
    MPI_Comm base2, nd;
    MPI_Request q;
    CHECK_MPI(MPI_Comm_create_keyval(failing_copy_cb, MPI_COMM_NULL_DELETE_FN, &kfail, NULL));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base2));
    CHECK_MPI(MPI_Comm_set_errhandler(base2, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_attr(base2, kfail, &payload));
    CHECK_MPI(MPI_Comm_idup(base2, &nd, &q));
    int rc = MPI_Wait(&q, MPI_STATUS_IGNORE), cls = -1;
    MPI_Error_class(rc, &cls);
    if (empi_rank() == 1) {
      CHECK(cls == MPI_ERR_OTHER, "the failing rank's idup completed with class %d", cls);
      CHECK(nd == MPI_COMM_NULL, "the failing rank got a communicator");
    } else {
      CHECK(rc == MPI_SUCCESS, "idup failed on rank %d (class %d)", empi_rank(), cls);
      CHECK_MPI(MPI_Comm_free(&nd));
    }
    CHECK_MPI(MPI_Comm_delete_attr(base2, kfail));
    CHECK_MPI(MPI_Ibarrier(base2, &q));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    int one = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, base2));
    CHECK(sum == empi_size(), "allreduce after the failed idup gave %d", sum);
    CHECK_MPI(MPI_Comm_free(&base2));
    CHECK_MPI(MPI_Comm_free_keyval(&kfail));
  }

  /* Attributes on MPI_COMM_SELF are deleted at the start of MPI_Finalize (checked after it). */
  int kself;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_cb, &kself, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kself, &payload));

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  if (g_self_deleted != 1) {
    fprintf(stderr, "FAIL: MPI_COMM_SELF attribute delete callback ran %d times in Finalize\n",
            g_self_deleted);
    return 1;
  }
  return 0;
}
