/*
 * MPI_Session_init / finalize and the session queries: process sets, info, error handlers.
 * A session holds one reference on the shared MPI layers, so sessions and the world model can be
 * started and finished in any order.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "comm/intercomm.h"
#include "comm/session.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "pt2pt/bsend.h"

static empi_pool_t session_pool = EMPI_POOL_INITIALIZER(empi_session_t, "session");
static pthread_mutex_t session_pool_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const pset_names[] = {"mpi://WORLD", "mpi://SELF"};
#define NUM_PSETS ((int)(sizeof pset_names / sizeof pset_names[0]))

empi_session_t *empi_session_get(MPI_Session h)
{
    if (empi_handle_is_predefined(h))
        return NULL;
    empi_session_t *s = (empi_session_t *)h;
    return s->obj.magic == EMPI_MAGIC_SESSION ? s : NULL;
}

int empi_session_check(MPI_Session h, const char *fname, empi_session_t **out)
{
    *out = empi_session_get(h);
    if (*out)
        return MPI_SUCCESS;
    return empi_err_noobj(MPI_ERR_SESSION, "%s: %s", fname,
                          h == MPI_SESSION_NULL ? "the session is MPI_SESSION_NULL" : "invalid session (finalized?)");
}

int empi_err_session(empi_session_t *s, int errclass, const char *fmt, ...)
{
    char text[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    MPI_Session handle = s->handle;
    return empi_err_handler(s->errhandler, EMPI_EH_KIND_SESSION, &handle, errclass, "%s", text);
}

static int handler_fits_sessions(const empi_errhandler_t *eh)
{
    return eh && (eh->kind == EMPI_EH_KIND_ANY || eh->kind == EMPI_EH_KIND_SESSION);
}

static const char *const level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                          "MPI_THREAD_MULTIPLE"};
static const int level_values[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                   MPI_THREAD_MULTIPLE};

/* The "thread_level" hint: we support every level, so the one asked for is the one provided. */
static int requested_level(const empi_info_t *info)
{
    const char *v = info ? empi_info_lookup(info, "thread_level") : NULL;
    for (int i = 0; v && i < 4; i++)
        if (strcasecmp(v, level_names[i]) == 0)
            return level_values[i];
    return MPI_THREAD_SINGLE;
}

static const char *level_name(int level)
{
    for (int i = 0; i < 4; i++)
        if (level_values[i] == level)
            return level_names[i];
    return level_names[0];
}

EMPI_WEAK_ALIAS(Session_init)
int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char fn[] = "MPI_Session_init";
    empi_errhandler_t *eh = empi_errhandler_get(errhandler);
    if (!handler_fits_sessions(eh))
        return empi_err_noobj(MPI_ERR_ARG, "%s: errhandler is not a valid session error handler", fn);
    MPI_Session none = MPI_SESSION_NULL;
    empi_info_t *hints = NULL;
    if (info != MPI_INFO_NULL && !(hints = empi_info_get(info)))
        return empi_err_handler(eh, EMPI_EH_KIND_SESSION, &none, MPI_ERR_INFO, "%s: invalid info %p", fn, (void *)info);
    if (!session)
        return empi_err_handler(eh, EMPI_EH_KIND_SESSION, &none, MPI_ERR_ARG, "%s: session is NULL", fn);
    int level = requested_level(hints);
    int rc = empi_instance_acquire(level);
    if (rc != MPI_SUCCESS)
        return empi_err_handler(eh, EMPI_EH_KIND_SESSION, &none, rc, "%s: cannot start the MPI runtime", fn);
    pthread_mutex_lock(&session_pool_lock);
    empi_session_t *s = empi_pool_alloc(&session_pool);
    pthread_mutex_unlock(&session_pool_lock);
    if (!s) {
        empi_instance_release(NULL);
        return empi_err_handler(eh, EMPI_EH_KIND_SESSION, &none, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    s->obj.magic = EMPI_MAGIC_SESSION;
    s->obj.refcount = 1;
    s->handle = (MPI_Session)s;
    s->thread_level = level;
    empi_errhandler_retain(eh);
    s->errhandler = eh;
    *session = s->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Session_finalize)
int PMPI_Session_finalize(MPI_Session *session)
{
    static const char fn[] = "MPI_Session_finalize";
    empi_session_t *s;
    if (!session)
        return empi_err_noobj(MPI_ERR_ARG, "%s: session is NULL", fn);
    EMPI_CHECK(empi_session_check(*session, fn, &s));
    /* detached implicitly, as MPI_Finalize does the process's buffer and MPI_Comm_free a
       communicator's */
    empi_bsend_detach_at_end(&s->buffer);
    empi_errhandler_release(s->errhandler);
    pthread_mutex_lock(&session_pool_lock);
    empi_pool_free(&session_pool, s);
    pthread_mutex_unlock(&session_pool_lock);
    *session = MPI_SESSION_NULL;
    empi_instance_release(NULL);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Session_get_num_psets)
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    empi_session_t *s;
    (void)info;
    EMPI_CHECK(empi_session_check(session, "MPI_Session_get_num_psets", &s));
    if (!npset_names)
        return empi_err_session(s, MPI_ERR_ARG, "MPI_Session_get_num_psets: npset_names is NULL");
    *npset_names = NUM_PSETS;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Session_get_nth_pset)
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name)
{
    static const char fn[] = "MPI_Session_get_nth_pset";
    empi_session_t *s;
    (void)info;
    EMPI_CHECK(empi_session_check(session, fn, &s));
    if (n < 0 || n >= NUM_PSETS)
        return empi_err_session(s, MPI_ERR_ARG, "%s: n %d is not below the number of process sets (%d)", fn, n,
                                NUM_PSETS);
    if (!pset_len || (*pset_len > 0 && !pset_name))
        return empi_err_session(s, MPI_ERR_ARG, "%s: %s is NULL", fn, pset_len ? "pset_name" : "pset_len");
    int need = (int)strlen(pset_names[n]) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", pset_names[n]);  /* truncated if short */
    *pset_len = need;
    return MPI_SUCCESS;
}

