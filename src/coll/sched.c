/*
 * The schedule engine. A schedule is a flat array of operations split into rounds by fences.
 * Running a round starts every send and receive in it and performs its local steps (reductions,
 * copies) in order; the round is over when every request and poll in it has completed, and the
 * next round starts. State is explicit (position of the running round, its end, what is pending),
 * so the same schedule is run to completion by a blocking call, advanced a little at a time by
 * the progress engine for nonblocking calls, and restarted for persistent ones.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "core/dlist.h"
#include "core/global.h"
#include "core/progress.h"
#include "pt2pt/pt2pt.h"

/* ---------------------------------------------------------------- building */

void empi_sched_init_tag(empi_sched_t *s, empi_comm_t *comm, int tag)
{
    memset(s, 0, offsetof(empi_sched_t, inline_ops));
    s->ops = s->inline_ops;
    s->cap = EMPI_SCHED_INLINE_OPS;
    s->comm = comm;
    s->tag = tag;
}

void empi_sched_init(empi_sched_t *s, empi_comm_t *comm)
{
    empi_sched_init_tag(s, comm, empi_coll_next_tag(comm));
}

empi_sched_t *empi_sched_new(empi_comm_t *comm)
{
    empi_sched_t *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    empi_sched_init(s, comm);
    s->heap = 1;
    empi_comm_retain(comm);
    s->holds_comm = 1;
    return s;
}

