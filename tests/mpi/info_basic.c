/*
 * Info objects: set/get_string (flag, buflen in and out including the NUL, truncation),
 * replace, delete, dup independence, nkeys/nthkey, free, and the errors for over-long keys and
 * values and for deleting a missing key. Info calls are local, so every rank runs it all.
 */
#include "empi_test.h"

#include <stdlib.h>
#include <string.h>

static void expect(MPI_Info info, const char *key, const char *want) {
  char val[256];
  int buflen = (int)sizeof val, flag = -1;
  CHECK_MPI(MPI_Info_get_string(info, key, &buflen, val, &flag));
  if (!want) {
    CHECK(!flag, "key '%s' present, expected absent", key);
    return;
  }
  CHECK(flag, "key '%s' missing", key);
  CHECK(strcmp(val, want) == 0, "key '%s' = '%s', expected '%s'", key, val, want);
  CHECK(buflen == (int)strlen(want) + 1, "key '%s': buflen out %d, expected %zu", key, buflen,
        strlen(want) + 1);
}

static int nkeys(MPI_Info info) {
  int n = -1;
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  return n;
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  /* Info errors are not tied to a communicator: make both candidate handlers return. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

  MPI_Info info, dup;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK(info != MPI_INFO_NULL, "Info_create gave MPI_INFO_NULL");
  CHECK(nkeys(info) == 0, "new info has %d keys", nkeys(info));
  expect(info, "absent", NULL);

  CHECK_MPI(MPI_Info_set(info, "alpha", "1"));
  CHECK_MPI(MPI_Info_set(info, "beta", "value two"));
  CHECK_MPI(MPI_Info_set(info, "gamma", ""));
  CHECK(nkeys(info) == 3, "nkeys %d after three sets", nkeys(info));
  expect(info, "alpha", "1");
  expect(info, "beta", "value two");
  expect(info, "gamma", "");

  /* buflen semantics. buflen 0: value untouched, buflen set to length + 1. */
  char val[64];
  int buflen = 0, flag = 0;
  memset(val, '#', sizeof val);
  CHECK_MPI(MPI_Info_get_string(info, "beta", &buflen, val, &flag));
  CHECK(flag && buflen == 10, "buflen 0: flag %d buflen %d, expected 10", flag, buflen);
  CHECK(val[0] == '#', "buflen 0 wrote into the value buffer");
  /* Short buffer: truncated to buflen-1 chars + NUL; buflen still reports the full need. */
  buflen = 4;
  memset(val, '#', sizeof val);
  CHECK_MPI(MPI_Info_get_string(info, "beta", &buflen, val, &flag));
  CHECK(flag && buflen == 10, "buflen 4: flag %d buflen %d", flag, buflen);
  CHECK(memcmp(val, "val", 4) == 0 && val[4] == '#', "buflen 4: value '%.8s'", val);
  /* Exact fit. */
  buflen = 10;
  CHECK_MPI(MPI_Info_get_string(info, "beta", &buflen, val, &flag));
  CHECK(flag && buflen == 10 && strcmp(val, "value two") == 0, "exact buflen: '%s' %d", val,
        buflen);
  /* Missing key: flag false, value untouched. */
  buflen = (int)sizeof val;
  memset(val, '#', sizeof val);
  CHECK_MPI(MPI_Info_get_string(info, "nope", &buflen, val, &flag));
  CHECK(!flag && val[0] == '#', "missing key: flag %d", flag);

  /* Replacing a value keeps the key count. */
  CHECK_MPI(MPI_Info_set(info, "alpha", "replaced value"));
  CHECK(nkeys(info) == 3, "nkeys %d after replace", nkeys(info));
  expect(info, "alpha", "replaced value");

  /* nthkey enumerates each key exactly once. */
  int seen[3] = {0};
  for (int i = 0; i < 3; i++) {
    char key[MPI_MAX_INFO_KEY + 1];
    CHECK_MPI(MPI_Info_get_nthkey(info, i, key));
    if (strcmp(key, "alpha") == 0) seen[0]++;
    else if (strcmp(key, "beta") == 0) seen[1]++;
    else if (strcmp(key, "gamma") == 0) seen[2]++;
    else CHECK(0, "nthkey(%d) gave unknown key '%s'", i, key);
  }
  CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1, "nthkey enumeration %d %d %d", seen[0],
        seen[1], seen[2]);
  char key[MPI_MAX_INFO_KEY + 1];
  CHECK_ERR(MPI_Info_get_nthkey(info, 3, key), MPI_ERR_ARG);
  CHECK_ERR(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);

  /* Dup is a deep copy: changes on either side do not show on the other. */
  CHECK_MPI(MPI_Info_dup(info, &dup));
  CHECK(nkeys(dup) == 3, "dup has %d keys", nkeys(dup));
  expect(dup, "alpha", "replaced value");
  CHECK_MPI(MPI_Info_set(info, "delta", "only in original"));
  CHECK_MPI(MPI_Info_set(dup, "beta", "changed in dup"));
  expect(dup, "delta", NULL);
  expect(info, "beta", "value two");
  expect(dup, "beta", "changed in dup");

  /* Delete: present key goes away; missing key is MPI_ERR_INFO_NOKEY. */
  CHECK_MPI(MPI_Info_delete(info, "beta"));
  expect(info, "beta", NULL);
  CHECK(nkeys(info) == 3, "nkeys %d after delete", nkeys(info));
  CHECK_ERR(MPI_Info_delete(info, "beta"), MPI_ERR_INFO_NOKEY);
  expect(dup, "beta", "changed in dup");

  /* Key and value limits: MPI_MAX_INFO_KEY-1 characters is the longest legal key; one more is
   * MPI_ERR_INFO_KEY. Values longer than MPI_MAX_INFO_VAL are MPI_ERR_INFO_VALUE. */
  char longkey[MPI_MAX_INFO_KEY + 2];
  memset(longkey, 'k', sizeof longkey);
  longkey[MPI_MAX_INFO_KEY - 1] = '\0';
  CHECK_MPI(MPI_Info_set(info, longkey, "ok"));
  expect(info, longkey, "ok");
  longkey[MPI_MAX_INFO_KEY - 1] = 'k';
  longkey[MPI_MAX_INFO_KEY + 1] = '\0'; /* MPI_MAX_INFO_KEY + 1 characters */
  CHECK_ERR(MPI_Info_set(info, longkey, "x"), MPI_ERR_INFO_KEY);
  char *longval = malloc(MPI_MAX_INFO_VAL + 2);
  CHECK(longval != NULL, "malloc");
  memset(longval, 'v', MPI_MAX_INFO_VAL + 1);
  longval[MPI_MAX_INFO_VAL + 1] = '\0';
  CHECK_ERR(MPI_Info_set(info, "big", longval), MPI_ERR_INFO_VALUE);
  free(longval);
  expect(info, "big", NULL);

  /* Free nulls the handles; the dup survives the original's free. */
  CHECK_MPI(MPI_Info_free(&info));
  CHECK(info == MPI_INFO_NULL, "Info_free did not null the handle");
  expect(dup, "alpha", "replaced value");
  CHECK_MPI(MPI_Info_free(&dup));
  CHECK(dup == MPI_INFO_NULL, "Info_free did not null the dup handle");

  /* MPI_INFO_ENV exists and is readable; Info_create_env returns a fresh object. */
  CHECK(nkeys(MPI_INFO_ENV) >= 0, "MPI_INFO_ENV nkeys");
  MPI_Info env;
  CHECK_MPI(MPI_Info_create_env(argc, argv, &env));
  CHECK(env != MPI_INFO_NULL, "Info_create_env gave MPI_INFO_NULL");
  CHECK_MPI(MPI_Info_free(&env));

  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
