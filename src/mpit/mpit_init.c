/*
 * MPI_T_init_thread and MPI_T_finalize: a reference count, usable before MPI_Init and after
 * MPI_Finalize, plus the locking and string helpers every MPI_T call uses.
 */
#include <pthread.h>
#include <string.h>

#include "core/global.h"
#include "core/tunables.h"
#include "mpit/mpit.h"

static pthread_mutex_t mpit_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_count;                  /* MPI_T_init_thread calls not yet finalized */
static _Thread_local int holds_big_lock; /* whether this thread's enter took the big lock */

static void lock_all(void)
{
    holds_big_lock = empi_g.thread_multiple;
    if (holds_big_lock)
        empi_lock();
    pthread_mutex_lock(&mpit_lock);
}

static void unlock_all(void)
{
    pthread_mutex_unlock(&mpit_lock);
    if (holds_big_lock)
        empi_unlock();
    holds_big_lock = 0;
}

int empi_mpit_enter(void)
{
    lock_all();
    if (init_count > 0)
        return MPI_SUCCESS;
    unlock_all();
    return MPI_T_ERR_NOT_INITIALIZED;
}

int empi_mpit_exit(int rc)
{
    unlock_all();
    return rc;
}

int empi_mpit_enter_arg(const void *arg)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS || arg)
        return rc;
    return empi_mpit_exit(MPI_T_ERR_INVALID);
}

int empi_mpit_report_int(int *out, int value)
{
    int rc = empi_mpit_enter_arg(out);
    if (rc != MPI_SUCCESS)
        return rc;
    *out = value;
    return empi_mpit_exit(MPI_SUCCESS);
}

void empi_mpit_copy_string(const char *src, char *buf, int *len)
{
    if (!len)
        return;
    int full = (int)strlen(src) + 1;
    if (buf && *len > 0) {
        int n = full < *len ? full - 1 : *len - 1;
        memcpy(buf, src, (size_t)n);
        buf[n] = '\0';
    }
    *len = full;
}

EMPI_WEAK_ALIAS(T_init_thread)
int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    lock_all();
    /* Before MPI_Init the registry is still empty: read the environment now so cvars show the
       values MPI_Init would use (and writes made now survive it, see empi_tunable_set). */
    if (init_count++ == 0 && !empi_tunables_loaded() &&
        atomic_load(&empi_g.state) == EMPI_STATE_PRE_INIT)
        empi_tunables_load();
    unlock_all();
    /* Every MPI_T call serializes on mpit_lock, so any thread level can be provided. */
    int known = required == MPI_THREAD_SINGLE || required == MPI_THREAD_FUNNELED ||
                required == MPI_THREAD_SERIALIZED || required == MPI_THREAD_MULTIPLE;
    *provided = known ? required : MPI_THREAD_MULTIPLE;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(T_finalize)
int PMPI_T_finalize(void)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (--init_count == 0) {
        empi_mpit_cvar_release_all();
        empi_mpit_pvar_release_all();
    }
    return empi_mpit_exit(MPI_SUCCESS);
}
