#include "core/async_progress.h"

#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/global.h"
#include "core/progress.h"
#include "core/tunables.h"

static pthread_t thread;
static int running;
static atomic_int stop;

/*
 * Work comes in exchanges (a lock request, then the operations, then the unlock), so after a pass
 * that found work the thread keeps polling for a while (EMPI_SPIN_COUNT passes) before it naps; a
 * nap is cut short by a socket when every transport can signal with a descriptor. The lock is held
 * only during a pass, so an application thread entering MPI waits at most one pass.
 */
static void *progress_main(void *arg)
{
    (void)arg;
    long us = empi_tunables.async_progress_interval > 0 ? empi_tunables.async_progress_interval : 1;
    struct timespec nap = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
    struct pollfd fds[EMPI_MAX_WAIT_FDS];
    int spin = empi_tunables.spin_count, idle = spin;
    while (!atomic_load_explicit(&stop, memory_order_acquire)) {
        empi_lock();
        int events = empi_progress_poll();
        int nfds = events || idle < spin ? 0 : empi_progress_wait_fds(fds, EMPI_MAX_WAIT_FDS);
        empi_unlock();
        if (events) {
            idle = 0;
        } else if (idle < spin) {
            idle++;
        } else if (nfds > 0) {
            ppoll(fds, (nfds_t)nfds, &nap, NULL);
        } else {
            nanosleep(&nap, NULL);
        }
    }
    return NULL;
}

int empi_async_progress_start(void)
{
    if (!empi_tunables.async_progress || running)
        return 0;
    empi_g.thread_multiple = 1; /* the thread and the application now share the library */
    atomic_store(&stop, 0);
    int rc = pthread_create(&thread, NULL, progress_main, NULL);
    if (rc != 0) {
        fprintf(stderr, "EtherMPI: rank %d: cannot start the progress thread: %s\n",
                empi_g.boot.rank, strerror(rc));
        return -1;
    }
    running = 1;
    return 0;
}

void empi_async_progress_stop(void)
{
    if (!running)
        return;
    atomic_store_explicit(&stop, 1, memory_order_release);
    pthread_join(thread, NULL);
    running = 0;
}
