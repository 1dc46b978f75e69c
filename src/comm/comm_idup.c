/*
 * MPI_Comm_idup without blocking: the context agreement of comm_context.c (max of the proposals,
 * claim, AND of the claims, again until all claims succeed) run as a state machine that the
 * request's completion calls and a progress hook advance, so a process can start the dup, then
 * wait on a message its peer sends before reaching its own idup.
 *
 * Each reduction is the binomial tree of comm_coll.c on nonblocking internal messages: receive the
 * children's values, send the combination to the parent, receive the result from the parent,
 * send it to the children. On an intercommunicator the tree spans the local group (its hidden
 * local_comm) and its root, the group's leader, swaps the group's value with the remote leader
 * before sending the combination down, as the blocking bridge of comm_coll.c does. All of it uses
 * one collective tag taken from the parent's sequence at the call, so it cannot meet the messages
 * of collectives started before or after on the parent; the rounds of the agreement follow each
 * other on that tag in the same order everywhere.
 *
 * The new communicator exists from the call on (its handle is returned at once); it gets its
 * context ids when the agreement completes, before the request does.
 */
#include <stdlib.h>

#include "coll/coll.h"
#include "comm/comm.h"
#include "comm/intercomm.h"
#include "core/global.h"
#include "core/progress.h"
#include "pt2pt/pt2pt.h"

#define MAX_CHILDREN 32   /* a binomial tree over at most 2^31 ranks */

enum stage { UP, BRIDGE, DOWN, OUT };

typedef struct idup idup_t;
struct idup {
    empi_comm_t *parent, *child;
    empi_comm_t *tree;        /* the tree's communicator: parent, or its local_comm if inter */
    empi_request_t *req;
    int me, n, tag;
    uint32_t width;           /* context ids taken: 2, 4 for an intercommunicator */
    int theirs;               /* the remote group's value (intercommunicator leaders) */
    uint32_t proposal, agreed;
    int and_round;            /* 0: max of the proposals; 1: AND of the claims */
    enum stage stage;
    int local_err;            /* the dup failed here (an attribute copy callback): reported at the end */
    int val, up, down;        /* running value; what went to the parent; what came back */
    int in[MAX_CHILDREN];     /* the children's values */
    empi_request_t *pending[MAX_CHILDREN + 2];
    int npending;
    idup_t *next;
};

static idup_t *running;

/* One int to or from `peer` of c (the tree's communicator, or the intercommunicator for the
   leaders' swap with remote rank 0), on c's collective context. */
static int post(idup_t *x, int is_recv, int *buf, empi_comm_t *c, int peer)
{
    empi_request_t *r = NULL;
    int rc = is_recv ? empi_irecv(buf, sizeof *buf, empi_byte_type, peer, x->tag, c, EMPI_COLL_CONTEXT(c), &r)
                     : empi_isend(buf, sizeof *buf, empi_byte_type, peer, x->tag, c, EMPI_COLL_CONTEXT(c),
                                  EMPI_MODE_STANDARD, &r);
    if (rc == MPI_SUCCESS)
        x->pending[x->npending++] = r;
    return rc;
}

/* A reduction round starts: the children's values are awaited (a leaf goes straight up). */
static int round_begin(idup_t *x, int value)
{
    x->val = value;
    x->stage = UP;
    int span = empi_coll_tree_span(x->me, x->n), k = 0, rc = MPI_SUCCESS;
    for (int m = 1; m < span && rc == MPI_SUCCESS; m <<= 1, k++)
        if (x->me + m < x->n)
            rc = post(x, 1, &x->in[k], x->tree, x->me + m);
    return rc;
}

/* Every message of the stage has completed: release them; MPI_SUCCESS or the first error. */
static int stage_done(idup_t *x, int *done)
{
    *done = 1;
    for (int i = 0; i < x->npending; i++)
        if (!x->pending[i]->complete) {
            *done = 0;
            return MPI_SUCCESS;
        }
    int rc = MPI_SUCCESS;
    for (int i = 0; i < x->npending; i++) {
        if (rc == MPI_SUCCESS)
            rc = x->pending[i]->status.MPI_ERROR;
        empi_request_release(x->pending[i]);
    }
    x->npending = 0;
    return rc;
}

static int combine(int and_round, int a, int b)
{
    return and_round ? (a && b) : (b > a ? b : a);
}

