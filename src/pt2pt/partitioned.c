/*
 * Partitioned point-to-point (MPI-4 chapter 4): MPI_Psend_init / MPI_Precv_init, MPI_Pready*,
 * MPI_Parrived, built on internal point-to-point messages.
 *
 * A channel links one partitioned send to one partitioned receive. MPI_Psend_init sends SETUP
 * {partitions, bytes per partition, a reply tag of the sender's own} and MPI_Precv_init posts its
 * receive, so channels pair in the order of their init calls (MPI 4.1 4.2.3) whatever the order of
 * the starts; the receiver, once it matched SETUP, answers on the reply tag with the first of a
 * block of tags it reserved for the channel, one per send partition (or REFUSED when the sizes
 * differ: its rounds end in MPI_ERR_TRUNCATE, the sender's drop their data, as a truncated send).
 * From then on every send partition is its own message with its own tag, sent as soon as it is
 * ready and the channel exists, and received straight into its byte range of the receive buffer
 * (through a staging copy when the receive type is not contiguous). A receive partition has
 * arrived when every send partition overlapping its bytes has. Later rounds reuse the channel:
 * a round's messages can only match that round's receives because the previous round's receives
 * have all completed before the receiver can start the next.
 *
 * Everything travels on the communicator's user context with negative tags, which no user
 * receive matches (MPI_ANY_TAG only matches tags >= 0; it is -2 itself, so no internal tag may be):
 *   SETUP    -3 - tag                       sender -> receiver (tag <= MPI_TAG_UB = 2^29 - 1)
 *   REPLY    -3 - 2^29 - (n mod 2^29)       receiver -> sender; n counts the sender's channels
 *   DATA     INT32_MIN + reserved offset    one tag per send partition
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "core/progress.h"
#include "pt2pt/args.h"
#include "pt2pt/pt2pt_internal.h"

#define SETUP_TAG(t) (-3 - ((t) & 0x1fffffff))
#define REPLY_TAG(t) (-3 - 0x20000000 - ((t) & 0x1fffffff))
#define DATA_TAG_SPAN 0x3ffffff0   /* data tags: [INT32_MIN, INT32_MIN + span) */
#define REFUSED INT32_MAX          /* REPLY of a receiver whose size differs: never a data tag */

typedef struct part part_t;
struct part {
    int is_send;
    int nparts;
    uint64_t pbytes;            /* bytes per partition on this side */
    int established;            /* the peer's layout and the data tags are known */
    int refused;                /* the sizes differ: no data ever moves on this channel */
    int running;                /* a round is between MPI_Start and its completion */
    int setup_err;              /* the channel's setup failed: every round ends with it */
    int base_tag;
    int peer_parts;             /* receiver: the sender's partition count */
    uint64_t peer_pbytes;
    int64_t setup[3];           /* SETUP payload: partitions, bytes per partition, reply tag */
    int reply;                  /* REPLY payload: base tag */
    empi_request_t *setup_req;  /* the SETUP or REPLY exchange in flight */
    int ctl_is_recv;            /* setup_req is a posted receive (cancellable at destroy) */
    empi_request_t *setup_send; /* sender: SETUP still leaving, from setup_copy */
    int64_t *setup_copy;
    /* A receive freed before its SETUP came: kept, so that the SETUP cannot pair with the next
       channel on (comm, peer, tag), to answer it REFUSED (zombie_comm is retained). */
    empi_comm_t *zombie_comm;
    int zombie_peer;
    uint8_t *flag;              /* sender: partition ready; receiver: send partition arrived */
    uint8_t *sent;              /* sender: partition's message started */
    empi_request_t **msg;       /* per send partition (both sides) */
    int pending;                /* sender: partitions not yet sent; receiver: not yet arrived */
    char *staging;              /* packed copy of the whole message (non-contiguous types) */
    int round_err;
    part_t *next, *prev;        /* active channels, polled by progress */
    empi_request_t *req;
};

static part_t *active;
static uint32_t next_data_tag;  /* offset of the next reserved block */
static uint32_t next_channel;   /* send channels opened here: their reply tags */

static void list_add(part_t *p)
{
    p->prev = NULL;
    p->next = active;
    if (active)
        active->prev = p;
    active = p;
}

