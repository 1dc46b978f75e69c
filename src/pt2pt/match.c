#include "pt2pt/match.h"

#include <stddef.h>

void empi_posted_append(empi_posted_queue_t *q, empi_request_t *req)
{
    req->next = NULL;
    req->prev = q->tail;
    if (q->tail)
        q->tail->next = req;
    else
        q->head = req;
    q->tail = req;
    q->length++;
}

void empi_posted_remove(empi_posted_queue_t *q, empi_request_t *req)
{
    if (req->prev)
        req->prev->next = req->next;
    else
        q->head = req->next;
    if (req->next)
        req->next->prev = req->prev;
    else
        q->tail = req->prev;
    req->next = req->prev = NULL;
    q->length--;
}

empi_request_t *empi_posted_take(empi_posted_queue_t *q, uint32_t ctx, int src, int tag)
{
    for (empi_request_t *r = q->head; r; r = r->next) {
        if (empi_match(r->ctx, r->peer, r->tag, ctx, src, tag)) {
            empi_posted_remove(q, r);
            return r;
        }
    }
    return NULL;
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
    msg->next = msg->prev = NULL;
    q->length--;
}

empi_unexpected_t *empi_unexpected_find(empi_unexpected_queue_t *q, uint32_t ctx, int src, int tag)
{
    for (empi_unexpected_t *m = q->head; m; m = m->next)
        if (empi_match(ctx, src, tag, m->ctx, m->src, m->tag))
            return m;
    return NULL;
}
