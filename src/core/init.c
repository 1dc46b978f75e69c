/* MPI_Init and MPI_Finalize: bring the layers up bottom to top and down top to bottom. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "comm/dyn.h"
#include "comm/intercomm.h"
#include "core/async_progress.h"
#include "core/binding.h"
#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "core/tunables.h"
#include "datatype/datatype.h"
#include "pt2pt/pt2pt.h"
#include "runtime/cpu_census.h"
#include "transport/net_select.h"
#include "transport/transport.h"

empi_global_t empi_g;
pthread_mutex_t empi_big_lock;
_Thread_local int empi_big_lock_depth;

void empi_pt2pt_deliver(int src, const void *pkt, size_t len);
void empi_wtime_init(void);
void empi_transports_select(void);

/* self and shm first; then the network transports EMPI_TRANSPORT asks for (net_select.c). */
#define EMPI_MAX_TRANSPORTS 4
static empi_transport_t *active_transports[EMPI_MAX_TRANSPORTS];
static int nactive;

static void init_lock(void)
{
    pthread_mutex_init(&empi_big_lock, NULL);
}

static int start_transports(void)
{
    empi_transport_t *wanted[EMPI_MAX_TRANSPORTS] = {&empi_transport_self, &empi_transport_shm};
    if (empi_net_select_init(&empi_g.boot) != 0)
        return -1;
    int n = 2 + empi_net_transports(wanted + 2, EMPI_MAX_TRANSPORTS - 2);
    for (int i = 0; i < n; i++) {
        if (wanted[i]->init(&empi_g.boot, empi_pt2pt_deliver) != EMPI_OK) {
            fprintf(stderr, "EtherMPI: rank %d: the %s transport failed to start\n", empi_g.boot.rank,
                    wanted[i]->name);
            return -1;
        }
        active_transports[nactive++] = wanted[i];
    }
    empi_progress_set_transports(active_transports, nactive);
    return 0;
}

static int is_network(const empi_transport_t *tp)
{
    return tp == &empi_transport_tcp || tp == &empi_transport_udp || tp == &empi_transport_ofi;
}

/* The transport that reaches world rank `peer`, or NULL. Between hosts, net_select decides; every
   process of another job is reached over tcp. */
empi_transport_t *empi_transport_for(int peer)
{
    if (peer >= empi_g.boot.size)
        return empi_transport_tcp.reaches(peer) ? &empi_transport_tcp : NULL;
    empi_transport_t *net = empi_net_transport_for(peer);
    for (int i = 0; i < nactive; i++)
        if ((!is_network(active_transports[i]) || active_transports[i] == net) &&
            active_transports[i]->reaches(peer))
            return active_transports[i];
    return NULL;
}

