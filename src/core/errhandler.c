/*
 * Error handler objects and the API that creates, attaches and frees them. The three predefined
 * handlers are static objects named by their ABI handle values; user handlers come from a pool
 * and are reference counted because every communicator they are attached to holds a reference.
 */
#include "comm/comm.h"
#include "core/errhandler.h"
#include "core/error.h"
#include "core/global.h"

empi_errhandler_t empi_errhandler_fatal = {{EMPI_MAGIC_ERRHANDLER, 1}, EMPI_EH_FATAL, EMPI_EH_KIND_ANY,
                                           MPI_ERRORS_ARE_FATAL, {0}};
empi_errhandler_t empi_errhandler_abort = {{EMPI_MAGIC_ERRHANDLER, 1}, EMPI_EH_ABORT, EMPI_EH_KIND_ANY,
                                           MPI_ERRORS_ABORT, {0}};
empi_errhandler_t empi_errhandler_return = {{EMPI_MAGIC_ERRHANDLER, 1}, EMPI_EH_RETURN, EMPI_EH_KIND_ANY,
                                            MPI_ERRORS_RETURN, {0}};

static empi_pool_t errhandler_pool = EMPI_POOL_INITIALIZER(empi_errhandler_t, "errhandler");

static int is_predefined(const empi_errhandler_t *eh)
{
    return eh == &empi_errhandler_fatal || eh == &empi_errhandler_abort || eh == &empi_errhandler_return;
}

empi_errhandler_t *empi_errhandler_get(MPI_Errhandler h)
{
    if (h == MPI_ERRORS_ARE_FATAL)
        return &empi_errhandler_fatal;
    if (h == MPI_ERRORS_ABORT)
        return &empi_errhandler_abort;
    if (h == MPI_ERRORS_RETURN)
        return &empi_errhandler_return;
    if (empi_handle_is_predefined(h))
        return NULL;
    empi_errhandler_t *eh = (empi_errhandler_t *)h;
    return eh->obj.magic == EMPI_MAGIC_ERRHANDLER ? eh : NULL;
}

void empi_errhandler_retain(empi_errhandler_t *eh)
{
    if (eh && !is_predefined(eh))
        __atomic_add_fetch(&eh->obj.refcount, 1, __ATOMIC_RELAXED);
}

void empi_errhandler_release(empi_errhandler_t *eh)
{
    if (!eh || is_predefined(eh))
        return;
    if (__atomic_sub_fetch(&eh->obj.refcount, 1, __ATOMIC_ACQ_REL) == 0) {
        empi_lock();
        empi_pool_free(&errhandler_pool, eh);
        empi_unlock();
    }
}

static int create(empi_eh_kind_t kind, void (*fn)(void), MPI_Errhandler *out, const char *fname)
{
    if (!fn)
        return empi_err_noobj(MPI_ERR_ARG, "%s: the error handler function is NULL", fname);
    if (!out)
        return empi_err_noobj(MPI_ERR_ARG, "%s: errhandler is NULL", fname);
    empi_lock();
    empi_errhandler_t *eh = empi_pool_alloc(&errhandler_pool);
    empi_unlock();
    if (!eh)
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    eh->obj.magic = EMPI_MAGIC_ERRHANDLER;
    eh->obj.refcount = 1;
    eh->action = EMPI_EH_USER;
    eh->kind = kind;
    eh->handle = (MPI_Errhandler)eh;
    /* All four function types are called with (handle *, int *, ...); the kind says which. */
    switch (kind) {
    case EMPI_EH_KIND_COMM: eh->u.comm_fn = (MPI_Comm_errhandler_function *)fn; break;
    case EMPI_EH_KIND_WIN: eh->u.win_fn = (MPI_Win_errhandler_function *)fn; break;
    case EMPI_EH_KIND_FILE: eh->u.file_fn = (MPI_File_errhandler_function *)fn; break;
    default: eh->u.session_fn = (MPI_Session_errhandler_function *)fn; break;
    }
    *out = eh->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_create_errhandler)
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    return create(EMPI_EH_KIND_COMM, (void (*)(void))comm_errhandler_fn, errhandler, "MPI_Comm_create_errhandler");
}

EMPI_WEAK_ALIAS(Win_create_errhandler)
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler)
{
    return create(EMPI_EH_KIND_WIN, (void (*)(void))win_errhandler_fn, errhandler, "MPI_Win_create_errhandler");
}

EMPI_WEAK_ALIAS(File_create_errhandler)
int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler)
{
    return create(EMPI_EH_KIND_FILE, (void (*)(void))file_errhandler_fn, errhandler, "MPI_File_create_errhandler");
}

EMPI_WEAK_ALIAS(Session_create_errhandler)
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    return create(EMPI_EH_KIND_SESSION, (void (*)(void))session_errhandler_fn, errhandler,
                  "MPI_Session_create_errhandler");
}

EMPI_WEAK_ALIAS(Errhandler_free)
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (!errhandler)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Errhandler_free: errhandler is NULL");
    empi_errhandler_t *eh = empi_errhandler_get(*errhandler);
    if (!eh)
        return empi_err_noobj(MPI_ERR_ERRHANDLER, "MPI_Errhandler_free: invalid error handler %p",
                              (void *)*errhandler);
    /* Freeing a predefined handler got from MPI_Comm_get_errhandler is harmless: nothing to free. */
    empi_errhandler_release(eh);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_set_errhandler)
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_set_errhandler", &c));
    empi_errhandler_t *eh = empi_errhandler_get(errhandler);
    if (!eh)
        return empi_err_comm(c, MPI_ERR_ERRHANDLER, "MPI_Comm_set_errhandler: invalid error handler %p", (void *)errhandler);
    if (eh->kind != EMPI_EH_KIND_ANY && eh->kind != EMPI_EH_KIND_COMM)
        return empi_err_comm(c, MPI_ERR_ARG,
                             "MPI_Comm_set_errhandler: the error handler was not created for communicators");
    empi_lock();
    empi_errhandler_t *old = c->errhandler;
    empi_errhandler_retain(eh);
    c->errhandler = eh;
    empi_unlock();
    empi_errhandler_release(old);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_get_errhandler)
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_get_errhandler", &c));
    if (!errhandler)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_get_errhandler: errhandler is NULL");
    empi_lock();
    empi_errhandler_t *eh = c->errhandler ? c->errhandler : &empi_errhandler_fatal;
    /* The caller receives a new reference, released by MPI_Errhandler_free. */
    empi_errhandler_retain(eh);
    *errhandler = eh->handle;
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_call_errhandler)
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_call_errhandler", &c));
    if (empi_error_class_of(errorcode) < 0)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_call_errhandler: %d is not a valid error code", errorcode);
    MPI_Comm handle = c->handle;
    empi_errhandler_invoke(c->errhandler, EMPI_EH_KIND_COMM, &handle, errorcode);
    /* The standard: success once the handler has been called and returned. */
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Errhandler_toint)
int PMPI_Errhandler_toint(MPI_Errhandler errhandler)
{
    return empi_handle_toint(errhandler);
}

EMPI_WEAK_ALIAS(Errhandler_fromint)
MPI_Errhandler PMPI_Errhandler_fromint(int errhandler)
{
    return (MPI_Errhandler)empi_handle_fromint(errhandler);
}
