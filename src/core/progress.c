#include "core/progress.h"

#include <poll.h>
#include <sched.h>
#include <stdio.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/global.h"
#include "core/tunables.h"
#include "runtime/procs.h"
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

unsigned long empi_progress_moves;

int empi_progress_poll(void)
{
    int events = 0;
    for (int i = 0; i < ntransports; i++)
        events += transports[i]->progress();
    for (int i = 0; i < nhooks; i++)
        events += hooks[i]();
    if (events)
        empi_progress_moved();
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

/*
 * The deadlock watch. Processes that wait in blocking MPI calls with nothing moving for
 * EMPI_DEADLOCK_TIMEOUT seconds while all the others are in MPI_Finalize wait for each other
 * forever: none of them can send anything new. Collective calls that disagree about counts, roots
 * or order end like this, as does a receive nobody sends. The job then ends with a message instead
 * of hanging. Each waiting process publishes when its wait began and when it last looked (the
 * transports' publish_wait); one that has waited long enough checks the others, and reports once
 * the same picture holds a second later (a packet still in flight would have moved someone by
 * then). Only where every transport can tell (one host); never under MPI_THREAD_MULTIPLE (another
 * thread may still send) or with a progress thread (which takes the events a wait would see), or
 * with other jobs connected; and not in calls that must return at once: a program may poll between
 * long computations.
 */
#define WATCH_PASSES 64                 /* look at the clock every this many empty passes */
#define WATCH_PUBLISH_NS 100000000u     /* refresh what the peers see this often */
#define WATCH_FRESH_NS 2000000000u      /* a peer not seen waiting for this long may be computing */
#define WATCH_CONFIRM_NS 1000000000u    /* the second look */
static int leaving;                     /* this process is in MPI_Finalize's closing barrier */
static struct {
    uint64_t start, published, suspect_at, suspect_print;
    unsigned long moves;   /* empi_progress_moves when the quiet began */
} watch;

static void publish_wait(uint64_t start, uint64_t seen)
{
    for (int i = 0; i < ntransports; i++)
        if (transports[i]->publish_wait)
            transports[i]->publish_wait(start, seen);
}

/* 1 when every peer is leaving or has waited since `before` and looked again within `fresh` ns;
   *print: who waits since when. */
static int peers_stuck(uint64_t now, uint64_t before, uint64_t fresh, uint64_t *print)
{
    if (empi_procs_total() != empi_g.boot.size)
        return 0;
    *print = 0;
    for (int i = 0; i < ntransports; i++) {
        uint64_t latest, fp;
        if (!transports[i]->peers_waiting || !transports[i]->peers_waiting(now, fresh, &latest, &fp) ||
            latest > before)
            return 0;
        *print = *print * 31u + fp;
    }
    return 1;
}

static void watch_stall(int passes)
{
    if (passes % WATCH_PASSES != 0 || leaving || empi_tunables.deadlock_timeout <= 0 || empi_g.thread_multiple ||
        empi_tunables.async_progress)
        return;
    uint64_t now = empi_now_ns(), limit = (uint64_t)empi_tunables.deadlock_timeout * 1000000000u;
    /* A wait's loop counts polls that delivered nothing, but a collective may advance by reading
       shared memory without delivering anything: any movement starts the quiet over. */
    int fresh_quiet = passes == WATCH_PASSES || watch.moves != empi_progress_moves;
    if (fresh_quiet) {
        watch.start = now;
        watch.moves = empi_progress_moves;
        watch.suspect_at = 0;
    }
    if (fresh_quiet || now - watch.published >= WATCH_PUBLISH_NS) {
        publish_wait(watch.start, now);
        watch.published = now;
    }
    if (now - watch.start < limit || (watch.suspect_at && now - watch.suspect_at < WATCH_CONFIRM_NS))
        return;
    /* The second look wants every waiting peer to have looked again since the first: one whose
       wait ended stops looking, though its record would seem fresh for a while yet. */
    uint64_t print;
    int first = !watch.suspect_at;
    if (!peers_stuck(now, now - limit, first ? WATCH_FRESH_NS : now - watch.suspect_at, &print) ||
        (!first && print != watch.suspect_print)) {
        watch.suspect_at = 0;
        return;
    }
    if (first) {
        watch.suspect_at = now;
        watch.suspect_print = print;
        return;
    }
    char msg[320];
    snprintf(msg, sizeof msg,
             "rank %d has waited in MPI for %llu s with nothing moving, and every other process is in "
             "MPI_Finalize or waits the same way: no wait can ever end (collective calls that do not "
             "match across the processes: counts, roots, datatypes or order; or a receive no process sends)",
             empi_g.boot.rank, (unsigned long long)((now - watch.start) / 1000000000u));
    empi_fatal(MPI_ERR_OTHER, msg);
}

void empi_progress_leaving(void)
{
    leaving = 1;
    publish_wait(EMPI_WAIT_LEAVING, 0);
}

void empi_progress_yield(int *idle_passes)
{
    if (!empi_g.oversubscribed || empi_g.thread_multiple) {
        empi_progress_idle(idle_passes);
        return;
    }
    watch_stall(++*idle_passes);
    sched_yield();
}

void empi_progress_idle(int *idle_passes)
{
    int passes = ++*idle_passes, yield = should_yield(passes);
    watch_stall(passes);
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
