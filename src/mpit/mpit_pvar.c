/*
 * MPI_T performance variables: counters of the point-to-point layer (pt2pt/stats.h), the lengths
 * of its matching queues, the shared-memory collectives' streamed pieces, and the library's
 * initialization state.
 *
 * Counters are MPI_T_PVAR_CLASS_COUNTER, not continuous: a handle counts only while started, so
 * a tool measures exactly the phase it brackets with MPI_T_pvar_start/stop; they can be reset and
 * written (per handle). Queue lengths, the high-water mark and the state are continuous and
 * read-only: they show the library's current value.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/shm/shm_stream.h"
#include "core/global.h"
#include "mpit/mpit.h"
#include "pt2pt/stats.h"

typedef struct pvar_desc {
    const char *name;
    int var_class;
    int verbosity;
    uint64_t (*raw)(void);
    const char *desc;
} pvar_desc_t;

#define STAT_READER(field)                                                                         \
    static uint64_t read_##field(void)                                                             \
    {                                                                                              \
        return empi_pt2pt_stats.field;                                                             \
    }
STAT_READER(sends)
STAT_READER(bytes_sent)
STAT_READER(eager_sends)
STAT_READER(rndv_sends)
STAT_READER(deferred_sends)
STAT_READER(receives)
STAT_READER(bytes_received)
STAT_READER(unexpected)
STAT_READER(unexpected_hwm)
STAT_READER(single_copy_recvs)
STAT_READER(coop_recvs)
STAT_READER(coop_chunks_helped)
STAT_READER(runs_recvs)
STAT_READER(bulk_recvs)
#undef STAT_READER

static uint64_t read_streamed_pieces(void)
{
    return empi_coll_shm_streamed_pieces;
}

static uint64_t read_mpi_state(void)
{
    return (uint64_t)atomic_load(&empi_g.state);
}

static const pvar_desc_t pvars[] = {
    {"empi_pt2pt_sends", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, read_sends,
     "Point-to-point messages sent to a process (not MPI_PROC_NULL), the library's own included"},
    {"empi_pt2pt_bytes_sent", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, read_bytes_sent,
     "Bytes of point-to-point messages sent"},
    {"empi_pt2pt_eager_sends", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_BASIC, read_eager_sends,
     "Messages sent with the eager protocol (at most EMPI_EAGER_LIMIT bytes, or into a free shm cell)"},
    {"empi_pt2pt_rndv_sends", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_BASIC, read_rndv_sends,
     "Messages sent with the rendezvous protocol"},
    {"empi_pt2pt_deferred_sends", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL, read_deferred_sends,
     "Times a send had to wait in a per-peer queue (transport full, or earlier traffic queued)"},
    {"empi_pt2pt_receives", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, read_receives,
     "Point-to-point messages matched to a receive"},
    {"empi_pt2pt_bytes_received", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, read_bytes_received,
     "Bytes delivered into receive buffers"},
    {"empi_pt2pt_unexpected", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_BASIC, read_unexpected,
     "Messages that arrived before a matching receive was posted"},
    {"empi_pt2pt_unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_TUNER_BASIC,
     empi_pt2pt_unexpected_length, "Messages now waiting in the unexpected queue"},
    {"empi_pt2pt_unexpected_queue_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_VERBOSITY_TUNER_BASIC,
     read_unexpected_hwm, "Longest the unexpected queue has been since the process started"},
    {"empi_pt2pt_single_copy_recvs", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
     read_single_copy_recvs, "Rendezvous messages read from the sender's buffer in one copy (CMA), helped or not"},
    {"empi_pt2pt_coop_recvs", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL, read_coop_recvs,
     "Rendezvous messages received on one node with a cooperative single copy (EMPI_SHM_COOP_MIN)"},
    {"empi_pt2pt_coop_chunks_helped", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
     read_coop_chunks_helped, "Chunks of its own sends this process copied into a receiver's buffer"},
    {"empi_pt2pt_runs_recvs", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL, read_runs_recvs,
     "Rendezvous messages from a noncontiguous sender read in place run by run (EMPI_SHM_CMA_RUN_MIN)"},
    {"empi_pt2pt_bulk_recvs", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL, read_bulk_recvs,
     "Rendezvous messages whose data came on the transport's bulk channel (EMPI_BULK_THRESHOLD)"},
    {"empi_coll_shm_streamed_pieces", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
     read_streamed_pieces,
     "Pieces of shared-memory alltoall and allgather whose blocks this process wrote into the node "
     "segment with non-temporal stores (EMPI_COLL_SHM_STREAM)"},
    {"empi_pt2pt_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_TUNER_BASIC,
     empi_pt2pt_posted_length, "Receives now posted and waiting for a message"},
    {"empi_mpi_state", MPI_T_PVAR_CLASS_STATE, MPI_T_VERBOSITY_USER_DETAIL, read_mpi_state,
     "Where the process is in MPI's life: pre_init, initialized or finalized (enumeration empi_mpi_state)"},
};

#define NPVARS ((int)(sizeof pvars / sizeof pvars[0]))

static int is_counter(int i)
{
    return pvars[i].var_class == MPI_T_PVAR_CLASS_COUNTER;
}

int empi_mpit_pvar_count(void)
{
    return NPVARS;
}

const char *empi_mpit_pvar_category(int i)
{
    return strncmp(pvars[i].name, "empi_pt2pt_", 11) == 0 ? "empi_pt2pt" : "empi_other";
}

struct MPI_T_pvar_handle_t {
    int index;
    int started;
    uint64_t accum;  /* counted in earlier started intervals (or written) */
    uint64_t base;   /* raw value when the current interval began */
    struct MPI_T_pvar_handle_t *next;
};

