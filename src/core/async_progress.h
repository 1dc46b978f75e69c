/*
 * The asynchronous progress thread (EMPI_ASYNC_PROGRESS): while the application computes outside
 * MPI, it runs progress passes under the library lock, so a passive-target one-sided operation
 * reached by active messages, a rendezvous or a nonblocking collective aimed at this process
 * completes without the process calling MPI.
 */
#ifndef EMPI_ASYNC_PROGRESS_H
#define EMPI_ASYNC_PROGRESS_H

/* Start the thread if the tunable asks for it; turns the library lock on. 0, or -1 on failure. */
int empi_async_progress_start(void);

/* Stop and join the thread (no-op when none runs). Call without holding the library lock. */
void empi_async_progress_stop(void);

#endif