empi_sched_t *empi_sched_new_persistent(empi_comm_t *comm, int p2p_only, int *rc)
{
    empi_comm_t *own = NULL;
    *rc = empi_comm_create_from(comm, comm->group, &own);
    if (*rc != MPI_SUCCESS)
        return NULL;
    /* A persistent schedule cannot build a shared segment or node hierarchy later, so the
       duplicate gets them now (collectively, like the dup): the segment whenever the ranks share
       one node (it costs address space; pages only when used), the hierarchy where the user's
       communicator has one. */
    empi_coll_comm_t *cc = empi_comm_is_inter(comm) || p2p_only ? NULL : empi_coll_comm(comm);
    if (cc && cc->single_node)
        empi_coll_shm_get(own);
    if (cc && cc->hier)
        empi_coll_hier_get(own);
    empi_sched_t *s = empi_sched_new(own);
    empi_comm_release(own);   /* the schedule holds the only reference now */
    if (!s) {
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    empi_comm_retain(comm);
    s->user_comm = comm;
    return s;
}

empi_sched_t *empi_sched_new_for(empi_comm_t *comm, int persistent, int p2p_only, int *rc)
{
    *rc = MPI_ERR_NO_MEM;
    return persistent ? empi_sched_new_persistent(comm, p2p_only, rc) : empi_sched_new(comm);
}

int empi_sched_hold(empi_sched_t *s, empi_datatype_t *dt)
{
    if (!dt || dt->predefined)
        return MPI_SUCCESS;
    if ((s->nheld & (s->nheld - 1)) == 0) {
        empi_datatype_t **h = realloc(s->held, (size_t)(s->nheld ? s->nheld * 2 : 1) * sizeof *h);
        if (!h)
            return MPI_ERR_NO_MEM;
        s->held = h;
    }
    empi_datatype_retain(dt);
    s->held[s->nheld++] = dt;
    return MPI_SUCCESS;
}

void empi_sched_free(empi_sched_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        if (s->ops[i].req)
            empi_wait_release(s->ops[i].req, NULL);
    if (s->cleanup)
        s->cleanup(s);
    for (int i = 0; i < s->ntmp; i++)
        free(s->tmp[i]);
    free(s->tmp);
    if (s->ops != s->inline_ops)
        free(s->ops);
    for (int i = 0; i < s->nheld; i++)
        empi_datatype_release(s->held[i]);
    free(s->held);
    if (s->holds_comm)
        empi_comm_release(s->comm);
    if (s->user_comm)
        empi_comm_release(s->user_comm);
    if (s->heap)
        free(s);
}

static empi_sop_t *push(empi_sched_t *s, int kind)
{
    if (s->n == s->cap) {
        int cap = s->cap * 2;
        empi_sop_t *ops = malloc((size_t)cap * sizeof *ops);
        if (!ops)
            return NULL;
        memcpy(ops, s->ops, (size_t)s->n * sizeof *ops);
        if (s->ops != s->inline_ops)
            free(s->ops);
        s->ops = ops;
        s->cap = cap;
    }
    empi_sop_t *op = &s->ops[s->n++];
    memset(op, 0, sizeof *op);
    op->kind = (uint8_t)kind;
    return op;
}

int empi_sched_send(empi_sched_t *s, const void *buf, MPI_Count count, empi_datatype_t *dt, int peer)
{
    empi_sop_t *op = push(s, EMPI_SOP_SEND);
    if (!op)
        return MPI_ERR_NO_MEM;
    op->src = buf;
    op->count = count;
    op->dt = dt;
    op->peer = peer;
    return MPI_SUCCESS;
}

int empi_sched_recv(empi_sched_t *s, void *buf, MPI_Count count, empi_datatype_t *dt, int peer)
{
    empi_sop_t *op = push(s, EMPI_SOP_RECV);
    if (!op)
        return MPI_ERR_NO_MEM;
    op->dst = buf;
    op->count = count;
    op->dt = dt;
    op->peer = peer;
    return MPI_SUCCESS;
}

int empi_sched_reduce(empi_sched_t *s, const void *in, void *inout, MPI_Count count, empi_datatype_t *dt,
                      empi_op_t *op_)
{
    if (count == 0)
        return MPI_SUCCESS;
    empi_sop_t *op = push(s, EMPI_SOP_REDUCE);
    if (!op)
        return MPI_ERR_NO_MEM;
    op->src = in;
    op->dst = inout;
    op->count = count;
    op->dt = dt;
    op->op = op_;
    return MPI_SUCCESS;
}

int empi_sched_copy(empi_sched_t *s, const void *src, MPI_Count scount, empi_datatype_t *sdt, void *dst,
                    MPI_Count rcount, empi_datatype_t *rdt)
{
    if (scount == 0 || rcount == 0)
        return MPI_SUCCESS;
    empi_sop_t *op = push(s, EMPI_SOP_COPY);
    if (!op)
        return MPI_ERR_NO_MEM;
    op->src = src;
    op->count = scount;
    op->dt = sdt;
    op->dst = dst;
    op->rcount = rcount;
    op->rdt = rdt;
    return MPI_SUCCESS;
}

int empi_sched_poll(empi_sched_t *s, empi_sched_poll_fn fn, void *arg)
{
    empi_sop_t *op = push(s, EMPI_SOP_POLL);
    if (!op)
        return MPI_ERR_NO_MEM;
    op->fn = fn;
    op->arg = arg;
    return MPI_SUCCESS;
}

int empi_sched_poll_ordered(empi_sched_t *s, empi_sched_poll_fn fn, void *arg, const void *key, const uint64_t *seq)
{
    int rc = empi_sched_poll(s, fn, arg);
    if (rc != MPI_SUCCESS)
        return rc;
    s->order_key = key;
    s->order_seq = seq;
    s->order_op = s->n - 1;
    return MPI_SUCCESS;
}

int empi_sched_fence(empi_sched_t *s)
{
    if (s->n == 0 || s->ops[s->n - 1].kind == EMPI_SOP_FENCE)
        return MPI_SUCCESS;
    return push(s, EMPI_SOP_FENCE) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void *empi_sched_tmp(empi_sched_t *s, size_t bytes)
{
    size_t rounded = bytes ? (bytes + 15) & ~(size_t)15 : 16;
    if (bytes <= EMPI_SCHED_TMP_INLINE && rounded <= EMPI_SCHED_TMP_INLINE - s->tmp_inline_used) {
        void *p = s->tmp_inline + s->tmp_inline_used;
        s->tmp_inline_used += rounded;
        return p;
    }
    if (s->ntmp == s->tmpcap) {
        int cap = s->tmpcap ? s->tmpcap * 2 : 4;
        void **t = realloc(s->tmp, (size_t)cap * sizeof *t);
        if (!t)
            return NULL;
        s->tmp = t;
        s->tmpcap = cap;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (p)
        s->tmp[s->ntmp++] = p;
    return p;
}

void *empi_sched_tmp_dt(empi_sched_t *s, MPI_Count count, const empi_datatype_t *dt)
{
    if (count <= 0)
        return empi_sched_tmp(s, 16);
    MPI_Aint lo, span = empi_dt_span(count, dt, &lo);
    char *base = empi_sched_tmp(s, (size_t)span);
    return base ? base - lo : NULL;
}

/* ---------------------------------------------------------------- copying */

void empi_coll_copy(const void *src, MPI_Count scount, const empi_datatype_t *sdt, void *dst, MPI_Count rcount,
                    const empi_datatype_t *rdt)
{
    MPI_Count sb = scount * sdt->size, rb = rcount * rdt->size;
    MPI_Count bytes = sb < rb ? sb : rb;
    if (bytes <= 0)
        return;
    if (sdt->is_contig && rdt->is_contig) {
        const char *from = (const char *)src + sdt->true_lb;
        char *to = (char *)dst + rdt->true_lb;
        if (from != to)
            memmove(to, from, (size_t)bytes);
    } else if (sdt->is_contig) {
        empi_dt_unpack(dst, rcount, rdt, 0, (const char *)src + sdt->true_lb, bytes);
    } else if (rdt->is_contig) {
        empi_dt_pack(src, scount, sdt, 0, (char *)dst + rdt->true_lb, bytes);
    } else {
        char chunk[16384];
        for (MPI_Count off = 0; off < bytes; off += (MPI_Count)sizeof chunk) {
            MPI_Count len = bytes - off < (MPI_Count)sizeof chunk ? bytes - off : (MPI_Count)sizeof chunk;
            empi_dt_pack(src, scount, sdt, off, chunk, len);
            empi_dt_unpack(dst, rcount, rdt, off, chunk, len);
        }
    }
}

/* ---------------------------------------------------------------- running */

static void issue(empi_sched_t *s, empi_sop_t *op)
{
    int rc = MPI_SUCCESS;
    empi_comm_t *comm = op->comm ? op->comm : s->comm;
    uint32_t ctx = EMPI_COLL_CONTEXT(comm);
    switch (op->kind) {
    case EMPI_SOP_SEND:
        rc = empi_isend(op->src, op->count, op->dt, op->peer, s->tag, comm, ctx, EMPI_MODE_STANDARD, &op->req);
        op->pending = rc == MPI_SUCCESS;
        break;
    case EMPI_SOP_RECV:
        rc = empi_irecv(op->dst, op->count, op->dt, op->peer, s->tag, comm, ctx, &op->req);
        op->pending = rc == MPI_SUCCESS;
        break;
    case EMPI_SOP_REDUCE:
        rc = empi_op_apply(op->op, op->src, op->dst, op->count, op->dt);
        break;
    case EMPI_SOP_COPY:
        empi_coll_copy(op->src, op->count, op->dt, op->dst, op->rcount, op->rdt);
        break;
    case EMPI_SOP_POLL: {
        int r = op->fn(s, op->arg);
        if (r < 0)
            rc = -r;
        else
            op->pending = r == 0;
        break;
    }
    default:
        break;
    }
    if (rc != MPI_SUCCESS && s->err == MPI_SUCCESS)
        s->err = rc;
}

/* Whether an op of the running round is complete, releasing its request when it just completed. */
static int settle(empi_sched_t *s, empi_sop_t *op, int *events)
{
    if (!op->pending)
        return 1;
    int rc;
    if (op->req) {
        if (!op->req->complete)
            return 0;
        rc = op->req->status.MPI_ERROR;
        empi_request_release(op->req);
        op->req = NULL;
    } else {
        int r = op->fn(s, op->arg);
        if (r == 0)
            return 0;
        rc = r < 0 ? -r : MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS && s->err == MPI_SUCCESS)
        s->err = rc;
    op->pending = 0;
    (*events)++;
    return 1;
}

/*
 * Advance as far as possible without waiting; returns the number of steps made. A round's ops are
 * settled in order, stopping at the first still running: k messages cost O(k) over all the passes
 * instead of k per pass (a neighborhood collective with 10^5 neighbors spent minutes rescanning).
 * Poll ops make progress only when called, so those behind that point still run on every pass.
 */
static int advance(empi_sched_t *s)
{
    int events = 0;
    while (!s->done) {
        if (!s->issued) {
            int i = s->pos;
            s->round_polls = 0;
            for (; i < s->n && s->ops[i].kind != EMPI_SOP_FENCE; i++) {
                issue(s, &s->ops[i]);
                s->round_polls |= s->ops[i].kind == EMPI_SOP_POLL;
            }
            s->end = i;
            s->scan = s->pos;
            s->issued = 1;
            events++;
        }
        while (s->scan < s->end && settle(s, &s->ops[s->scan], &events))
            s->scan++;
        if (s->scan < s->end) {
            for (int i = s->scan + 1; s->round_polls && i < s->end; i++)
                if (s->ops[i].kind == EMPI_SOP_POLL)
                    settle(s, &s->ops[i], &events);
            break;
        }
        s->pos = s->end + 1;
        s->issued = 0;
        if (s->pos >= s->n)
            s->done = 1;
    }
    return events;
}

int empi_sched_run(empi_sched_t *s)
{
    if (s->n == 0)
        return MPI_SUCCESS;
    int idle = 0;
    for (;;) {
        int ev = advance(s);
        if (s->done)
            break;
        ev += empi_progress_poll();
        if (ev == 0)
            empi_progress_yield(&idle);
        else
            idle = 0;
    }
    return s->err;
}

/* ---------------------------------------------------------------- requests and progress */

/* Oldest first: collectives on one communicator complete in the order they started (the shared-
   memory ones wait for their predecessors), so a pass that visits the oldest first completes a
   chain of them; newest first completed about one per pass, each pass walking all of them (5000
   outstanding at 4 ranks: 2.05 s, 20000: 111 s). */
static empi_sched_t *active_head, *active_tail;
static int hook_added;
static int in_hook;

static void list_add(empi_sched_t *s)
{
    if (s->active)
        return;
    s->active = 1;
    empi_g.active_colls++;
    EMPI_DLIST_APPEND(active_head, active_tail, s, prev, next);
}

static void list_remove(empi_sched_t *s)
{
    if (!s->active)
        return;
    s->active = 0;
    empi_g.active_colls--;
    EMPI_DLIST_UNLINK(active_head, active_tail, s, prev, next);
}

/* Step s and, once it is done, complete its request (which may release it: *alive says whether s
   may still be looked at). */
static int step(empi_sched_t *s, int *alive)
{
    int ev = advance(s);
    *alive = !s->done;
    if (s->done && s->active) {
        list_remove(s);
        empi_request_t *req = s->req;
        req->status.MPI_ERROR = s->err;
        empi_request_set_complete(req);
        ev++;
    }
    return ev;
}

/* s is held at its ordered poll op (empi_sched_poll_ordered), which has not completed. */
static int waits_in_order(const empi_sched_t *s)
{
    return s->order_key && s->issued && s->order_op >= s->pos && s->order_op < s->end && s->ops[s->order_op].pending;
}

/*
 * One pass over the outstanding schedules, oldest first. A schedule held at an ordered op behind
 * one of the same key that still waits would only find that out: it is skipped, so a pass costs
 * O(ready schedules + keys) rather than O(outstanding) (20000 outstanding shared-memory
 * allreduces at 2 ranks took 63 s, each pass polling every one to complete about one). A few keys
 * are tracked per pass; beyond them schedules are simply stepped.
 */
#define WAITING_KEYS_MAX 8

static int coll_hook(void)
{
    if (in_hook || !active_head)
        return 0;
    in_hook = 1;
    int ev = 0, nwait = 0;
    struct {
        const void *key;
        uint64_t seq;
    } waiting[WAITING_KEYS_MAX];
    for (empi_sched_t *s = active_head, *next; s; s = next) {
        next = s->next;
        int w = 0;
        while (w < nwait && waiting[w].key != s->order_key)
            w++;
        if (w < nwait && waits_in_order(s) && *s->order_seq > waiting[w].seq)
            continue;
        int alive;
        ev += step(s, &alive);
        if (alive && w == nwait && nwait < WAITING_KEYS_MAX && waits_in_order(s)) {
            waiting[nwait].key = s->order_key;
            waiting[nwait++].seq = *s->order_seq;
        }
    }
    in_hook = 0;
    return ev;
}

static int req_poll(empi_request_t *req)
{
    empi_sched_t *s = req->state;
    if (req->complete || !s->active)
        return 0;
    if (in_hook)
        return 0;
    in_hook = 1;
    int alive;
    int ev = step(s, &alive);
    in_hook = 0;
    return ev;
}

static void start_sched(empi_sched_t *s)
{
    s->pos = 0;
    s->end = 0;
    s->issued = 0;
    s->err = MPI_SUCCESS;
    s->done = s->n == 0;
    for (int i = 0; i < s->n; i++)
        s->ops[i].pending = 0;
    s->req->complete = 0;
    empi_status_empty(&s->req->status);
    if (s->done) {
        s->req->complete = 1;
        return;
    }
    list_add(s);
    if (!in_hook) {
        in_hook = 1;
        int alive;
        step(s, &alive);
        in_hook = 0;
    }
}

static int req_start(empi_request_t *req)
{
    empi_sched_t *s = req->state;
    s->tag = empi_coll_next_tag(s->comm);
    if (s->restart)
        s->restart(s);
    start_sched(s);
    return MPI_SUCCESS;
}

static void req_destroy(empi_request_t *req)
{
    empi_sched_t *s = req->state;
    if (!s)
        return;
    if (s->active) {
        /* Freed before completion (only through misuse): finish it so peers are not stranded. */
        in_hook++;
        while (!s->done) {
            if (advance(s) == 0)
                empi_progress_poll();
        }
        in_hook--;
        list_remove(s);
    }
    req->state = NULL;
    empi_sched_free(s);
}

static const empi_request_ops_t coll_req_ops = {
    .poll = req_poll,
    .start = req_start,
    .destroy = req_destroy,
    .collective = 1,
};

int empi_sched_request(empi_sched_t *s, int persistent, empi_request_t **out)
{
    if (!hook_added) {
        empi_progress_add_hook(coll_hook);
        hook_added = 1;
    }
    empi_request_t *req = empi_request_new(EMPI_REQ_COLL, s->user_comm ? s->user_comm : s->comm);
    if (!req)
        return MPI_ERR_NO_MEM;
    req->ops = &coll_req_ops;
    req->state = s;
    s->req = req;
    s->persistent = persistent;
    if (persistent) {
        req->persistent = 1;
        req->active = 0;
        req->complete = 1;
    } else {
        start_sched(s);
    }
    *out = req;
    return MPI_SUCCESS;
}
