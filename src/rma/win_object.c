/*
 * Window objects: handle lookup, the pool they come from, and the small per-window API that only
 * reads or sets fields (group, name, error handlers, Fortran integer handles).
 */
#include <string.h>

#include "core/error.h"
#include "core/global.h"
#include "rma/win.h"

static empi_pool_t win_pool = EMPI_POOL_INITIALIZER(empi_win_t, "window");

extern empi_errhandler_t *(*empi_win_errhandler_hook)(struct empi_win *win, MPI_Win *handle_out);

empi_errhandler_t *empi_win_errhandler_of(struct empi_win *win, MPI_Win *handle_out)
{
    *handle_out = win->handle;
    return win->errhandler;
}

empi_win_t *empi_win_get(MPI_Win h)
{
    if (empi_handle_is_predefined(h))
        return NULL;
    empi_win_t *w = (empi_win_t *)h;
    return w->obj.magic == EMPI_MAGIC_WIN ? w : NULL;
}

int empi_win_check(MPI_Win h, const char *fname, empi_win_t **out)
{
    *out = empi_win_get(h);
    if (EMPI_UNLIKELY(!*out))
        return empi_err_noobj(MPI_ERR_WIN, "%s: invalid window %p", fname, (void *)h);
    return MPI_SUCCESS;
}

empi_win_t *empi_win_alloc(void)
{
    empi_win_errhandler_hook = empi_win_errhandler_of;
    empi_win_t *w = empi_pool_alloc(&win_pool);
    if (!w)
        return NULL;
    w->obj.magic = EMPI_MAGIC_WIN;
    w->obj.refcount = 1;
    w->handle = (MPI_Win)w;
    w->errhandler = &empi_errhandler_fatal;
    return w;
}

void empi_win_destroy(empi_win_t *w)
{
    empi_errhandler_release(w->errhandler);
    empi_pool_free(&win_pool, w);
}

EMPI_WEAK_ALIAS(Win_get_group)
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_get_group", &w));
    if (!group)
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_get_group: group is NULL");
    empi_group_retain(w->comm->group);
    *group = w->comm->group->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_set_name)
int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_set_name", &w));
    if (!win_name)
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_set_name: win_name is NULL");
    empi_lock();
    strncpy(w->name, win_name, MPI_MAX_OBJECT_NAME - 1);
    w->name[MPI_MAX_OBJECT_NAME - 1] = '\0';
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_get_name)
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    empi_win_t *w;
    if (win == MPI_WIN_NULL)
        return empi_name_of_null("MPI_Win_get_name", "MPI_WIN_NULL", win_name, resultlen);
    EMPI_CHECK(empi_win_check(win, "MPI_Win_get_name", &w));
    if (!win_name || !resultlen)
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_get_name: %s is NULL", win_name ? "resultlen" : "win_name");
    empi_lock();
    strcpy(win_name, w->name);
    *resultlen = (int)strlen(w->name);
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_set_errhandler)
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_set_errhandler", &w));
    empi_errhandler_t *eh = empi_errhandler_get(errhandler);
    if (!eh)
        return empi_err_win(w, MPI_ERR_ERRHANDLER, "MPI_Win_set_errhandler: invalid error handler %p", (void *)errhandler);
    if (eh->kind != EMPI_EH_KIND_ANY && eh->kind != EMPI_EH_KIND_WIN)
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_set_errhandler: the error handler was not created for windows");
    empi_lock();
    empi_errhandler_t *old = w->errhandler;
    empi_errhandler_retain(eh);
    w->errhandler = eh;
    empi_unlock();
    empi_errhandler_release(old);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_get_errhandler)
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_get_errhandler", &w));
    if (!errhandler)
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_get_errhandler: errhandler is NULL");
    empi_lock();
    empi_errhandler_retain(w->errhandler);   /* released by MPI_Errhandler_free */
    *errhandler = w->errhandler->handle;
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_call_errhandler)
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_call_errhandler", &w));
    if (empi_error_class_of(errorcode) < 0)
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_call_errhandler: %d is not a valid error code", errorcode);
    MPI_Win handle = w->handle;
    empi_errhandler_invoke(w->errhandler, EMPI_EH_KIND_WIN, &handle, errorcode);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_toint)
int PMPI_Win_toint(MPI_Win win)
{
    return empi_handle_toint(win);
}

EMPI_WEAK_ALIAS(Win_fromint)
MPI_Win PMPI_Win_fromint(int win)
{
    return (MPI_Win)empi_handle_fromint(win);
}
