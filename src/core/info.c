/*
 * Info objects and the MPI_Info_* API. Info calls are allowed before MPI_Init and after
 * MPI_Finalize (MPI-4), so they guard shared state with a lock of their own, not the big lock.
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "comm/comm.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"

static empi_pool_t info_pool = EMPI_POOL_INITIALIZER(empi_info_t, "info");
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;  /* the pool's free list */
static pthread_mutex_t info_lock = PTHREAD_MUTEX_INITIALIZER;  /* contents touched by the API */

/* MPI_INFO_ENV: filled on first use, refilled once MPI_Init has run (maxprocs, thread_level). */
static empi_info_t info_env = {{EMPI_MAGIC_INFO, 1}, MPI_INFO_ENV, 0, 0, NULL};
static int info_env_state = -1;   /* empi_state_t it was filled in, -1: never */

/* ---- internal API ---- */

empi_info_t *empi_info_new(void)
{
    pthread_mutex_lock(&pool_lock);
    empi_info_t *info = empi_pool_alloc(&info_pool);
    pthread_mutex_unlock(&pool_lock);
    if (!info)
        return NULL;
    info->obj.magic = EMPI_MAGIC_INFO;
    info->obj.refcount = 1;
    info->handle = (MPI_Info)info;
    return info;
}

static void clear_entries(empi_info_t *info)
{
    for (int i = 0; i < info->nkeys; i++) {
        free(info->entries[i].key);
        free(info->entries[i].value);
    }
    free(info->entries);
    info->entries = NULL;
    info->nkeys = info->cap = 0;
}

