#include "core/progress.h"

#include <poll.h>
#include <sched.h>

#include "core/global.h"
#include "core/tunables.h"
#include "transport/transport.h"

#define EMPI_MAX_PROGRESS_HOOKS 16
/* A sleeping process wakes at least this often, in case work arrived that no descriptor signals. */
#define EMPI_WAIT_SAFETY_MS 100

static empi_progress_hook_fn hooks[EMPI_MAX_PROGRESS_HOOKS];
static int nhooks;

/* Transports in use, set by empi_progress_set_transports at init. */
static empi_transport_t **transports;
static int ntransports;
static int yield_mode; /* 0 never, 1 when oversubscribed, 2 always */

void empi_progress_set_transports(empi_transport_t **list, int n)
{
    transports = list;
    ntransports = n;
    const char *y = empi_tunables.yield;
    if (y[0] == 'a' && y[1] == 'l')
        yield_mode = 2;
    else if (y[0] == 'n')
        yield_mode = 0;
    else
        yield_mode = empi_g.oversubscribed ? 2 : 1;
}

void empi_progress_add_hook(empi_progress_hook_fn fn)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i] == fn)
            return;
    if (nhooks < EMPI_MAX_PROGRESS_HOOKS)
        hooks[nhooks++] = fn;
}

int empi_progress_poll(void)
{
    int events = 0;
    for (int i = 0; i < ntransports; i++)
        events += transports[i]->progress();
    for (int i = 0; i < nhooks; i++)
        events += hooks[i]();
    return events;
}

int empi_progress_wait_fds(struct pollfd *fds, int max)
{
    int n = 0;
    for (int i = 0; i < ntransports; i++) {
        int fd = transports[i]->wait_fd ? transports[i]->wait_fd() : EMPI_WAIT_POLL;
        if (fd == EMPI_WAIT_NOTHING)
            continue;
        if (fd < 0 || n == max)
            return -1;
        fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
    }
    return n;
}

/*
 * Sleep until a transport has work, if every transport can say so with a descriptor (network
 * sockets) or has nothing to hear (no peers of its kind). Returns 0 when some transport must be
 * polled (shared-memory rings, queued output), and the caller yields instead.
 */
static int sleep_on_transports(void)
{
    struct pollfd fds[EMPI_MAX_WAIT_FDS];
    int n = empi_progress_wait_fds(fds, EMPI_MAX_WAIT_FDS);
    if (n <= 0)
        return 0;
    poll(fds, (nfds_t)n, EMPI_WAIT_SAFETY_MS);
    return 1;
}

/*
 * With a core to ourselves, spinning is the fastest wait; but the host may be loaded by other
 * work, and the kernel may then put the peer we wait for on our CPU, where spinning through our
 * whole time slice costs a slice per message. So after EMPI_SPIN_COUNT_ALONE polls we yield
 * every pass (a yield with nobody else to run returns at once), and only much later sleep on the
 * sockets. When ranks outnumber cores, the peer may be descheduled behind us for sure: we give it
 * the CPU after a short spin.
 */
static int should_yield(int passes)
{
    if (yield_mode == 2) {
        /* A collective needs every rank to run, so while one is in progress an oversubscribed
           rank gives its core away at once, as blocking collectives do (empi_sched_run);
           independent point-to-point pairs are better off spinning a little while their
           partner runs. */
        return passes > (empi_g.active_colls ? 0 : empi_tunables.spin_count / 16);
    }
    return yield_mode == 1 && passes > empi_tunables.spin_count_alone;
}

/* Under MPI_THREAD_MULTIPLE the big lock is dropped around the yield so other threads of this
   process can make progress too. */
static void yield_cpu(void)
{
    int depth = empi_unlock_fully();
    sched_yield();
    empi_relock(depth);
}

void empi_progress_idle(int *idle_passes)
{
    int passes = ++*idle_passes, yield = should_yield(passes);
    int sleep = yield && (yield_mode == 2 || passes > empi_tunables.spin_count * 64);
    if (empi_g.thread_multiple) {
        if (yield || passes > empi_tunables.spin_count)
            yield_cpu();
        else     /* let other threads in even while spinning */
            empi_relock(empi_unlock_fully());
        return;
    }
    if (yield && !(sleep && sleep_on_transports()))
        sched_yield();
}

int empi_progress_test(void)
{
    static _Thread_local int empty_passes;   /* consecutive, over calls */
    int events = empi_progress_poll();
    if (events)
        empty_passes = 0;
    /* Oversubscribed, from the first empty pass: a program may compute between its tests, and
       the blocking wait's 125 passes then hold the core for milliseconds while the ranks it
       waits for cannot run. */
    else if (yield_mode == 2 ? 1 : should_yield(++empty_passes))
        yield_cpu();
    return events;
}