static void list_remove(part_t *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else if (active == p)
        active = p->next;
    if (p->next)
        p->next->prev = p->prev;
    p->next = p->prev = NULL;
}

static int listed(const part_t *p)
{
    return p->next || p->prev || active == p;
}

static uint64_t total_bytes(const part_t *p)
{
    return p->pbytes * (uint64_t)p->nparts;
}

/* Where send partition i's bytes live on this side: the user buffer when contiguous, else staging. */
static char *bytes_at(part_t *p, uint64_t offset)
{
    empi_request_t *r = p->req;
    return p->staging ? p->staging + offset : (char *)r->buf + r->dt->true_lb + offset;
}

static int start_partition_send(part_t *p, int i)
{
    empi_request_t *r = p->req;
    uint64_t off = (uint64_t)i * p->pbytes;
    p->sent[i] = 1;
    if (p->refused) {   /* nobody receives it: gone, as the bytes of a truncated send */
        p->pending--;
        return MPI_SUCCESS;
    }
    if (p->staging)
        empi_dt_pack(r->buf, r->count, r->dt, (MPI_Count)off, p->staging + off, (MPI_Count)p->pbytes);
    return empi_isend(bytes_at(p, off), (MPI_Count)p->pbytes, empi_byte_type, r->peer, p->base_tag + i, r->comm,
                      r->comm->context_id, EMPI_MODE_STANDARD, &p->msg[i]);
}

static void note_error(part_t *p, int rc)
{
    if (rc != MPI_SUCCESS && p->round_err == MPI_SUCCESS)
        p->round_err = rc;
}

/* The receiver's answer p->reply (base tag or REFUSED) on the reply tag the SETUP named. */
static int send_reply(part_t *p, empi_comm_t *comm, int peer)
{
    return empi_isend(&p->reply, sizeof p->reply, empi_byte_type, peer, (int)p->setup[2], comm, comm->context_id,
                      EMPI_MODE_STANDARD, &p->setup_req);
}

/* Receiver: the SETUP arrived; reserve tags and answer (or refuse a channel of another size). */
static int receiver_establish(part_t *p)
{
    empi_request_t *r = p->req;
    p->peer_parts = (int)p->setup[0];
    p->peer_pbytes = (uint64_t)p->setup[1];
    uint64_t theirs = p->peer_pbytes * (uint64_t)p->peer_parts;
    int rc = MPI_SUCCESS;
    if (theirs != total_bytes(p) || p->peer_parts < 0) {
        rc = MPI_ERR_TRUNCATE;   /* the standard requires matching type signatures */
        p->refused = 1;
        p->peer_parts = 0;
        p->reply = REFUSED;
    } else {
        if (!r->dt->is_contig && !(p->staging = malloc(theirs ? theirs : 1)))
            return MPI_ERR_NO_MEM;
        p->msg = calloc((size_t)(p->peer_parts ? p->peer_parts : 1), sizeof *p->msg);
        p->flag = calloc((size_t)(p->peer_parts ? p->peer_parts : 1), 1);
        if (!p->msg || !p->flag)
            return MPI_ERR_NO_MEM;
        if (next_data_tag + (uint32_t)p->peer_parts > DATA_TAG_SPAN)
            next_data_tag = 0;
        p->base_tag = INT32_MIN + (int)next_data_tag;
        next_data_tag += (uint32_t)p->peer_parts;
        p->reply = p->base_tag;
    }
    p->established = 1;
    int src = send_reply(p, r->comm, r->peer);
    return rc != MPI_SUCCESS ? rc : src;
}