void empi_info_release(empi_info_t *info)
{
    if (!info || info == &info_env)
        return;
    if (__atomic_sub_fetch(&info->obj.refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    clear_entries(info);
    pthread_mutex_lock(&pool_lock);
    empi_pool_free(&info_pool, info);
    pthread_mutex_unlock(&pool_lock);
}

static int find_key(const empi_info_t *info, const char *key)
{
    for (int i = 0; i < info->nkeys; i++)
        if (strcmp(info->entries[i].key, key) == 0)
            return i;
    return -1;
}

const char *empi_info_lookup(const empi_info_t *info, const char *key)
{
    if (!info)
        return NULL;
    int i = find_key(info, key);
    return i < 0 ? NULL : info->entries[i].value;
}

size_t empi_info_alignment(const empi_info_t *info, size_t least)
{
    const char *want = info ? empi_info_lookup(info, "mpi_minimum_memory_alignment") : NULL;
    char *end = NULL;
    unsigned long long a = want ? strtoull(want, &end, 10) : 0;
    return a > least && !*end && (a & (a - 1)) == 0 && a <= SIZE_MAX / 2 ? (size_t)a : least;
}

int empi_info_set(empi_info_t *info, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return MPI_ERR_NO_MEM;
    int i = find_key(info, key);
    if (i >= 0) {
        free(info->entries[i].value);
        info->entries[i].value = v;
        return MPI_SUCCESS;
    }
    if (info->nkeys == info->cap) {
        int cap = info->cap ? 2 * info->cap : 8;
        empi_info_entry_t *grown = realloc(info->entries, (size_t)cap * sizeof *grown);
        if (!grown) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        info->entries = grown;
        info->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    info->entries[info->nkeys++] = (empi_info_entry_t){k, v};
    return MPI_SUCCESS;
}

int empi_info_remove(empi_info_t *info, const char *key)
{
    int i = find_key(info, key);
    if (i < 0)
        return 0;
    free(info->entries[i].key);
    free(info->entries[i].value);
    memmove(&info->entries[i], &info->entries[i + 1], (size_t)(info->nkeys - i - 1) * sizeof info->entries[0]);
    info->nkeys--;
    return 1;
}

empi_info_t *empi_info_dup(const empi_info_t *info)
{
    empi_info_t *copy = empi_info_new();
    if (!copy || !info)
        return copy;
    for (int i = 0; i < info->nkeys; i++)
        if (empi_info_set(copy, info->entries[i].key, info->entries[i].value) != MPI_SUCCESS) {
            empi_info_release(copy);
            return NULL;
        }
    return copy;
}

/* ---- MPI_INFO_ENV ---- */

/* argv of this process from /proc, as "command" and the space-separated rest. */
static void fill_command_line(empi_info_t *info, int argc, char **argv)
{
    char args[4096] = "";
    size_t used = 0;
    if (argv) {
        if (argc > 0 && argv[0])
            empi_info_set(info, "command", argv[0]);
        for (int i = 1; i < argc && argv[i]; i++)
            used += (size_t)snprintf(args + used, used < sizeof args ? sizeof args - used : 0, "%s%s",
                                     i > 1 ? " " : "", argv[i]);
    } else {
        char buf[4096];
        FILE *f = fopen("/proc/self/cmdline", "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        buf[n] = '\0';
        if (n == 0)
            return;
        empi_info_set(info, "command", buf);
        for (size_t pos = strlen(buf) + 1; pos < n; pos += strlen(buf + pos) + 1)
            used += (size_t)snprintf(args + used, used < sizeof args ? sizeof args - used : 0, "%s%s",
                                     used ? " " : "", buf + pos);
    }
    if (used)
        empi_info_set(info, "argv", args);
}

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

/* The keys the standard lists for MPI_INFO_ENV, as far as this process knows them. */
static void fill_env(empi_info_t *info, int argc, char **argv)
{
    char buf[PATH_MAX];
    struct utsname u;
    fill_command_line(info, argc, argv);
    if (empi_is_initialized()) {
        snprintf(buf, sizeof buf, "%d", empi_g.boot.size);
        empi_info_set(info, "maxprocs", buf);
        empi_info_set(info, "thread_level", thread_level_name(empi_g.thread_level));
    }
    empi_info_set(info, "soft", "");
    if (gethostname(buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = '\0';
        empi_info_set(info, "host", buf);
    }
    if (uname(&u) == 0)
        empi_info_set(info, "arch", u.machine);
    if (getcwd(buf, sizeof buf))
        empi_info_set(info, "wdir", buf);
}

static void refresh_info_env(void)
{
    int state = atomic_load(&empi_g.state);
    pthread_mutex_lock(&info_lock);
    if (info_env_state != state) {
        clear_entries(&info_env);
        fill_env(&info_env, 0, NULL);
        info_env_state = state;
    }
    pthread_mutex_unlock(&info_lock);
}

empi_info_t *empi_info_get(MPI_Info h)
{
    if (h == MPI_INFO_ENV) {
        refresh_info_env();
        return &info_env;
    }
    if (empi_handle_is_predefined(h))
        return NULL;
    empi_info_t *info = (empi_info_t *)h;
    return info->obj.magic == EMPI_MAGIC_INFO ? info : NULL;
}

/* ---- API ---- */

static int check_info(MPI_Info h, const char *fname, empi_info_t **out)
{
    *out = empi_info_get(h);
    if (!*out)
        return empi_err_noobj(MPI_ERR_INFO, "%s: invalid info %p", fname, (void *)h);
    return MPI_SUCCESS;
}

static int check_key(const char *key, const char *fname)
{
    if (!key)
        return empi_err_noobj(MPI_ERR_INFO_KEY, "%s: key is NULL", fname);
    size_t len = strlen(key);
    if (len == 0 || len >= MPI_MAX_INFO_KEY)
        return empi_err_noobj(MPI_ERR_INFO_KEY, "%s: key \"%.40s\" is empty or not shorter than MPI_MAX_INFO_KEY",
                              fname, key);
    return MPI_SUCCESS;
}

static int check_writable(empi_info_t *info, const char *fname)
{
    if (info == &info_env)
        return empi_err_noobj(MPI_ERR_INFO, "%s: MPI_INFO_ENV is read-only", fname);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_create)
int PMPI_Info_create(MPI_Info *info)
{
    if (!info)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_create: info is NULL");
    empi_info_t *i = empi_info_new();
    if (!i)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Info_create: out of memory");
    *info = i->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_create_env)
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    if (!info)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_create_env: info is NULL");
    empi_info_t *i = empi_info_new();
    if (!i)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Info_create_env: out of memory");
    fill_env(i, argc, argc > 0 ? argv : NULL);
    *info = i->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_set)
int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    empi_info_t *i;
    EMPI_CHECK(check_info(info, "MPI_Info_set", &i));
    EMPI_CHECK(check_writable(i, "MPI_Info_set"));
    EMPI_CHECK(check_key(key, "MPI_Info_set"));
    if (!value)
        return empi_err_noobj(MPI_ERR_INFO_VALUE, "MPI_Info_set: value is NULL");
    if (strlen(value) >= MPI_MAX_INFO_VAL)
        return empi_err_noobj(MPI_ERR_INFO_VALUE, "MPI_Info_set: value for \"%s\" is not shorter than MPI_MAX_INFO_VAL",
                              key);
    pthread_mutex_lock(&info_lock);
    int rc = empi_info_set(i, key, value);
    pthread_mutex_unlock(&info_lock);
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Info_set: out of memory");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_delete)
int PMPI_Info_delete(MPI_Info info, const char *key)
{
    empi_info_t *i;
    EMPI_CHECK(check_info(info, "MPI_Info_delete", &i));
    EMPI_CHECK(check_writable(i, "MPI_Info_delete"));
    EMPI_CHECK(check_key(key, "MPI_Info_delete"));
    pthread_mutex_lock(&info_lock);
    int found = empi_info_remove(i, key);
    pthread_mutex_unlock(&info_lock);
    if (!found)
        return empi_err_noobj(MPI_ERR_INFO_NOKEY, "MPI_Info_delete: key \"%s\" is not in the info", key);
    return MPI_SUCCESS;
}

/* Copy a value out under the lock: found -> *flag = 1 and at most `room` bytes including the NUL. */
static int get_value(empi_info_t *i, const char *key, char *value, int room, int *full_len, int *flag)
{
    pthread_mutex_lock(&info_lock);
    const char *v = empi_info_lookup(i, key);
    *flag = v != NULL;
    if (v) {
        size_t len = strlen(v);
        *full_len = (int)len;
        if (value && room > 0) {
            size_t n = len < (size_t)room - 1 ? len : (size_t)room - 1;
            memcpy(value, v, n);
            value[n] = '\0';
        }
    }
    pthread_mutex_unlock(&info_lock);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_get_string)
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    empi_info_t *i;
    EMPI_CHECK(check_info(info, "MPI_Info_get_string", &i));
    EMPI_CHECK(check_key(key, "MPI_Info_get_string"));
    if (!buflen || !flag)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_get_string: %s is NULL", buflen ? "flag" : "buflen");
    if (*buflen < 0)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_get_string: *buflen %d is negative", *buflen);
    if (*buflen > 0 && !value)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_get_string: value is NULL but *buflen is %d", *buflen);
    int len = 0;
    get_value(i, key, value, *buflen, &len, flag);
    /* The standard returns the size needed including the terminating NUL. */
    if (*flag)
        *buflen = len + 1;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_get)
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    empi_info_t *i;
    EMPI_CHECK(check_info(info, "MPI_Info_get", &i));
    EMPI_CHECK(check_key(key, "MPI_Info_get"));
    if (!flag)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_get: flag is NULL");
    if (valuelen < 0)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_get: valuelen %d is negative", valuelen);
    if (!value)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_get: value is NULL");
    int len = 0;
    /* valuelen excludes the NUL in this older interface, so the buffer holds valuelen + 1 bytes. */
    return get_value(i, key, value, valuelen + 1, &len, flag);
}

EMPI_WEAK_ALIAS(Info_get_valuelen)
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    empi_info_t *i;
    EMPI_CHECK(check_info(info, "MPI_Info_get_valuelen", &i));
    EMPI_CHECK(check_key(key, "MPI_Info_get_valuelen"));
    if (!valuelen || !flag)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_get_valuelen: %s is NULL", flag ? "valuelen" : "flag");
    int len = 0;
    get_value(i, key, NULL, 0, &len, flag);
    if (*flag)
        *valuelen = len;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_dup)
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    empi_info_t *i;
    EMPI_CHECK(check_info(info, "MPI_Info_dup", &i));
    if (!newinfo)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_dup: newinfo is NULL");
    pthread_mutex_lock(&info_lock);
    empi_info_t *copy = empi_info_dup(i);
    pthread_mutex_unlock(&info_lock);
    if (!copy)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Info_dup: out of memory");
    *newinfo = copy->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_free)
