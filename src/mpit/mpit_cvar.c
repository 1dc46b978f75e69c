/*
 * MPI_T control variables: one per tunable of the registry (core/tunables.def), named
 * "empi_<tunable>" (the tunable EMPI_EAGER_LIMIT is the cvar "empi_eager_limit"), in registry order.
 *
 * Types: INT and BOOL tunables are MPI_INT, SIZE ones MPI_UNSIGNED_LONG_LONG, STRING ones MPI_CHAR
 * with a count of EMPI_MPIT_STRING_COUNT (the buffer a read needs; a write must be a terminated
 * string that fits it). Most tunables are read while MPI_Init runs, so they can be written only
 * before it (afterwards: MPI_T_ERR_CVAR_SET_NEVER, as MPI cannot be initialized twice); a write
 * before MPI_Init wins over the environment. The few read on every use can be written at any time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/global.h"
#include "core/tunables.h"
#include "mpit/mpit.h"

#define EMPI_MPIT_STRING_COUNT 1024

struct MPI_T_cvar_handle_t {
    int index;
    struct MPI_T_cvar_handle_t *next;
};

static struct MPI_T_cvar_handle_t *handles; /* every live handle */

static int name_in(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return 1;
    return 0;
}

#define NAME_IN(name, list) name_in(name, list, sizeof list / sizeof list[0])

/* Tunables the library reads on every use, so a write takes effect at once. */
static const char *const live_tunables[] = {"eager_limit", "rndv_chunk", "spin_count"};
/* Tunables a process may set on its own; every other one (collective algorithm selection, the
   shared-memory layout) must be set to the same value on all processes. */
static const char *const local_tunables[] = {"eager_limit", "rndv_chunk", "spin_count", "yield", "debug"};
static const char *const developer_tunables[] = {"debug", "coll_fake_ppn"};

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

const char *empi_mpit_cvar_category(int i)
{
    static const char *const pt2pt[] = {"eager_limit", "rndv_chunk"};
    static const char *const progress[] = {"spin_count", "yield"};
    const char *name = empi_tunable_descs[i].name;
    if (has_prefix(name, "shm_"))
        return "empi_shm";
    if (has_prefix(name, "coll_") || has_suffix(name, "_algorithm") || strcmp(name, "tuning_file") == 0)
        return "empi_coll";
    if (NAME_IN(name, pt2pt))
        return "empi_pt2pt";
    if (NAME_IN(name, progress))
        return "empi_progress";
    return "empi_other";
}

static MPI_Datatype cvar_type(int i)
{
    switch (empi_tunable_descs[i].type) {
    case EMPI_TUNABLE_SIZE:
    case EMPI_TUNABLE_BYTES: return MPI_UNSIGNED_LONG_LONG;
    case EMPI_TUNABLE_STRING: return MPI_CHAR;
    default: return MPI_INT;
    }
}

static int cvar_count(int i)
{
    return empi_tunable_descs[i].type == EMPI_TUNABLE_STRING ? EMPI_MPIT_STRING_COUNT : 1;
}

static int valid_index(int i)
{
    return i >= 0 && i < empi_tunable_count;
}

/* Enter, and check a read or write's handle and buffer. */
static int enter_access(MPI_T_cvar_handle h, const void *buf)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    for (struct MPI_T_cvar_handle_t *p = handles; p; p = p->next)
        if (p == h)
            return buf ? MPI_SUCCESS : empi_mpit_exit(MPI_T_ERR_INVALID);
    return empi_mpit_exit(MPI_T_ERR_INVALID_HANDLE);
}

void empi_mpit_cvar_release_all(void)
{
    while (handles) {
        struct MPI_T_cvar_handle_t *next = handles->next;
        free(handles);
        handles = next;
    }
}

EMPI_WEAK_ALIAS(T_cvar_get_num)
int PMPI_T_cvar_get_num(int *num_cvar)
{
    return empi_mpit_report_int(num_cvar, empi_tunable_count);
}

