/*
 * MPI_T control variables against the tunable registry: every tunable of core/tunables.def is a
 * cvar "empi_<name>" with the right type, description and value (EMPI_EAGER_LIMIT=4096 and
 * EMPI_SPIN_COUNT=1234 come from the test's environment, EMPI_BIND_TO=sideways too, which is not
 * in the choice list "none|core|hwthread" and must leave the default, as must EMPI_RNDV_CHUNK=0 (a
 * length), EMPI_TCP_MAX_PACKET=-1, EMPI_UDP_WINDOW=99999999999g (beyond 64 bits) and
 * EMPI_SPIN_COUNT_ALONE=4294967296 (beyond an int: MPI_T read it as 0)); writes before MPI_Init win over the
 * environment and survive it, init-time cvars refuse writes afterwards, live ones take them.
 * An internals test: it includes the registry to know what to expect.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpit_test.h"

typedef struct expected {
  const char *name, *type, *def, *doc;
} expected_t;

static const expected_t registry[] = {
#define EMPI_TUNABLE(field, type, def, doc) {#field, #type, def, doc},
#include "core/tunables.def"
#undef EMPI_TUNABLE
};
#define NREG ((int)(sizeof registry / sizeof registry[0]))

/* A default from the registry as a number ("16384", "8m"...). */
static unsigned long long parse_default(const char *s) {
  char *end;
  unsigned long long v = strtoull(s, &end, 0);
  switch (*end) {
  case 'g': case 'G': v <<= 10; /* fall through */
  case 'm': case 'M': v <<= 10; /* fall through */
  case 'k': case 'K': v <<= 10; break;
  default: break;
  }
  return v;
}