int PMPI_Info_free(MPI_Info *info)
{
    if (!info)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_free: info is NULL");
    empi_info_t *i;
    EMPI_CHECK(check_info(*info, "MPI_Info_free", &i));
    EMPI_CHECK(check_writable(i, "MPI_Info_free"));
    empi_info_release(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_get_nkeys)
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    empi_info_t *i;
    EMPI_CHECK(check_info(info, "MPI_Info_get_nkeys", &i));
    if (!nkeys)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_get_nkeys: nkeys is NULL");
    *nkeys = i->nkeys;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_get_nthkey)
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    empi_info_t *i;
    EMPI_CHECK(check_info(info, "MPI_Info_get_nthkey", &i));
    if (!key)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_get_nthkey: key is NULL");
    pthread_mutex_lock(&info_lock);
    int nkeys = i->nkeys;
    if (n >= 0 && n < nkeys)
        strcpy(key, i->entries[n].key);
    pthread_mutex_unlock(&info_lock);
    if (n < 0 || n >= nkeys)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Info_get_nthkey: n=%d is not in [0, %d)", n, nkeys);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Info_toint)
int PMPI_Info_toint(MPI_Info info)
{
    return empi_handle_toint(info);
}

EMPI_WEAK_ALIAS(Info_fromint)
MPI_Info PMPI_Info_fromint(int info)
{
    return (MPI_Info)empi_handle_fromint(info);
}

empi_info_t *empi_info_used(const empi_info_t *info)
{
    empi_info_t *copy = empi_info_dup(info);
    if (copy && !empi_info_lookup(copy, "mpi_memory_alloc_kinds") &&
        empi_info_set(copy, "mpi_memory_alloc_kinds", "mpi,system") != MPI_SUCCESS) {
        empi_info_release(copy);
        return NULL;
    }
    return copy;
}