EMPI_WEAK_ALIAS(T_cvar_get_info)
int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!valid_index(cvar_index))
        return empi_mpit_exit(MPI_T_ERR_INVALID_INDEX);
    const empi_tunable_desc_t *t = &empi_tunable_descs[cvar_index];
    char text[1024], env[128];
    snprintf(text, sizeof text, "empi_%s", t->name);
    empi_mpit_copy_string(text, name, name_len);
    snprintf(text, sizeof text, "%s [environment variable %s, default \"%s\"]", t->doc,
             empi_tunable_env_name(cvar_index, env, sizeof env), t->def);
    empi_mpit_copy_string(text, desc, desc_len);
    if (verbosity)
        *verbosity = NAME_IN(t->name, developer_tunables) ? MPI_T_VERBOSITY_MPIDEV_BASIC
                     : has_suffix(t->name, "_algorithm")  ? MPI_T_VERBOSITY_TUNER_DETAIL
                                                          : MPI_T_VERBOSITY_TUNER_BASIC;
    if (datatype)
        *datatype = cvar_type(cvar_index);
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = NAME_IN(t->name, local_tunables) ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_ALL_EQ;
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_cvar_get_index)
int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cvar_index)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    int i = has_prefix(name, "empi_") ? empi_tunable_find(name + strlen("empi_")) : -1;
    if (i < 0)
        return empi_mpit_exit(MPI_T_ERR_INVALID_NAME);
    *cvar_index = i;
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_cvar_handle_alloc)
int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    (void)obj_handle; /* no control variable is bound to an object */
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!valid_index(cvar_index))
        return empi_mpit_exit(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    struct MPI_T_cvar_handle_t *h = malloc(sizeof *h);
    if (!h)
        return empi_mpit_exit(MPI_T_ERR_OUT_OF_HANDLES);
    h->index = cvar_index;
    h->next = handles;
    handles = h;
    *handle = h;
    *count = cvar_count(cvar_index);
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_cvar_handle_free)
int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    int rc = empi_mpit_enter_arg(handle);
    if (rc != MPI_SUCCESS)
        return rc;
    for (struct MPI_T_cvar_handle_t **p = &handles; *p; p = &(*p)->next) {
        if (*p == *handle) {
            *p = (*handle)->next;
            free(*handle);
            *handle = MPI_T_CVAR_HANDLE_NULL;
            return empi_mpit_exit(MPI_SUCCESS);
        }
    }
    return empi_mpit_exit(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_cvar_read)
int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    int rc = enter_access(handle, buf);
    if (rc != MPI_SUCCESS)
        return rc;
    int i = handle->index;
    const void *field = empi_tunable_addr(i);
    switch (empi_tunable_descs[i].type) {
    case EMPI_TUNABLE_INT: *(int *)buf = (int)*(const long *)field; break;
    case EMPI_TUNABLE_SIZE:
    case EMPI_TUNABLE_BYTES: *(unsigned long long *)buf = *(const size_t *)field; break;
    case EMPI_TUNABLE_BOOL: *(int *)buf = *(const int *)field; break;
    case EMPI_TUNABLE_STRING: {
        const char *s = *(const char *const *)field;
        snprintf(buf, EMPI_MPIT_STRING_COUNT, "%s", s ? s : "");
        break;
    }
    }
    return empi_mpit_exit(MPI_SUCCESS);
}

/* The value in buf as the text empi_tunable_set parses; -1 if it is not a valid value. */
static int value_text(int i, const void *buf, char *text, size_t len)
{
    switch (empi_tunable_descs[i].type) {
    case EMPI_TUNABLE_INT: snprintf(text, len, "%d", *(const int *)buf); return 0;
    case EMPI_TUNABLE_SIZE:
    case EMPI_TUNABLE_BYTES: snprintf(text, len, "%llu", *(const unsigned long long *)buf); return 0;
    case EMPI_TUNABLE_BOOL: snprintf(text, len, "%d", *(const int *)buf != 0); return 0;
    case EMPI_TUNABLE_STRING:
        if (strnlen(buf, EMPI_MPIT_STRING_COUNT) == EMPI_MPIT_STRING_COUNT)
            return -1;
        snprintf(text, len, "%s", (const char *)buf);
        return 0;
    }
    return -1;
}

EMPI_WEAK_ALIAS(T_cvar_write)
int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    int rc = enter_access(handle, buf);
    if (rc != MPI_SUCCESS)
        return rc;
    int i = handle->index;
    if (!NAME_IN(empi_tunable_descs[i].name, live_tunables) &&
        atomic_load(&empi_g.state) != EMPI_STATE_PRE_INIT)
        return empi_mpit_exit(MPI_T_ERR_CVAR_SET_NEVER);
    char text[EMPI_MPIT_STRING_COUNT];
    if (value_text(i, buf, text, sizeof text) != 0 || empi_tunable_set(i, text) != 0)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    return empi_mpit_exit(MPI_SUCCESS);
}
