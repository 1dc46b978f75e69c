/*
 * The progress engine: one pass polls every transport and pushes queued work (sends waiting for
 * ring space, rendezvous pipelines, nonblocking collective schedules). Waits call it in a loop and,
 * when a pass found nothing, back off: spin a little, then yield the CPU if the host is
 * oversubscribed, so a peer that shares our core can run. No fixed sleeps.
 */
#ifndef EMPI_PROGRESS_H
#define EMPI_PROGRESS_H

struct empi_transport;
/* The transports in use, in the order they are polled (set once at init). */
void empi_progress_set_transports(struct empi_transport **list, int n);

/* Work queued by upper layers that progress must push; returns how much it advanced. */
typedef int (*empi_progress_hook_fn)(void);

/* Register a hook that each progress pass calls (pt2pt pending sends, collective schedules...). */
void empi_progress_add_hook(empi_progress_hook_fn fn);

/* One pass; returns the number of events (packets delivered, operations advanced). */
int empi_progress_poll(void);

/*
 * The descriptors that signal work for every transport with something to hear, into fds (at most
 * max); returns how many, or -1 when some transport can only be polled (shared-memory rings,
 * queued output). Call with the library lock held.
 */
struct pollfd;
#define EMPI_MAX_WAIT_FDS 8
int empi_progress_wait_fds(struct pollfd *fds, int max);

/* Anything that moved in this process: packets, collective steps (the deadlock watch tells a slow
   wait from a stuck one by it). Bumped under the library lock. */
extern unsigned long empi_progress_moves;
static inline void empi_progress_moved(void)
{
    empi_progress_moves++;
}

/* Called after a pass that found nothing; *idle_passes counts consecutive empty passes. */
void empi_progress_idle(int *idle_passes);
/* The same for waits on other ranks' steps (collectives): when ranks outnumber cores (and one
   thread calls MPI) it yields at once, since the rank waited for may need this core; else idle. */
void empi_progress_yield(int *idle_passes);
/* This process enters MPI_Finalize's closing barrier: the transports tell their peers, whose
   deadlock watch (progress.c) may then find a wait of theirs hopeless. */
void empi_progress_leaving(void);

/*
 * The pass of a call that must return at once (MPI_Test*, MPI_Iprobe, MPI_Request_get_status*,
 * MPI_Parrived). Programs that spin on such calls wait as surely as a blocking call does, so it
 * yields the CPU too (never sleeps): with a core to itself after as many empty passes in a row as
 * a blocking wait would spin, with ranks outnumbering cores on every empty pass.
 */
int empi_progress_test(void);

/* Poll until `cond` holds. `cond` is re-evaluated after every pass. */
#define EMPI_PROGRESS_UNTIL(cond)                                  \
    do {                                                           \
        int empi_idle_passes_ = 0;                                 \
        while (!(cond)) {                                          \
            if (empi_progress_poll() == 0)                         \
                empi_progress_idle(&empi_idle_passes_);            \
            else                                                   \
                empi_idle_passes_ = 0;                             \
        }                                                          \
    } while (0)

#endif