int empi_transport_add_peers(int total)
{
    int started = 0;
    for (int i = 0; i < nactive; i++)
        started |= active_transports[i] == &empi_transport_tcp;
    if (!started) {
        if (nactive == EMPI_MAX_TRANSPORTS || empi_transport_tcp.init(&empi_g.boot, empi_pt2pt_deliver) != EMPI_OK)
            return MPI_ERR_OTHER;
        active_transports[nactive++] = &empi_transport_tcp;
        empi_progress_set_transports(active_transports, nactive);
    }
    return empi_transport_tcp.add_peers(total) == EMPI_OK ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* Bytes the transports accepted but have not handed to the network yet. */
static size_t transports_pending(void)
{
    size_t n = 0;
    for (int i = 0; i < nactive; i++)
        if (active_transports[i]->pending)
            n += active_transports[i]->pending();
    return n;
}

/*
 * The layers below the world model (bootstrap, datatypes, transports, pt2pt and the hidden
 * all-process communicator) are shared by the world model and every session: reference counted,
 * brought up by the first of MPI_Init / MPI_Session_init and torn down by the last of
 * MPI_Finalize / MPI_Session_finalize. The world model itself (MPI_COMM_WORLD, MPI_COMM_SELF) is
 * set up on top by MPI_Init only.
 */
static pthread_mutex_t instance_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t lock_once = PTHREAD_ONCE_INIT;
static int instance_refs;

static int layers_up(void)
{
    empi_wtime_init();
    empi_tunables_load();
    if (empi_boot_init(&empi_g.boot) != 0)
        return MPI_ERR_OTHER;
    /* Before our own binding narrows the CPU sets; an unreadable census leaves the local guess. */
    int census_ok = empi_cpu_census_take(&empi_g.boot) == 0;
    empi_g.oversubscribed = census_ok ? empi_cpu_census_ranks_per_cpu(empi_g.boot.node_id) > 1
                                      : empi_g.boot.local_size > empi_cpu_census_usable();
    if (empi_tunables.hostname[0])
        snprintf(empi_g.processor_name, sizeof empi_g.processor_name, "%s", empi_tunables.hostname);
    else if (gethostname(empi_g.processor_name, sizeof empi_g.processor_name) != 0)
        strcpy(empi_g.processor_name, "localhost");
    empi_g.processor_name[sizeof empi_g.processor_name - 1] = '\0';
    if (empi_tunables.debug >= 1 && empi_g.boot.local_rank == 0)
        fprintf(stderr, "EtherMPI: %s: %d ranks of the job on %d CPUs (%d per CPU)%s\n", empi_g.processor_name,
                empi_g.boot.local_size, empi_cpu_census_cpus(empi_g.boot.node_id),
                empi_cpu_census_ranks_per_cpu(empi_g.boot.node_id), empi_g.oversubscribed ? ": oversubscribed" : "");
    empi_bind_apply(empi_g.boot.rank, empi_g.boot.local_rank, empi_g.boot.local_size, empi_g.processor_name);
    if (empi_datatype_init() != MPI_SUCCESS || start_transports() != 0 || empi_pt2pt_init() != MPI_SUCCESS ||
        empi_comm_boot_init() != MPI_SUCCESS)
        empi_fatal(MPI_ERR_INTERN, "MPI initialization: a layer failed to start");
    if (empi_boot_fence() != 0)
        empi_fatal(MPI_ERR_INTERN, "MPI initialization: bootstrap fence failed");
    return MPI_SUCCESS;
}

/* Drain, then everyone agrees to stop; `quiesced` runs at that point (the world model's objects
   go away there, as they always have), then the layers come down top to bottom. */
static void layers_down(void (*quiesced)(void))
{
    /* Nobody stops reading before everyone is here: a process waiting for its sends below needs its
       receivers to take them, or to withdraw those it cancelled (a cancelled synchronous or
       rendezvous send waits for the receiver's answer). The barrier runs on progress. */
    empi_progress_leaving();
    empi_coll_set_t all;
    empi_comm_set_all_of(&empi_comm_boot, &all, EMPI_COMM_CREATE_TAG);
    int here = 1;
    if (empi_coll_set_allreduce_int(&all, &here, 1, EMPI_COLL_INT_MIN) != MPI_SUCCESS)
        empi_fatal(MPI_ERR_INTERN, "MPI finalization: the closing barrier failed");
    /* Every send we queued must reach its peer before the transports go away. */
    empi_pt2pt_finalize();
    /* ...and leave this process: a peer in the fence below no longer reads, so bytes still queued
       in a transport would never arrive. */
    EMPI_PROGRESS_UNTIL(transports_pending() == 0);
    if (empi_boot_fence() != 0)
        empi_fatal(MPI_ERR_INTERN, "MPI finalization: bootstrap fence failed");
    if (quiesced)
        quiesced();
    empi_comm_boot_finalize();
    for (int i = nactive; i-- > 0;) {
        active_transports[i]->finalize();
        active_transports[i] = NULL;
    }
    nactive = 0;
    empi_datatype_finalize();
}

int empi_instance_acquire(int thread_level)
{
    pthread_once(&lock_once, init_lock);
    pthread_mutex_lock(&instance_lock);
    int rc = instance_refs == 0 ? layers_up() : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && instance_refs == 0 && empi_async_progress_start() != 0)
        empi_fatal(MPI_ERR_INTERN, "MPI initialization: the progress thread (EMPI_ASYNC_PROGRESS) "
                                   "did not start");
    if (rc == MPI_SUCCESS) {
        instance_refs++;
        /* Locking starts once any user of MPI asks for MPI_THREAD_MULTIPLE, and stays on. */
        if (thread_level == MPI_THREAD_MULTIPLE)
            empi_g.thread_multiple = 1;
    }
    pthread_mutex_unlock(&instance_lock);
    return rc;
}

