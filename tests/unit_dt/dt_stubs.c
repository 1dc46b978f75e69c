/*
 * The few library functions the datatype engine calls outside src/datatype/, stubbed so the
 * engine's unit tests link without the runtime: errors record their class and message for the
 * test to inspect, the lock is never taken (single-threaded), and attribute copying is a no-op.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "comm/comm.h"
#include "core/attr.h"
#include "core/error.h"
#include "core/global.h"
#include "dt_test.h"

empi_global_t empi_g;
pthread_mutex_t empi_big_lock = PTHREAD_MUTEX_INITIALIZER;
_Thread_local int empi_big_lock_depth;

int dt_last_err_class;
char dt_last_err_msg[512];

static int record(int errclass, const char *fmt, va_list ap)
{
    vsnprintf(dt_last_err_msg, sizeof dt_last_err_msg, fmt, ap);
    dt_last_err_class = errclass;
    return errclass;
}

int empi_err_noobj(int errclass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(errclass, fmt, ap);
    va_end(ap);
    return errclass;
}

int empi_err_comm(struct empi_comm *comm, int errclass, const char *fmt, ...)
{
    va_list ap;
    (void)comm;
    va_start(ap, fmt);
    record(errclass, fmt, ap);
    va_end(ap);
    return errclass;
}

static empi_comm_t fake_world;

empi_comm_t *empi_comm_get(MPI_Comm h)
{
    return h == MPI_COMM_WORLD || h == MPI_COMM_SELF ? &fake_world : NULL;
}

int empi_comm_check(MPI_Comm h, const char *fname, empi_comm_t **out)
{
    *out = empi_comm_get(h);
    return *out ? MPI_SUCCESS : empi_err_noobj(MPI_ERR_COMM, "%s: comm is not a valid communicator", fname);
}

int empi_attr_copy_all(empi_attr_kind_t kind, void *old_handle, empi_attr_t *old_attrs, void *new_handle,
                       empi_attr_t **new_attrs)
{
    (void)kind, (void)old_handle, (void)old_attrs, (void)new_handle;
    *new_attrs = NULL;
    return MPI_SUCCESS;
}

int empi_attr_delete_all(empi_attr_kind_t kind, void *handle, empi_attr_t **attrs)
{
    (void)kind, (void)handle;
    *attrs = NULL;
    return MPI_SUCCESS;
}