struct MPI_T_pvar_session_t {
    struct MPI_T_pvar_handle_t *handles;
    struct MPI_T_pvar_session_t *next;
};

static struct MPI_T_pvar_session_t *sessions;

static void free_handles(struct MPI_T_pvar_session_t *s)
{
    while (s->handles) {
        struct MPI_T_pvar_handle_t *next = s->handles->next;
        free(s->handles);
        s->handles = next;
    }
}

void empi_mpit_pvar_release_all(void)
{
    while (sessions) {
        struct MPI_T_pvar_session_t *next = sessions->next;
        free_handles(sessions);
        free(sessions);
        sessions = next;
    }
}

static int session_valid(MPI_T_pvar_session s)
{
    for (struct MPI_T_pvar_session_t *p = sessions; p; p = p->next)
        if (p == s)
            return 1;
    return 0;
}

static int handle_in(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    for (struct MPI_T_pvar_handle_t *p = s->handles; p; p = p->next)
        if (p == h)
            return 1;
    return 0;
}

/* Enter, and check the session and (unless ALL_HANDLES is allowed here) the handle. */
static int enter_checked(MPI_T_pvar_session s, MPI_T_pvar_handle h, int all_ok)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session_valid(s))
        return empi_mpit_exit(MPI_T_ERR_INVALID_SESSION);
    if (h == MPI_T_PVAR_ALL_HANDLES ? !all_ok : !handle_in(s, h))
        return empi_mpit_exit(MPI_T_ERR_INVALID_HANDLE);
    return MPI_SUCCESS;
}

static uint64_t handle_value(const struct MPI_T_pvar_handle_t *h)
{
    if (!is_counter(h->index))
        return pvars[h->index].raw();
    return h->accum + (h->started ? pvars[h->index].raw() - h->base : 0);
}

static void store_value(int i, uint64_t v, void *buf)
{
    if (pvars[i].var_class == MPI_T_PVAR_CLASS_STATE)
        *(int *)buf = (int)v;
    else
        *(unsigned long long *)buf = v;
}

static void set_value(struct MPI_T_pvar_handle_t *h, uint64_t v)
{
    h->accum = v;
    h->base = pvars[h->index].raw();
}

EMPI_WEAK_ALIAS(T_pvar_get_num)
int PMPI_T_pvar_get_num(int *num_pvar)
{
    return empi_mpit_report_int(num_pvar, NPVARS);
}

EMPI_WEAK_ALIAS(T_pvar_get_info)
int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                         int *readonly, int *continuous, int *atomic)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return empi_mpit_exit(MPI_T_ERR_INVALID_INDEX);
    const pvar_desc_t *p = &pvars[pvar_index];
    int state = p->var_class == MPI_T_PVAR_CLASS_STATE;
    empi_mpit_copy_string(p->name, name, name_len);
    empi_mpit_copy_string(p->desc, desc, desc_len);
    if (verbosity)
        *verbosity = p->verbosity;
    if (var_class)
        *var_class = p->var_class;
    if (datatype)
        *datatype = state ? MPI_INT : MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = state ? &empi_mpit_state_enum : MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = !is_counter(pvar_index);
    if (continuous)
        *continuous = !is_counter(pvar_index);
    if (atomic)
        *atomic = 1; /* every access holds the locks the updaters hold */
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_pvar_get_index)
int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !pvar_index)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    for (int i = 0; i < NPVARS; i++) {
        if (pvars[i].var_class == var_class && strcmp(pvars[i].name, name) == 0) {
            *pvar_index = i;
            return empi_mpit_exit(MPI_SUCCESS);
        }
    }
    return empi_mpit_exit(MPI_T_ERR_INVALID_NAME);
}