void empi_instance_release(void (*quiesced)(void))
{
    pthread_mutex_lock(&instance_lock);
    if (--instance_refs == 0) {
        empi_async_progress_stop(); /* from here on only this thread drives progress */
        empi_lock();
        layers_down(quiesced);
        empi_unlock();
        empi_g.thread_multiple = 0;
        empi_boot_finalize();
        empi_cpu_census_free();
    } else if (quiesced) {
        quiesced();
    }
    pthread_mutex_unlock(&instance_lock);
}

static int do_init(int required, int *provided, const char *fname)
{
    if (atomic_load(&empi_g.state) != EMPI_STATE_PRE_INIT)
        return empi_err_noobj(MPI_ERR_OTHER, "%s: MPI is already %s", fname,
                              empi_is_initialized() ? "initialized" : "finalized");
    if (required != MPI_THREAD_SINGLE && required != MPI_THREAD_FUNNELED &&
        required != MPI_THREAD_SERIALIZED && required != MPI_THREAD_MULTIPLE)
        required = MPI_THREAD_MULTIPLE; /* the standard lets us provide the highest we support */
    empi_g.thread_level = required;
    empi_g.main_thread = pthread_self();
    if (empi_instance_acquire(MPI_THREAD_SINGLE) != MPI_SUCCESS)
        empi_fatal(MPI_ERR_INTERN, "MPI_Init: cannot reach the launcher (bootstrap failed)");
    empi_lock();
    if (empi_comm_init() != MPI_SUCCESS)
        empi_fatal(MPI_ERR_INTERN, "MPI_Init: a layer failed to start");
    empi_unlock();
    /* Locking starts only now: before this point a single thread runs. */
    if (required == MPI_THREAD_MULTIPLE)
        empi_g.thread_multiple = 1;
    atomic_store_explicit(&empi_g.state, EMPI_STATE_INITIALIZED, memory_order_release);
    /* A spawned job meets its parent before the program runs (MPI_Comm_get_parent). */
    if (empi_dyn_init() != MPI_SUCCESS)
        empi_fatal(MPI_ERR_SPAWN, "MPI_Init: cannot connect to the parent job that spawned this one");
    if (provided)
        *provided = required;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Init)
int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return do_init(MPI_THREAD_SINGLE, NULL, "MPI_Init");
}

EMPI_WEAK_ALIAS(Init_thread)
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (!provided)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Init_thread: provided is NULL");
    return do_init(required, provided, "MPI_Init_thread");
}

EMPI_WEAK_ALIAS(Finalize)
int PMPI_Finalize(void)
{
    if (!empi_is_initialized())
        return empi_err_noobj(MPI_ERR_OTHER, "MPI_Finalize: MPI is %s",
                              empi_not_running_text());
    empi_lock();
    empi_dyn_finalize();
    /* MPI_COMM_SELF's delete callbacks run first, while MPI is still fully usable (MPI 4.1 §11.2.4). */
    empi_comm_finalize_attrs();
    empi_unlock();
    empi_instance_release(empi_comm_finalize);
    atomic_store_explicit(&empi_g.state, EMPI_STATE_FINALIZED, memory_order_release);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Initialized)
int PMPI_Initialized(int *flag)
{
    if (!flag)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Initialized: flag is NULL");
    *flag = atomic_load(&empi_g.state) != EMPI_STATE_PRE_INIT;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Finalized)
int PMPI_Finalized(int *flag)
{
    if (!flag)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Finalized: flag is NULL");
    *flag = atomic_load(&empi_g.state) == EMPI_STATE_FINALIZED;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Query_thread)
int PMPI_Query_thread(int *provided)
{
    if (!provided)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Query_thread: provided is NULL");
    *provided = empi_g.thread_level;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Is_thread_main)
int PMPI_Is_thread_main(int *flag)
{
    if (!flag)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Is_thread_main: flag is NULL");
    *flag = pthread_equal(pthread_self(), empi_g.main_thread);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Abort)
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    /* The launcher's line already names the rank and the code: this says on what. Aborting a
       sub-communicator ends the whole job, which the standard allows. */
    char msg[256];
    empi_comm_t *c = empi_comm_get(comm);
    if (c)
        snprintf(msg, sizeof msg, "on %s (%d process%s)", c->name[0] ? c->name : "a communicator", c->size,
                 c->size == 1 ? "" : "es");
    else
        snprintf(msg, sizeof msg, "on an invalid communicator");
    empi_boot_abort(errorcode, msg);
    return MPI_SUCCESS;
}