/* The next stage of the round once the current one is over; *finished when the round is. */
static int round_step(idup_t *x, int *finished)
{
    int done, span = empi_coll_tree_span(x->me, x->n);
    int rc = stage_done(x, &done);
    *finished = 0;
    if (rc != MPI_SUCCESS || !done)
        return rc;
    switch (x->stage) {
    case UP:
        for (int m = 1, k = 0; m < span; m <<= 1, k++)
            if (x->me + m < x->n)
                x->val = combine(x->and_round, x->val, x->in[k]);
        if (x->me != 0) {
            x->up = x->val;
            x->stage = DOWN;
            rc = post(x, 0, &x->up, x->tree, x->me - span);
            return rc != MPI_SUCCESS ? rc : post(x, 1, &x->down, x->tree, x->me - span);
        }
        if (x->tree != x->parent) {   /* the leaders swap their groups' values */
            x->up = x->val;
            x->stage = BRIDGE;
            rc = post(x, 0, &x->up, x->parent, 0);
            return rc != MPI_SUCCESS ? rc : post(x, 1, &x->theirs, x->parent, 0);
        }
        /* the root has the result */
        __attribute__((fallthrough));
    case BRIDGE:
        if (x->stage == BRIDGE)
            x->val = combine(x->and_round, x->val, x->theirs);
        __attribute__((fallthrough));
    case DOWN:
        if (x->me != 0)
            x->val = x->down;
        x->stage = OUT;
        for (int m = span >> 1; m > 0 && rc == MPI_SUCCESS; m >>= 1)
            if (x->me + m < x->n)
                rc = post(x, 0, &x->val, x->tree, x->me + m);
        return rc;
    case OUT:
        *finished = 1;
        return MPI_SUCCESS;
    }
    return MPI_SUCCESS;
}

static void unlink_running(idup_t *x)
{
    for (idup_t **p = &running; *p; p = &(*p)->next)
        if (*p == x) {
            *p = x->next;
            return;
        }
}

/* A completed idup request keeps its parent (req->comm) until it is freed: raising its error on
   a parent the program freed meanwhile must still work. */
static void release_parent(empi_request_t *req)
{
    if (req->state)
        empi_comm_release(req->state);
    req->state = NULL;
}

static const empi_request_ops_t done_ops = {.destroy = release_parent, .collective = 1};

static void finish(idup_t *x, int rc, uint32_t context_id)
{
    empi_request_t *req = x->req;
    if (x->local_err != MPI_SUCCESS) {
        rc = x->local_err;
        empi_comm_release(x->child);   /* the program got MPI_COMM_NULL: this was its reference */
    } else if (rc == MPI_SUCCESS) {
        x->child->context_id = context_id;
        if (x->child->local_comm)   /* an intercommunicator's own local communicator */
            x->child->local_comm->context_id = context_id + 2;
    }
    empi_status_empty(&req->status);
    req->status.MPI_ERROR = rc;
    unlink_running(x);
    req->ops = &done_ops;
    req->state = x->parent;
    /* Messages still in flight (a post failed in mid-stage) write into x: it is left to them. */
    if (x->npending == 0) {
        empi_comm_release(x->child);
        free(x);
    }
    empi_request_set_complete(req);
}

/* Advance one dup as far as its messages allow; returns events. */
static int advance(idup_t *x)
{
    int events = 0, finished;
    for (;;) {
        int rc = round_step(x, &finished);
        if (rc != MPI_SUCCESS) {
            finish(x, rc, 0);
            return events + 1;
        }
        if (!finished)
            return events;
        events++;
        if (!x->and_round) {   /* the max of the proposals is in: claim it, AND the claims */
            x->and_round = 1;
            x->agreed = (uint32_t)x->val;
            rc = round_begin(x, empi_comm_context_claim(x->agreed, x->width));
        } else if (x->val) {
            finish(x, MPI_SUCCESS, x->agreed);
            return events;
        } else {   /* someone could not take it: everybody proposes again */
            x->and_round = 0;
            x->proposal = empi_comm_context_propose(x->width, 1);
            rc = round_begin(x, (int)x->proposal);
        }
        if (rc != MPI_SUCCESS) {
            finish(x, rc, 0);
            return events;
        }
    }
}

static int idup_hook(void)
{
    int events = 0;
    for (idup_t *x = running, *next; x; x = next) {
        next = x->next;
        events += advance(x);
    }
    return events;
}

static int idup_poll(empi_request_t *req)
{
    return req->complete || !req->state ? 0 : advance(req->state);
}

static const empi_request_ops_t idup_ops = {.poll = idup_poll, .collective = 1};

int empi_comm_idup_start(empi_comm_t *parent, empi_comm_t *child, empi_request_t *req, int local_err)
{
    idup_t *x = calloc(1, sizeof *x);
    if (!x)
        return MPI_ERR_NO_MEM;
    empi_comm_retain(parent);
    empi_comm_retain(child);
    x->parent = parent;
    x->child = child;
    x->req = req;
    x->local_err = local_err;
    x->tree = empi_comm_is_inter(parent) ? parent->local_comm : parent;
    x->width = empi_comm_is_inter(parent) ? EMPI_INTERCOMM_CONTEXTS : 2;
    x->me = x->tree->rank;
    x->n = x->tree->size;
    x->tag = empi_coll_next_tag(parent);
    x->proposal = empi_comm_context_propose(x->width, 0);
    req->ops = &idup_ops;
    req->state = x;
    x->next = running;
    running = x;
    empi_progress_add_hook(idup_hook);   /* once: it ignores a hook it already has */
    int rc = round_begin(x, (int)x->proposal);
    if (rc != MPI_SUCCESS) {
        finish(x, rc, 0);
        return MPI_SUCCESS;   /* the request carries the error */
    }
    advance(x);
    return MPI_SUCCESS;
}
