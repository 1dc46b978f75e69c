#include "pt2pt/match.h"

#include <stddef.h>

static empi_posted_list_t *list_of(empi_posted_queue_t *q, int peer)
{
    return peer == MPI_ANY_SOURCE ? &q->any : &q->bin[(unsigned)peer & (EMPI_MATCH_BINS - 1)];
}

void empi_posted_append(empi_posted_queue_t *q, empi_request_t *req)
{
    empi_posted_list_t *l = list_of(q, req->peer);
    req->post_seq = q->seq++;
    req->next = NULL;
    req->prev = l->tail;
    if (l->tail)
        l->tail->next = req;
    else
        l->head = req;
    l->tail = req;
    q->length++;
}

void empi_posted_remove(empi_posted_queue_t *q, empi_request_t *req)
{
    empi_posted_list_t *l = list_of(q, req->peer);
    if (req->prev)
        req->prev->next = req->next;
    else
        l->head = req->next;
    if (req->next)
        req->next->prev = req->prev;
    else
        l->tail = req->prev;
    req->next = req->prev = NULL;
    q->length--;
}

static empi_request_t *first_match(const empi_posted_list_t *l, uint32_t ctx, int src, int tag)
{
    for (empi_request_t *r = l->head; r; r = r->next)
        if (empi_match(r->ctx, r->peer, r->tag, ctx, src, tag))
            return r;
    return NULL;
}

empi_request_t *empi_posted_take(empi_posted_queue_t *q, uint32_t ctx, int src, int tag)
{
    empi_request_t *mine = first_match(list_of(q, src), ctx, src, tag);
    empi_request_t *any = first_match(&q->any, ctx, src, tag);
    empi_request_t *r = mine && (!any || mine->post_seq < any->post_seq) ? mine : any;
    if (r)
        empi_posted_remove(q, r);
    return r;
}

static empi_unexpected_bin_t *bin_of(empi_unexpected_queue_t *q, int src)
{
    return &q->bin[(unsigned)src & (EMPI_MATCH_BINS - 1)];
}

void empi_unexpected_append(empi_unexpected_queue_t *q, empi_unexpected_t *msg)
{
    msg->next = NULL;
    msg->prev = q->tail;
    if (q->tail)
        q->tail->next = msg;
    else
        q->head = msg;
    q->tail = msg;
    empi_unexpected_bin_t *b = bin_of(q, msg->src);
    msg->bin_next = NULL;
    msg->bin_prev = b->tail;
    if (b->tail)
        b->tail->bin_next = msg;
    else
        b->head = msg;
    b->tail = msg;
    q->length++;
}

void empi_unexpected_remove(empi_unexpected_queue_t *q, empi_unexpected_t *msg)
{
    if (msg->prev)
        msg->prev->next = msg->next;
    else
        q->head = msg->next;
    if (msg->next)
        msg->next->prev = msg->prev;
    else
        q->tail = msg->prev;
    empi_unexpected_bin_t *b = bin_of(q, msg->src);
    if (msg->bin_prev)
        msg->bin_prev->bin_next = msg->bin_next;
    else
        b->head = msg->bin_next;
    if (msg->bin_next)
        msg->bin_next->bin_prev = msg->bin_prev;
    else
        b->tail = msg->bin_prev;
    msg->next = msg->prev = msg->bin_next = msg->bin_prev = NULL;
    q->length--;
}

empi_unexpected_t *empi_unexpected_find(empi_unexpected_queue_t *q, uint32_t ctx, int src, int tag)
{
    if (src == MPI_ANY_SOURCE) {
        for (empi_unexpected_t *m = q->head; m; m = m->next)
            if (empi_match(ctx, src, tag, m->ctx, m->src, m->tag))
                return m;
        return NULL;
    }
    for (empi_unexpected_t *m = bin_of(q, src)->head; m; m = m->bin_next)
        if (empi_match(ctx, src, tag, m->ctx, m->src, m->tag))
            return m;
    return NULL;
}
