/*
 * Requests: one object for every nonblocking operation (point-to-point, persistent, collective
 * schedules, generalized). Completion is a flag set by the progress engine; waits poll it.
 */
#ifndef EMPI_REQUEST_H
#define EMPI_REQUEST_H

#include <stdint.h>

#include "comm/comm.h"
#include "core/object.h"
#include "datatype/datatype.h"
#include "mpi.h"

typedef enum {
    EMPI_REQ_SEND = 1,
    EMPI_REQ_RECV,
    EMPI_REQ_COLL,        /* collective schedule; `poll` advances it */
    EMPI_REQ_GREQ,        /* generalized request */
    EMPI_REQ_FILE,        /* MPI-IO access (src/io/): the I/O is done when it starts, born complete */
} empi_req_kind_t;

typedef enum { EMPI_MODE_STANDARD, EMPI_MODE_SYNC, EMPI_MODE_READY, EMPI_MODE_BUFFERED } empi_send_mode_t;

struct empi_request;
typedef struct empi_request empi_request_t;

/* Kind-specific behaviour for requests the pt2pt layer does not drive itself. */
typedef struct empi_request_ops {
    int (*poll)(empi_request_t *req);            /* advance; returns events; sets complete */
    int (*start)(empi_request_t *req);           /* persistent collectives: (re)start */
    int (*cancel)(empi_request_t *req);
    void (*destroy)(empi_request_t *req);        /* release kind-specific state */
    /* generalized requests: fill req->status from the user (query_fn) before it is reported, and
       when `and_free` also release the user's state (free_fn); returns the callbacks' error */
    int (*query)(empi_request_t *req, int and_free);
    /* a collective operation's (nonblocking, persistent, Comm_idup): the standard makes
       MPI_Cancel erroneous for it, and MPI_Request_free while it runs */
    uint8_t collective;
} empi_request_ops_t;

struct empi_request {
    empi_object_t obj;
    uint8_t kind;
    uint8_t persistent;     /* Start-able; completion makes it inactive instead of freeing it */
    uint8_t active;         /* persistent: started and not yet completed by a wait/test */
    uint8_t user_freed;     /* MPI_Request_free while active: release on completion */
    uint8_t cancel_sent;    /* send: MPI_Cancel asked the receiver to withdraw it */
    volatile int complete;
    int mode;               /* empi_send_mode_t for sends */
    MPI_Status status;

    empi_comm_t *comm;
    void *buf;
    MPI_Count count;
    empi_datatype_t *dt;
    int peer;               /* rank in comm (MPI_ANY_SOURCE for receives) */
    int tag;
    uint32_t ctx;

    /* protocol state, owned by pt2pt */
    uint64_t bytes;         /* message bytes (send) / bytes expected (recv) */
    uint64_t done_bytes;    /* rendezvous progress */
    uint64_t remote_id;     /* peer's request id (rendezvous, sync ack) */
    const void *remote_addr;
    int world_peer;
    int proto_state;
    int bulk;               /* rendezvous receive whose data comes on the bulk channel */
    int stream;             /* rendezvous whose data is written with non-temporal stores */
    double t_cts;           /* rendezvous receive: when the CTS went (pt2pt/stream_choice.c) */
    void *tmp;              /* send: the runs its RTS offered for reading in place (pt2pt/runs.c) */
    struct empi_unexpected *msg;  /* matched-probed message (MPI_Mprobe) */

    const empi_request_ops_t *ops;
    void *state;            /* kind-specific (collective schedule, generalized request) */

    empi_request_t *next, *prev;  /* queue links (posted receives, pending sends, active list) */
    uint64_t post_seq;            /* posted receive: its place in posting order (match.c) */
};

/* The request a user handle names: NULL if invalid (MPI_REQUEST_NULL included) or freed by the user
   (MPI_Request_free while active: the object lives on until it completes, the handle does not). */
empi_request_t *empi_request_get(MPI_Request h);
/* Any live request object, freed by the user or not (MPI_Grequest_complete may follow the free). */
empi_request_t *empi_request_lookup(MPI_Request h);
empi_request_t *empi_request_new(empi_req_kind_t kind, empi_comm_t *comm);
void empi_request_set_complete(empi_request_t *req);
/* Drop the library's reference (after completion was reported to the user, or at Request_free). */
void empi_request_release(empi_request_t *req);
/* A request the user freed before it completed, which only polling it completes (its ops->poll):
   progress polls it from now on and releases it once complete. */
int empi_request_orphan(empi_request_t *req);

/* Poll a request that is not pt2pt-driven, progress once. Returns 1 if complete. */
int empi_request_test(empi_request_t *req);
/* Progress until complete. */
void empi_request_wait(empi_request_t *req);

/* MPI_REQUEST_NULL or an inactive persistent request: completes at once with an empty status. */
static inline int empi_request_is_inactive(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return 1;
    empi_request_t *req = empi_request_get(h);
    return req && req->persistent && !req->active;
}

/* A completed request's status as the user sees it (runs a generalized request's query_fn). */
static inline int empi_request_query(empi_request_t *req, int and_free)
{
    return req->ops && req->ops->query ? req->ops->query(req, and_free) : MPI_SUCCESS;
}

/* MPI_Cancel's work on one request (api_request.c); returns a callback's error. */
int empi_request_cancel(empi_request_t *req);

/* Status fields kept in MPI_internal: byte count (two ints) and the cancelled flag. */
static inline void empi_status_set_bytes(MPI_Status *st, MPI_Count bytes)
{
    st->MPI_internal[0] = (int)(uint32_t)((uint64_t)bytes & 0xffffffffu);
    st->MPI_internal[1] = (int)(uint32_t)((uint64_t)bytes >> 32);
}

static inline MPI_Count empi_status_bytes(const MPI_Status *st)
{
    return (MPI_Count)(((uint64_t)(uint32_t)st->MPI_internal[1] << 32) | (uint32_t)st->MPI_internal[0]);
}

static inline void empi_status_set_cancelled(MPI_Status *st, int flag) { st->MPI_internal[2] = flag; }
static inline int empi_status_cancelled(const MPI_Status *st) { return st->MPI_internal[2]; }

static inline void empi_status_empty(MPI_Status *st)
{
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    empi_status_set_bytes(st, 0);
    empi_status_set_cancelled(st, 0);
}

#endif
