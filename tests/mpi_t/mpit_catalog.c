/*
 * What MPI_T lists: categories cover every control and performance variable exactly once and form
 * a tree below the root; events (none yet) and event sources behave as the standard says, with
 * MPI_T_ERR_INVALID_INDEX / _NAME / _HANDLE for what does not exist.
 */
#include <stdlib.h>

#include "mpit_test.h"

static void check_categories(void) {
  int ncat, ncvar, npvar, update, update2;
  CHECK_T(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
  CHECK_T(MPI_T_cvar_get_num(&ncvar), MPI_SUCCESS);
  CHECK_T(MPI_T_pvar_get_num(&npvar), MPI_SUCCESS);
  CHECK(ncat >= 2 && ncvar > 0 && npvar > 0, "%d categories, %d cvars, %d pvars", ncat, ncvar, npvar);
  int *cvar_seen = calloc((size_t)ncvar, sizeof(int)), *pvar_seen = calloc((size_t)npvar, sizeof(int));
  int *cat_parent = calloc((size_t)ncat, sizeof(int));
  int *list = malloc(sizeof(int) * (size_t)(ncvar + npvar + ncat + 1));
  for (int c = 0; c < ncat; c++) {
    char name[64];
    int name_len = sizeof name, desc_len = 0, nc, np, nsub, nev, idx;
    CHECK_T(MPI_T_category_get_info(c, name, &name_len, NULL, &desc_len, &nc, &np, &nsub), MPI_SUCCESS);
    CHECK(desc_len > 1, "category %s has no description", name);
    CHECK_T(MPI_T_category_get_index(name, &idx), MPI_SUCCESS);
    CHECK(idx == c, "category_get_index(%s) = %d", name, idx);
    CHECK_T(MPI_T_category_get_num_events(c, &nev), MPI_SUCCESS);
    CHECK(nev == 0, "category %s has %d events", name, nev);
    CHECK_T(MPI_T_category_get_events(c, 1, list), MPI_SUCCESS);
    CHECK_T(MPI_T_category_get_cvars(c, nc, list), MPI_SUCCESS);
    for (int i = 0; i < nc; i++) {
      CHECK(list[i] >= 0 && list[i] < ncvar, "category %s lists cvar %d", name, list[i]);
      cvar_seen[list[i]]++;
    }
    CHECK_T(MPI_T_category_get_pvars(c, np, list), MPI_SUCCESS);
    for (int i = 0; i < np; i++) {
      CHECK(list[i] >= 0 && list[i] < npvar, "category %s lists pvar %d", name, list[i]);
      pvar_seen[list[i]]++;
    }
    CHECK_T(MPI_T_category_get_categories(c, nsub, list), MPI_SUCCESS);
    for (int i = 0; i < nsub; i++) {
      CHECK(list[i] > 0 && list[i] < ncat && list[i] != c, "category %s lists category %d", name, list[i]);
      cat_parent[list[i]]++;
    }
    /* A shorter list gets a prefix of the full one. */
    if (nc > 1) {
      CHECK_T(MPI_T_category_get_cvars(c, nc, list), MPI_SUCCESS);
      int first = list[0];
      list[1] = -7;
      CHECK_T(MPI_T_category_get_cvars(c, 1, list), MPI_SUCCESS);
      CHECK(list[0] == first && list[1] == -7, "get_cvars with len 1 wrote past it");
    }
  }
  for (int i = 0; i < ncvar; i++) CHECK(cvar_seen[i] == 1, "cvar %d is in %d categories", i, cvar_seen[i]);
  for (int i = 0; i < npvar; i++) CHECK(pvar_seen[i] == 1, "pvar %d is in %d categories", i, pvar_seen[i]);
  for (int c = 1; c < ncat; c++) CHECK(cat_parent[c] == 1, "category %d has %d parents", c, cat_parent[c]);
  CHECK_T(MPI_T_category_changed(&update), MPI_SUCCESS);
  CHECK_T(MPI_T_category_changed(&update2), MPI_SUCCESS);
  CHECK(update == update2, "categories changed without reason");

  int idx, n;
  CHECK_T(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_category_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_category_get_cvars(ncat, 1, list), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_category_get_pvars(-1, 1, list), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_category_get_categories(ncat, 1, list), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_category_get_events(ncat, 1, list), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_category_get_num_events(ncat, &n), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_category_get_index("no_such_category", &idx), MPI_T_ERR_INVALID_NAME);
  free(cvar_seen);
  free(pvar_seen);
  free(cat_parent);
  free(list);
}

static void check_events(void) {
  int n, idx, nsrc;
  MPI_T_event_registration reg = NULL;
  MPI_Info info;
  MPI_Count ts1, ts2, tps, max;
  MPI_T_source_order order;
  char name[64];
  int name_len = sizeof name, v;
  CHECK_T(MPI_T_event_get_num(&n), MPI_SUCCESS);
  CHECK(n == 0, "%d event types", n);
  CHECK_T(MPI_T_event_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_event_get_index("no_such_event", &idx), MPI_T_ERR_INVALID_NAME);
  CHECK_T(MPI_T_event_handle_alloc(n, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_event_handle_free(reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_event_handle_set_info(reg, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_event_handle_get_info(reg, &info), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL),
          MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_NONE, &info), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_event_set_dropped_handler(reg, NULL), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_event_read(NULL, 0, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_event_copy(NULL, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_event_get_timestamp(NULL, &ts1), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_event_get_source(NULL, &v), MPI_T_ERR_INVALID_HANDLE);

  CHECK_T(MPI_T_source_get_num(&nsrc), MPI_SUCCESS);
  CHECK(nsrc >= 1, "%d sources", nsrc);
  CHECK_T(MPI_T_source_get_info(0, name, &name_len, NULL, NULL, &order, &tps, &max, &info), MPI_SUCCESS);
  CHECK(name_len > 1 && tps > 0 && max > 0, "source 0: %s, %lld ticks/s, max %lld", name, (long long)tps,
        (long long)max);
  CHECK(order == MPI_T_SOURCE_ORDERED || order == MPI_T_SOURCE_UNORDERED, "source ordering %d", (int)order);
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_T(MPI_T_source_get_timestamp(0, &ts1), MPI_SUCCESS);
  CHECK_T(MPI_T_source_get_timestamp(0, &ts2), MPI_SUCCESS);
  CHECK(ts2 >= ts1, "source clock went back: %lld then %lld", (long long)ts1, (long long)ts2);
  CHECK_T(MPI_T_source_get_info(nsrc, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_source_get_timestamp(-1, &ts1), MPI_T_ERR_INVALID_INDEX);
}

int main(int argc, char **argv) {
  int provided;
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  check_categories(); /* before MPI_Init */
  CHECK_MPI(MPI_Init(&argc, &argv));
  check_categories();
  check_events();
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
