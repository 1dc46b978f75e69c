/* Process-wide state of the library, and the lock that guards it under MPI_THREAD_MULTIPLE. */
#ifndef EMPI_GLOBAL_H
#define EMPI_GLOBAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "mpi.h"
#include "runtime/bootstrap.h"

typedef enum { EMPI_STATE_PRE_INIT, EMPI_STATE_INITIALIZED, EMPI_STATE_FINALIZED } empi_state_t;

typedef struct empi_global {
    _Atomic int state;           /* empi_state_t */
    int thread_level;            /* provided level */
    int thread_multiple;         /* thread_level == MPI_THREAD_MULTIPLE: take the big lock */
    pthread_t main_thread;
    empi_boot_info_t boot;
    int oversubscribed;          /* more ranks on this host than cores we may run on */
    int active_colls;            /* nonblocking collective schedules in progress */
    char processor_name[MPI_MAX_PROCESSOR_NAME];
} empi_global_t;

extern empi_global_t empi_g;

/* Why MPI cannot be used now, for error messages: "not initialized" or "already finalized". */
static inline const char *empi_not_running_text(void)
{
    return atomic_load(&empi_g.state) == EMPI_STATE_FINALIZED ? "already finalized" : "not initialized";
}

/*
 * One lock serializes the library under MPI_THREAD_MULTIPLE. A thread may take it again (user
 * callbacks such as error handlers, attribute copy and delete functions and reduction ops call MPI
 * again), so it counts how deep it holds it and only the outermost level touches the mutex. A wait
 * gives it up entirely while it yields, however deep: a callback blocked in MPI_Recv must let the
 * thread that will send in (MPI 4.1 11.6.2: a blocking call blocks the calling thread only).
 */
extern pthread_mutex_t empi_big_lock;
extern _Thread_local int empi_big_lock_depth;

static inline void empi_lock(void)
{
    if (empi_g.thread_multiple && empi_big_lock_depth++ == 0)
        pthread_mutex_lock(&empi_big_lock);
}

static inline void empi_unlock(void)
{
    if (empi_g.thread_multiple && --empi_big_lock_depth == 0)
        pthread_mutex_unlock(&empi_big_lock);
}

/* Give the lock up at every depth this thread holds it; returns the depth for empi_relock. */
static inline int empi_unlock_fully(void)
{
    int depth = empi_big_lock_depth;
    if (depth > 0) {
        empi_big_lock_depth = 0;
        pthread_mutex_unlock(&empi_big_lock);
    }
    return depth;
}

static inline void empi_relock(int depth)
{
    if (depth > 0) {
        pthread_mutex_lock(&empi_big_lock);
        empi_big_lock_depth = depth;
    }
}

static inline int empi_is_initialized(void)
{
    return atomic_load_explicit(&empi_g.state, memory_order_acquire) == EMPI_STATE_INITIALIZED;
}

/*
 * The layers below the world model, shared by MPI_Init and every MPI_Session_init (core/init.c):
 * the first acquire brings them up (collective over all processes, like MPI_Init), the last release
 * tears them down, running `quiesced` once no traffic is left (NULL: nothing). Acquire returns an
 * MPI error class and never raises.
 */
int empi_instance_acquire(int thread_level);
void empi_instance_release(void (*quiesced)(void));

#define EMPI_LIKELY(x) __builtin_expect(!!(x), 1)
#define EMPI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define EMPI_CACHELINE 64

/* Export an MPI_X as an alias of the PMPI_X defined just below it (profiling interposition). Weak
   without LTO; GCC's LTO exports it strong, which a shared library's interposition does not mind
   (docs/ARCHITECTURE.md). */
#define EMPI_PRAGMA(x) _Pragma(#x)
#define EMPI_WEAK_ALIAS(name) EMPI_PRAGMA(weak MPI_##name = PMPI_##name)

#endif