static void check_registry(void) {
  int n;
  CHECK_T(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
  CHECK(n == NREG, "%d cvars, registry has %d tunables", n, NREG);
  for (int i = 0; i < n; i++) {
    const expected_t *e = &registry[i];
    char name[128], desc[1024], want[160];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope, count;
    MPI_Datatype dt;
    MPI_T_enum en;
    CHECK_T(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &en, desc, &desc_len, &bind, &scope),
            MPI_SUCCESS);
    snprintf(want, sizeof want, "empi_%s", e->name);
    CHECK(!strcmp(name, want) && name_len == (int)strlen(want) + 1, "cvar %d is %s (len %d), want %s", i, name,
          name_len, want);
    CHECK(!strncmp(desc, e->doc, strlen(e->doc)), "cvar %s: description \"%s\" is not the registry's", name, desc);
    CHECK(desc_len == (int)strlen(desc) + 1, "cvar %s: desc_len %d", name, desc_len);
    MPI_Datatype want_dt = !strcmp(e->type, "SIZE") || !strcmp(e->type, "BYTES") ? MPI_UNSIGNED_LONG_LONG
                           : !strcmp(e->type, "STRING") ? MPI_CHAR : MPI_INT;
    CHECK(dt == want_dt, "cvar %s (%s): wrong datatype", name, e->type);
    CHECK(en == MPI_T_ENUM_NULL && bind == MPI_T_BIND_NO_OBJECT, "cvar %s: enum/bind", name);
    CHECK(scope == MPI_T_SCOPE_LOCAL || scope == MPI_T_SCOPE_ALL_EQ, "cvar %s: scope %d", name, scope);
    int idx;
    CHECK_T(MPI_T_cvar_get_index(name, &idx), MPI_SUCCESS);
    CHECK(idx == i, "get_index(%s) = %d, want %d", name, idx, i);

    /* The value: defaults, except the two set in the environment. */
    MPI_T_cvar_handle h;
    CHECK_T(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
    if (dt == MPI_CHAR) {
      char *buf = malloc((size_t)count);
      CHECK(count >= 256 && buf, "string cvar %s: count %d", name, count);
      CHECK_T(MPI_T_cvar_read(h, buf), MPI_SUCCESS);
      /* a choice list "a|b|c" defaults to its first value */
      CHECK(!strncmp(buf, e->def, strcspn(e->def, "|")) && strlen(buf) == strcspn(e->def, "|"),
            "cvar %s = \"%s\", default \"%s\"", name, buf, e->def);
      free(buf);
    } else {
      CHECK(count == 1, "cvar %s: count %d", name, count);
      unsigned long long v = 0;
      if (dt == MPI_INT) {
        int iv;
        CHECK_T(MPI_T_cvar_read(h, &iv), MPI_SUCCESS);
        v = (unsigned long long)iv;
      } else {
        CHECK_T(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
      }
      unsigned long long want_v = !strcmp(e->name, "eager_limit") ? 4096
                                  : !strcmp(e->name, "spin_count") ? 1234 : parse_default(e->def);
      CHECK(v == want_v, "cvar %s = %llu, want %llu", name, v, want_v);
    }
    CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
  }
}

/* The standard's string convention: length always includes the terminator; 0 or NULL copies nothing. */
static void check_strings(void) {
  int len = 0;
  CHECK_T(MPI_T_cvar_get_info(mpit_cvar("empi_eager_limit"), NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL), MPI_SUCCESS);
  CHECK(len == (int)strlen("empi_eager_limit") + 1, "length query gave %d", len);
  char small[6] = "xxxxx";
  len = sizeof small;
  CHECK_T(MPI_T_cvar_get_info(mpit_cvar("empi_eager_limit"), small, &len, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL), MPI_SUCCESS);
  CHECK(!strcmp(small, "empi_") && len == (int)strlen("empi_eager_limit") + 1, "truncated to \"%s\", len %d",
        small, len);
  len = 0;
  small[0] = 'x';
  CHECK_T(MPI_T_cvar_get_info(0, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
  CHECK(small[0] == 'x' && len > 1, "len 0 must not write the buffer");
}

static void check_errors(void) {
  int n, i, count, v = 0;
  MPI_T_cvar_handle h, freed;
  CHECK_T(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
  CHECK_T(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_cvar_handle_alloc(-5, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_cvar_get_index("empi_no_such_knob", &i), MPI_T_ERR_INVALID_NAME);
  CHECK_T(MPI_T_cvar_get_index("eager_limit", &i), MPI_T_ERR_INVALID_NAME);
  CHECK_T(MPI_T_cvar_handle_alloc(0, NULL, &freed, &count), MPI_SUCCESS);
  h = freed;
  CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
  CHECK_T(MPI_T_cvar_read(freed, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_cvar_write(freed, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_cvar_handle_free(&freed), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
}

int main(int argc, char **argv) {
  int provided, n;
  CHECK_T(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  check_registry();
  check_strings();
  check_errors();

  /* Before MPI_Init every cvar is writable; these writes must win over the environment. */
  unsigned long long eager = 2048, got = 0;
  int spin = 4321, gspin = 0;
  mpit_cvar_rw("empi_eager_limit", NULL, &eager);
  mpit_cvar_rw("empi_eager_limit", &got, NULL);
  CHECK(got == 2048, "eager_limit reads %llu after writing 2048", got);
  mpit_cvar_rw("empi_spin_count", NULL, &spin);
  MPI_T_cvar_handle yh;
  int count;
  CHECK_T(MPI_T_cvar_handle_alloc(mpit_cvar("empi_yield"), NULL, &yh, &count), MPI_SUCCESS);
  char *text = calloc((size_t)count, 1);
  memset(text, 'a', (size_t)count); /* no terminator within count: refused */
  CHECK_T(MPI_T_cvar_write(yh, text), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_cvar_write(yh, "sometimes"), MPI_T_ERR_INVALID); /* not one of auto|always|never */
  strcpy(text, "always");
  CHECK_T(MPI_T_cvar_write(yh, text), MPI_SUCCESS);
  MPI_T_cvar_handle rh;
  CHECK_T(MPI_T_cvar_handle_alloc(mpit_cvar("empi_shm_ring_size"), NULL, &rh, &count), MPI_SUCCESS);

  CHECK_MPI(MPI_Init(&argc, &argv));
  got = 0;
  mpit_cvar_rw("empi_eager_limit", &got, NULL);
  mpit_cvar_rw("empi_spin_count", &gspin, NULL);
  CHECK(got == 2048 && gspin == 4321, "writes before MPI_Init lost: eager %llu spin %d", got, gspin);
  memset(text, 0, (size_t)count);
  CHECK_T(MPI_T_cvar_read(yh, text), MPI_SUCCESS);
  CHECK(!strcmp(text, "always"), "yield reads \"%s\" after writing \"always\" before MPI_Init", text);
  /* Read at MPI_Init only: no longer writable. */
  CHECK_T(MPI_T_cvar_write(yh, "never"), MPI_T_ERR_CVAR_SET_NEVER);
  unsigned long long ring = 1 << 20;
  CHECK_T(MPI_T_cvar_write(rh, &ring), MPI_T_ERR_CVAR_SET_NEVER);
  /* A chunk of 0 bytes is refused (the rendezvous pipeline sent empty chunks forever). */
  MPI_T_cvar_handle ch;
  CHECK_T(MPI_T_cvar_handle_alloc(mpit_cvar("empi_rndv_chunk"), NULL, &ch, &count), MPI_SUCCESS);
  unsigned long long chunk = 0;
  CHECK_T(MPI_T_cvar_write(ch, &chunk), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_cvar_read(ch, &chunk), MPI_SUCCESS);
  CHECK(chunk > 0, "rndv_chunk reads %llu after a refused write of 0", chunk);
  CHECK_T(MPI_T_cvar_handle_free(&ch), MPI_SUCCESS);
  /* Read on every use: writable now too. */
  eager = 8192;
  mpit_cvar_rw("empi_eager_limit", NULL, &eager);
  mpit_cvar_rw("empi_eager_limit", &got, NULL);
  CHECK(got == 8192, "eager_limit reads %llu after writing 8192", got);
  CHECK_T(MPI_T_cvar_handle_free(&yh), MPI_SUCCESS);
  CHECK_T(MPI_T_cvar_handle_free(&rh), MPI_SUCCESS);
  free(text);
  CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
  CHECK_T(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  TEST_PASS();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
