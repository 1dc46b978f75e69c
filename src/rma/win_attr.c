/*
 * Window attributes and hints: keyvals and cached attributes through the generic code of
 * core/attr.c, the predefined attributes (MPI_WIN_BASE ... MPI_WIN_MODEL) answered from the
 * window itself, and the info hints the window honours.
 */
#include <string.h>

#include "core/attr.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "rma/win.h"

static int is_predefined_keyval(int keyval)
{
    return keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL;
}

EMPI_WEAK_ALIAS(Win_create_keyval)
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state)
{
    if (!win_keyval)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Win_create_keyval: win_keyval is NULL");
    const char *why = "";
    empi_lock();
    int rc = empi_keyval_create(EMPI_ATTR_WIN, (void (*)(void))win_copy_attr_fn, (void (*)(void))win_delete_attr_fn,
                                extra_state, win_keyval, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Win_create_keyval: %s", why);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_free_keyval)
int PMPI_Win_free_keyval(int *win_keyval)
{
    if (!win_keyval)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Win_free_keyval: win_keyval is NULL");
    const char *why = "";
    int value = *win_keyval;
    empi_lock();
    int rc = is_predefined_keyval(value) ? MPI_ERR_KEYVAL : empi_keyval_free(EMPI_ATTR_WIN, win_keyval, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Win_free_keyval: keyval %d %s", value,
                              is_predefined_keyval(value) ? "is predefined" : why);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_set_attr)
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_set_attr", &w));
    if (is_predefined_keyval(win_keyval))
        return empi_err_win(w, MPI_ERR_KEYVAL, "MPI_Win_set_attr: keyval %d is a predefined, read-only attribute",
                            win_keyval);
    const char *why = "";
    empi_lock();
    int rc = empi_attr_set(EMPI_ATTR_WIN, w->handle, &w->attrs, win_keyval, attribute_val, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_set_attr: keyval %d %s", win_keyval, why);
    return MPI_SUCCESS;
}

/* Value of a predefined attribute: a pointer to the window's own copy (the base is the pointer). */
static void *predefined_value(empi_win_t *w, int keyval)
{
    switch (keyval) {
    case MPI_WIN_BASE: return w->base;
    case MPI_WIN_SIZE: return &w->mysize;
    case MPI_WIN_DISP_UNIT: return &w->disp_unit;
    case MPI_WIN_CREATE_FLAVOR: return &w->flavor;
    default: {
        static int unified = MPI_WIN_UNIFIED;
        return &unified;
    }
    }
}

EMPI_WEAK_ALIAS(Win_get_attr)
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_get_attr", &w));
    if (!attribute_val || !flag)
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_get_attr: %s is NULL", flag ? "attribute_val" : "flag");
    if (is_predefined_keyval(win_keyval)) {
        *flag = 1;
        *(void **)attribute_val = predefined_value(w, win_keyval);
        return MPI_SUCCESS;
    }
    const char *why = "";
    void *v = NULL;
    empi_lock();
    int rc = empi_attr_get(EMPI_ATTR_WIN, w->attrs, win_keyval, &v, flag, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_get_attr: keyval %d %s", win_keyval, why);
    if (*flag)
        *(void **)attribute_val = v;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_delete_attr)
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_delete_attr", &w));
    if (is_predefined_keyval(win_keyval))
        return empi_err_win(w, MPI_ERR_KEYVAL,
                            "MPI_Win_delete_attr: keyval %d is a predefined, read-only attribute", win_keyval);
    const char *why = "";
    empi_lock();
    int rc = empi_attr_delete(EMPI_ATTR_WIN, w->handle, &w->attrs, win_keyval, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_delete_attr: keyval %d %s", win_keyval, why);
    return MPI_SUCCESS;
}

/* ---- info hints ---- */

/* The hints a window reports, with the values it uses when the user gave none. */
static const struct {
    const char *key, *def;
} known_hints[] = {
    {"no_locks", "false"},
    {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"},
    {"same_size", "false"},
    {"same_disp_unit", "false"},
    {"alloc_shared_noncontig", "false"},
};

static int is_true(const char *v)
{
    return v && strcmp(v, "true") == 0;
}

/* Take the hints we know from `given` (may be NULL) into the window's info. */
int empi_win_apply_info(empi_win_t *w, const empi_info_t *given)
{
    if (!w->info) {
        w->info = empi_info_new();
        if (!w->info)
            return MPI_ERR_NO_MEM;
        for (size_t i = 0; i < sizeof known_hints / sizeof known_hints[0]; i++)
            if (empi_info_set(w->info, known_hints[i].key, known_hints[i].def) != MPI_SUCCESS)
                return MPI_ERR_NO_MEM;
    }
    for (size_t i = 0; given && i < sizeof known_hints / sizeof known_hints[0]; i++) {
        const char *v = empi_info_lookup(given, known_hints[i].key);
        if (v && empi_info_set(w->info, known_hints[i].key, v) != MPI_SUCCESS)
            return MPI_ERR_NO_MEM;
    }
    w->no_locks = is_true(empi_info_lookup(w->info, "no_locks"));
    return MPI_SUCCESS;
}

int empi_win_info_flag(const empi_info_t *info, const char *key)
{
    return info && is_true(empi_info_lookup(info, key));
}

EMPI_WEAK_ALIAS(Win_set_info)
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_set_info", &w));
    empi_info_t *i = NULL;
    if (info != MPI_INFO_NULL && !(i = empi_info_get(info)))
        return empi_err_win(w, MPI_ERR_INFO, "MPI_Win_set_info: invalid info %p", (void *)info);
    empi_lock();
    int rc = empi_win_apply_info(w, i);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_set_info: out of memory");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_get_info)
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_get_info", &w));
    if (!info_used)
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_get_info: info_used is NULL");
    empi_lock();
    empi_info_t *copy = empi_info_used(w->info);
    empi_unlock();
    if (!copy)
        return empi_err_win(w, MPI_ERR_NO_MEM, "MPI_Win_get_info: out of memory");
    *info_used = copy->handle;
    return MPI_SUCCESS;
}