EMPI_WEAK_ALIAS(T_pvar_session_create)
int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    int rc = empi_mpit_enter_arg(session);
    if (rc != MPI_SUCCESS)
        return rc;
    struct MPI_T_pvar_session_t *s = calloc(1, sizeof *s);
    if (!s)
        return empi_mpit_exit(MPI_T_ERR_OUT_OF_SESSIONS);
    s->next = sessions;
    sessions = s;
    *session = s;
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_pvar_session_free)
int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    int rc = empi_mpit_enter_arg(session);
    if (rc != MPI_SUCCESS)
        return rc;
    for (struct MPI_T_pvar_session_t **p = &sessions; *p; p = &(*p)->next) {
        if (*p == *session) {
            *p = (*session)->next;
            free_handles(*session);
            free(*session);
            *session = MPI_T_PVAR_SESSION_NULL;
            return empi_mpit_exit(MPI_SUCCESS);
        }
    }
    return empi_mpit_exit(MPI_T_ERR_INVALID_SESSION);
}

EMPI_WEAK_ALIAS(T_pvar_handle_alloc)
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle; /* no performance variable is bound to an object */
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!session_valid(session))
        return empi_mpit_exit(MPI_T_ERR_INVALID_SESSION);
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return empi_mpit_exit(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    struct MPI_T_pvar_handle_t *h = calloc(1, sizeof *h);
    if (!h)
        return empi_mpit_exit(MPI_T_ERR_OUT_OF_HANDLES);
    h->index = pvar_index;
    h->started = !is_counter(pvar_index); /* continuous variables are always running */
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_pvar_handle_free)
int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    if (!handle)
        return MPI_T_ERR_INVALID;
    int rc = enter_checked(session, *handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    for (struct MPI_T_pvar_handle_t **p = &session->handles; *p; p = &(*p)->next) {
        if (*p == *handle) {
            *p = (*handle)->next;
            free(*handle);
            break;
        }
    }
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return empi_mpit_exit(MPI_SUCCESS);
}

/* Start (on != 0) or stop one counter handle. */
static void start_stop(struct MPI_T_pvar_handle_t *h, int on)
{
    if (h->started == on)
        return;
    uint64_t raw = pvars[h->index].raw();
    if (on)
        h->base = raw;
    else
        h->accum += raw - h->base;
    h->started = on;
}

static int start_stop_api(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int on)
{
    int rc = enter_checked(session, handle, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct MPI_T_pvar_handle_t *h = session->handles; h; h = h->next)
            if (is_counter(h->index))
                start_stop(h, on);
        return empi_mpit_exit(MPI_SUCCESS);
    }
    if (!is_counter(handle->index))
        return empi_mpit_exit(MPI_T_ERR_PVAR_NO_STARTSTOP);
    start_stop(handle, on);
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_pvar_start)
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return start_stop_api(session, handle, 1);
}

EMPI_WEAK_ALIAS(T_pvar_stop)
int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return start_stop_api(session, handle, 0);
}

EMPI_WEAK_ALIAS(T_pvar_read)
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = enter_checked(session, handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    store_value(handle->index, handle_value(handle), buf);
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_pvar_write)
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    int rc = enter_checked(session, handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!is_counter(handle->index))
        return empi_mpit_exit(MPI_T_ERR_PVAR_NO_WRITE);
    if (!buf)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    set_value(handle, *(const unsigned long long *)buf);
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_pvar_reset)
int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = enter_checked(session, handle, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct MPI_T_pvar_handle_t *h = session->handles; h; h = h->next)
            if (is_counter(h->index)) /* read-only variables are skipped, as the standard says */
                set_value(h, 0);
        return empi_mpit_exit(MPI_SUCCESS);
    }
    if (!is_counter(handle->index))
        return empi_mpit_exit(MPI_T_ERR_PVAR_NO_WRITE);
    set_value(handle, 0);
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_pvar_readreset)
int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = enter_checked(session, handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!is_counter(handle->index))
        return empi_mpit_exit(MPI_T_ERR_PVAR_NO_WRITE);
    if (!buf)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    store_value(handle->index, handle_value(handle), buf);
    set_value(handle, 0);
    return empi_mpit_exit(MPI_SUCCESS);
}