static int post_partition_receives(part_t *p)
{
    empi_request_t *r = p->req;
    p->pending = p->peer_parts;
    if (p->refused)
        return MPI_SUCCESS;
    memset(p->flag, 0, (size_t)p->peer_parts);
    for (int i = 0; i < p->peer_parts; i++) {
        int rc = empi_irecv(bytes_at(p, (uint64_t)i * p->peer_pbytes), (MPI_Count)p->peer_pbytes, empi_byte_type,
                            r->peer, p->base_tag + i, r->comm, r->comm->context_id, &p->msg[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Finish the control exchange if it completed (between rounds too); returns events. */
static int poll_setup(part_t *p)
{
    if (!p->setup_req || !p->setup_req->complete)
        return 0;
    int rc = p->setup_req->status.MPI_ERROR;
    empi_request_release(p->setup_req);
    p->setup_req = NULL;
    p->ctl_is_recv = 0;
    if (rc == MPI_SUCCESS && !p->established) {
        if (p->is_send) {
            p->refused = p->reply == REFUSED;
            p->base_tag = p->reply;
            p->established = 1;
        } else {
            rc = receiver_establish(p);
            if (p->running && p->established) {
                int prc = post_partition_receives(p);
                rc = rc != MPI_SUCCESS ? rc : prc;
            }
        }
    }
    if (rc != MPI_SUCCESS && p->setup_err == MPI_SUCCESS)
        p->setup_err = rc;
    note_error(p, rc);
    return 1;
}

/* Out of the progress list while nothing is left to do until the next MPI_Start. */
static void park(part_t *p)
{
    if (!p->running && p->established && !p->setup_req && !p->setup_send && listed(p))
        list_remove(p);
}

/* SETUP has left: its request and copy go. */
static int poll_setup_send(part_t *p)
{
    if (!p->setup_send || !p->setup_send->complete)
        return 0;
    empi_request_release(p->setup_send);
    free(p->setup_copy);
    p->setup_send = NULL;
    p->setup_copy = NULL;
    return 1;
}

/* A freed receive's SETUP: answered REFUSED, then the channel is gone. */
static int poll_zombie(part_t *p)
{
    if (p->setup_req && !p->setup_req->complete)
        return 0;
    if (p->setup_req) {
        int answer = p->ctl_is_recv && p->setup_req->status.MPI_ERROR == MPI_SUCCESS;
        empi_request_release(p->setup_req);
        p->setup_req = NULL;
        p->ctl_is_recv = 0;
        p->reply = REFUSED;
        if (answer && send_reply(p, p->zombie_comm, p->zombie_peer) == MPI_SUCCESS)
            return 1;
    }
    list_remove(p);
    empi_comm_release(p->zombie_comm);
    free(p);
    return 1;
}

/* Advance one channel; complete its request when the round is over. Returns events. */
static int poll_part(part_t *p)
{
    if (p->zombie_comm)
        return poll_zombie(p);
    empi_request_t *r = p->req;
    int events = poll_setup(p) + poll_setup_send(p);
    if (!p->running) {
        park(p);
        return events;
    }
    if (p->established && p->is_send)
        for (int i = 0; i < p->nparts; i++)
            if (p->flag[i] && !p->sent[i]) {
                note_error(p, start_partition_send(p, i));
                events++;
            }
    int n = p->is_send ? p->nparts : p->peer_parts;
    for (int i = 0; p->established && i < n; i++) {
        empi_request_t *m = p->msg[i];
        if (!m || !m->complete)
            continue;
        note_error(p, m->status.MPI_ERROR);
        empi_request_release(m);
        p->msg[i] = NULL;
        if (!p->is_send) {
            p->flag[i] = 1;
            /* Noncontiguous: unpack this send partition's bytes as soon as they are here. */
            if (p->staging) {
                uint64_t off = (uint64_t)i * p->peer_pbytes;
                empi_dt_unpack(r->buf, r->count, r->dt, (MPI_Count)off, p->staging + off, (MPI_Count)p->peer_pbytes);
            }
        }
        p->pending--;
        events++;
    }
    if (p->established && p->pending == 0 && !p->setup_req && !r->complete) {
        empi_status_empty(&r->status);
        r->status.MPI_SOURCE = p->is_send ? MPI_ANY_SOURCE : r->peer;
        r->status.MPI_TAG = p->is_send ? MPI_ANY_TAG : r->tag;
        r->status.MPI_ERROR = p->round_err;
        if (!p->is_send)
            empi_status_set_bytes(&r->status, p->refused ? 0 : (MPI_Count)total_bytes(p));
        p->running = 0;
        park(p);
        empi_request_set_complete(r);
        events++;
    } else if (p->round_err != MPI_SUCCESS && !r->complete && !p->established) {
        /* Setup failed: nothing will ever arrive; end the round with the error. */
        r->status.MPI_ERROR = p->round_err;
        p->running = 0;
        empi_request_set_complete(r);
    }
    return events;
}

static int part_hook(void)
{
    int events = 0;
    for (part_t *p = active, *next; p; p = next) {
        next = p->next;
        events += poll_part(p);
    }
    return events;
}

static int part_poll(empi_request_t *req)
{
    part_t *p = req->state;
    return req->complete ? 0 : poll_part(p);
}

/* At init: the sender's SETUP leaves and its REPLY receive is posted; the receiver's SETUP receive
   is posted. Pt2pt's order per (communicator, peer, tag) then pairs channels in init order. */
static int open_channel(part_t *p)
{
    empi_request_t *req = p->req;
    int rc;
    if (p->is_send) {
        int reply_tag = REPLY_TAG((int)(next_channel++ & 0x1fffffff));
        /* SETUP goes from its own copy: the channel may be freed before it has left. */
        if (!(p->setup_copy = malloc(sizeof p->setup)))
            return MPI_ERR_NO_MEM;
        p->setup_copy[0] = p->nparts;
        p->setup_copy[1] = (int64_t)p->pbytes;
        p->setup_copy[2] = reply_tag;
        /* Post the REPLY receive before SETUP leaves so the answer always has a home. */
        rc = empi_irecv(&p->reply, sizeof p->reply, empi_byte_type, req->peer, reply_tag, req->comm,
                        req->comm->context_id, &p->setup_req);
        p->ctl_is_recv = 1;
        if (rc == MPI_SUCCESS)
            rc = empi_isend(p->setup_copy, sizeof p->setup, empi_byte_type, req->peer, SETUP_TAG(req->tag),
                            req->comm, req->comm->context_id, EMPI_MODE_STANDARD, &p->setup_send);
        poll_setup_send(p);
    } else {
        rc = empi_irecv(p->setup, sizeof p->setup, empi_byte_type, req->peer, SETUP_TAG(req->tag), req->comm,
                        req->comm->context_id, &p->setup_req);
        p->ctl_is_recv = 1;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    empi_progress_add_hook(part_hook);   /* once: it ignores a hook it already has */
    list_add(p);
    return MPI_SUCCESS;
}

static int part_start(empi_request_t *req)
{
    part_t *p = req->state;
    req->complete = 0;
    p->round_err = p->setup_err;
    empi_status_empty(&req->status);
    if (p->is_send) {
        memset(p->flag, 0, (size_t)p->nparts);
        memset(p->sent, 0, (size_t)p->nparts);
        p->pending = p->nparts;
    }
    if (req->peer == MPI_PROC_NULL) {
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        empi_request_set_complete(req);
        return MPI_SUCCESS;
    }
    if (!p->is_send && p->established) {
        int rc = post_partition_receives(p);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    p->running = 1;
    if (!listed(p))
        list_add(p);
    poll_part(p);
    return MPI_SUCCESS;
}

/* Withdraw an internal receive that can no longer match anything useful, or finish a send. */
static void retire_internal(empi_request_t *m, int is_recv)
{
    if (!m)
        return;
    if (is_recv && !m->complete && m->proto_state == EMPI_RECV_POSTED) {
        empi_posted_remove(&empi_p2p.posted, m);
        empi_request_release(m);
        return;
    }
    empi_wait_release(m, NULL);
}

static void part_destroy(empi_request_t *req)
{
    part_t *p = req->state;
    if (!p)
        return;
    req->state = NULL;
    if (!p->is_send && !p->established && p->setup_req) {
        /* its SETUP has not been taken in: let it come and refuse it (poll_zombie) */
        empi_comm_retain(req->comm);
        p->zombie_comm = req->comm;
        p->zombie_peer = req->peer;
        p->req = NULL;
        return;
    }
    if (listed(p))
        list_remove(p);
    if (p->setup_send && !p->setup_send->complete)
        p->setup_send->user_freed = 1;   /* it still reads setup_copy, which it keeps */
    else
        poll_setup_send(p);
    retire_internal(p->setup_req, p->ctl_is_recv);
    int n = p->is_send ? p->nparts : p->peer_parts;
    for (int i = 0; p->msg && i < n; i++)
        retire_internal(p->msg[i], !p->is_send);
    free(p->msg);
    free(p->flag);
    free(p->sent);
    free(p->staging);
    free(p);
}

static const empi_request_ops_t part_ops = {
    .poll = part_poll,
    .start = part_start,
    .destroy = part_destroy,
};

static int part_init(const char *fn, int is_send, void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                     int peer, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    empi_comm_t *c;
    empi_datatype_t *dt;
    int rc = is_send ? empi_check_send(fn, buf, count * (partitions > 0 ? partitions : 0), datatype, peer, tag, comm,
                                       &c, &dt)
                     : empi_check_recv(fn, buf, count * (partitions > 0 ? partitions : 0), datatype, peer, tag, comm,
                                       &c, &dt);
    EMPI_CHECK(rc);
    EMPI_CHECK(empi_check_ptr(fn, c, request, "request"));
    if (partitions < 0)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: partitions %d is negative", fn, partitions);
    if (count < 0)
        return empi_err_comm(c, MPI_ERR_COUNT, "%s: count %lld is negative", fn, (long long)count);
    if (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)
        return empi_err_comm(c, peer == MPI_ANY_SOURCE ? MPI_ERR_RANK : MPI_ERR_TAG,
                             "%s: wildcards are not allowed in partitioned communication", fn);
    if (info != MPI_INFO_NULL && !empi_info_get(info))
        return empi_err_comm(c, MPI_ERR_INFO, "%s: invalid info %p", fn, (void *)info);
    empi_lock();
    empi_request_t *req = empi_request_new(is_send ? EMPI_REQ_SEND : EMPI_REQ_RECV, c);
    part_t *p = calloc(1, sizeof *p);
    if (p) {
        p->is_send = is_send;
        p->nparts = partitions;
        p->pbytes = (uint64_t)(count * dt->size);
        if (is_send) {
            size_t n = (size_t)(partitions ? partitions : 1);
            p->flag = calloc(n, 1);
            p->sent = calloc(n, 1);
            p->msg = calloc(n, sizeof *p->msg);
            if (!dt->is_contig)
                p->staging = malloc(total_bytes(p) ? total_bytes(p) : 1);
        }
    }
    if (!req || !p || (is_send && (!p->flag || !p->sent || !p->msg || (!dt->is_contig && !p->staging)))) {
        if (p) {
            free(p->flag);
            free(p->sent);
            free(p->msg);
            free(p->staging);
            free(p);
        }
        if (req)
            empi_request_release(req);
        empi_unlock();
        return empi_err_comm(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    p->req = req;
    req->persistent = 1;
    req->complete = 1;
    req->buf = buf;
    req->count = count * partitions;
    req->dt = dt;
    empi_datatype_retain(dt);
    req->peer = peer;
    req->tag = tag;
    req->ctx = c->context_id;
    req->ops = &part_ops;
    req->state = p;
    if (peer != MPI_PROC_NULL && (rc = open_channel(p)) != MPI_SUCCESS) {
        empi_request_release(req);
        empi_unlock();
        return empi_err_comm(c, rc, "%s: could not open the channel to rank %d", fn, peer);
    }
    *request = (MPI_Request)req;
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Psend_init)
int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Psend_init", 1, (void *)buf, partitions, count, datatype, dest, tag, comm, info, request);
}

EMPI_WEAK_ALIAS(Precv_init)
int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Precv_init", 0, buf, partitions, count, datatype, source, tag, comm, info, request);
}

/* The partitioned request behind a handle, of the wanted side; raises otherwise. */
static int check_part(const char *fn, MPI_Request h, int want_send, part_t **out)
{
    empi_request_t *req = empi_request_get(h);
    if (!req || req->ops != &part_ops)
        return empi_err_noobj(MPI_ERR_REQUEST, "%s: %p is not a partitioned request", fn, (void *)h);
    part_t *p = req->state;
    if (p->is_send != want_send)
        return empi_err_comm(req->comm, MPI_ERR_REQUEST, "%s: the request is a partitioned %s", fn,
                             p->is_send ? "send" : "receive");
    *out = p;
    return MPI_SUCCESS;
}

/* May partition i be marked ready now? (Checked for every partition of a call before any is.) */
static int check_ready(const char *fn, part_t *p, int i)
{
    empi_request_t *r = p->req;
    if (!r->active)
        return empi_err_comm(r->comm, MPI_ERR_REQUEST, "%s: the request is not active (MPI_Start it first)", fn);
    if (i < 0 || i >= p->nparts)
        return empi_err_comm(r->comm, MPI_ERR_ARG, "%s: partition %d is not in [0, %d)", fn, i, p->nparts);
    if (p->flag[i])
        return empi_err_comm(r->comm, MPI_ERR_ARG, "%s: partition %d is %s", fn, i,
                             p->flag[i] == 1 ? "already ready in this round" : "named twice");
    return MPI_SUCCESS;
}

/* Mark n partitions ready (lo.. or list[]), all or none: a failing call leaves the round as it was.
   bad_args: the caller's argument error, raised on the request's communicator like the others. */
static int pready_n(const char *fn, MPI_Request request, int n, int lo, const int *list, const char *bad_args)
{
    part_t *p = NULL;
    empi_lock();
    int rc = check_part(fn, request, 1, &p), k = 0;
    if (rc == MPI_SUCCESS && bad_args)
        rc = empi_err_comm(p->req->comm, MPI_ERR_ARG, "%s: %s", fn, bad_args);
    for (; rc == MPI_SUCCESS && k < n; k++) {   /* claim each (2), which also catches repeats */
        int i = list ? list[k] : lo + k;
        if ((rc = check_ready(fn, p, i)) == MPI_SUCCESS)
            p->flag[i] = 2;
    }
    for (int j = 0; j < k; j++) {
        int i = list ? list[j] : lo + j;
        if (rc != MPI_SUCCESS) {
            if (i >= 0 && i < p->nparts && p->flag[i] == 2)
                p->flag[i] = 0;
            continue;
        }
        p->flag[i] = 1;
        if (p->req->peer != MPI_PROC_NULL && p->established)
            note_error(p, start_partition_send(p, i));
    }
    if (rc == MPI_SUCCESS)
        poll_part(p);
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Pready)
int PMPI_Pready(int partition, MPI_Request request)
{
    return pready_n("MPI_Pready", request, 1, partition, NULL, NULL);
}

EMPI_WEAK_ALIAS(Pready_range)
int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    int bad = partition_high < partition_low;
    return pready_n("MPI_Pready_range", request, bad ? 0 : partition_high - partition_low + 1, partition_low, NULL,
                    bad ? "partition_high is below partition_low" : NULL);
}

EMPI_WEAK_ALIAS(Pready_list)
int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    const char *bad = length < 0                             ? "length is negative"
                      : length > 0 && !array_of_partitions ? "array_of_partitions is NULL"
                                                           : NULL;
    return pready_n("MPI_Pready_list", request, bad ? 0 : length, 0, array_of_partitions, bad);
}

/* Have all send partitions overlapping receive partition q arrived? */
static int partition_arrived(const part_t *p, int q)
{
    if (p->pbytes == 0 || p->peer_pbytes == 0)
        return p->pending == 0;
    uint64_t lo = (uint64_t)q * p->pbytes, hi = lo + p->pbytes;
    for (uint64_t i = lo / p->peer_pbytes; i < (uint64_t)p->peer_parts && i * p->peer_pbytes < hi; i++)
        if (!p->flag[i])
            return 0;
    return 1;
}

EMPI_WEAK_ALIAS(Parrived)
int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    static const char fn[] = "MPI_Parrived";
    part_t *p = NULL;
    EMPI_CHECK(empi_check_ptr(fn, NULL, flag, "flag"));
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;   /* a null request, like an inactive one, has nothing left to arrive */
        return MPI_SUCCESS;
    }
    empi_lock();
    int rc = check_part(fn, request, 0, &p);
    if (rc == MPI_SUCCESS && (partition < 0 || partition >= p->nparts))
        rc = empi_err_comm(p->req->comm, MPI_ERR_ARG, "%s: partition %d is not in [0, %d)", fn, partition, p->nparts);
    if (rc == MPI_SUCCESS) {
        empi_request_t *r = p->req;
        if (!r->active || r->complete || r->peer == MPI_PROC_NULL) {
            *flag = 1;   /* an inactive or finished round has all its data */
        } else {
            if (!(poll_part(p) + empi_progress_poll()))
                empi_progress_test();   /* a loop on MPI_Parrived waits like one on MPI_Test */
            *flag = r->complete || (p->established && partition_arrived(p, partition));
        }
    }
    empi_unlock();
    return rc;
}