/* Index of a process set name, or -1. Names compare without case: the "mpi://" scheme is ours. */
static int pset_index(const char *name)
{
    for (int i = 0; name && i < NUM_PSETS; i++)
        if (strcasecmp(name, pset_names[i]) == 0)
            return i;
    return -1;
}

EMPI_WEAK_ALIAS(Session_get_pset_info)
int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char fn[] = "MPI_Session_get_pset_info";
    empi_session_t *s;
    EMPI_CHECK(empi_session_check(session, fn, &s));
    if (!info)
        return empi_err_session(s, MPI_ERR_ARG, "%s: info is NULL", fn);
    int which = pset_index(pset_name);
    if (which < 0)
        return empi_err_session(s, MPI_ERR_ARG, "%s: no process set named \"%s\"", fn, pset_name ? pset_name : "(null)");
    empi_info_t *i = empi_info_new();
    char size[16];
    snprintf(size, sizeof size, "%d", which == 0 ? empi_g.boot.size : 1);
    if (!i || empi_info_set(i, "mpi_size", size) != MPI_SUCCESS) {
        empi_info_release(i);
        return empi_err_session(s, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    *info = i->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Group_from_session_pset)
int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_from_session_pset";
    empi_session_t *s;
    EMPI_CHECK(empi_session_check(session, fn, &s));
    if (!newgroup)
        return empi_err_session(s, MPI_ERR_ARG, "%s: newgroup is NULL", fn);
    int which = pset_index(pset_name);
    if (which < 0)
        return empi_err_session(s, MPI_ERR_ARG, "%s: no process set named \"%s\"", fn, pset_name ? pset_name : "(null)");
    empi_group_t *g = which == 0 ? empi_group_new(empi_comm_boot.size, empi_comm_boot.group->world_ranks)
                                 : empi_group_new(1, &empi_g.boot.rank);
    if (!g)
        return empi_err_session(s, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    g->session = s;   /* communicators made from it use the session's buffered-send buffer */
    *newgroup = g->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Session_get_info)
int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    empi_session_t *s;
    EMPI_CHECK(empi_session_check(session, "MPI_Session_get_info", &s));
    if (!info_used)
        return empi_err_session(s, MPI_ERR_ARG, "MPI_Session_get_info: info_used is NULL");
    empi_info_t *i = empi_info_used(NULL);
    if (!i || empi_info_set(i, "thread_level", level_name(s->thread_level)) != MPI_SUCCESS) {
        empi_info_release(i);
        return empi_err_session(s, MPI_ERR_NO_MEM, "MPI_Session_get_info: out of memory");
    }
    *info_used = i->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Session_set_errhandler)
int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    empi_session_t *s;
    EMPI_CHECK(empi_session_check(session, "MPI_Session_set_errhandler", &s));
    empi_errhandler_t *eh = empi_errhandler_get(errhandler);
    if (!handler_fits_sessions(eh))
        return empi_err_session(s, MPI_ERR_ARG, "MPI_Session_set_errhandler: errhandler is not a session handler");
    empi_errhandler_retain(eh);
    empi_lock();
    empi_errhandler_t *old = s->errhandler;
    s->errhandler = eh;
    empi_unlock();
    empi_errhandler_release(old);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Session_get_errhandler)
int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    empi_session_t *s;
    EMPI_CHECK(empi_session_check(session, "MPI_Session_get_errhandler", &s));
    if (!errhandler)
        return empi_err_session(s, MPI_ERR_ARG, "MPI_Session_get_errhandler: errhandler is NULL");
    empi_lock();
    empi_errhandler_retain(s->errhandler);
    *errhandler = s->errhandler->handle;
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Session_call_errhandler)
int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    empi_session_t *s;
    EMPI_CHECK(empi_session_check(session, "MPI_Session_call_errhandler", &s));
    MPI_Session handle = s->handle;
    empi_errhandler_invoke(s->errhandler, EMPI_EH_KIND_SESSION, &handle, errorcode);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Session_toint)
int PMPI_Session_toint(MPI_Session session)
{
    return empi_handle_toint(session);
}

EMPI_WEAK_ALIAS(Session_fromint)
MPI_Session PMPI_Session_fromint(int session)
{
    return (MPI_Session)empi_handle_fromint(session);
}
