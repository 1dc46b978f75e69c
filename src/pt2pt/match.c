#include "pt2pt/match.h"

#include <stddef.h>

#include "core/dlist.h"

static empi_posted_list_t *list_of(empi_posted_queue_t *q, int peer)
{
    return peer == MPI_ANY_SOURCE ? &q->any : &q->bin[(unsigned)peer & (EMPI_MATCH_BINS - 1)];
}

void empi_posted_append(empi_posted_queue_t *q, empi_request_t *req)
{
    empi_posted_list_t *l = list_of(q, req->peer);
    req->post_seq = q->seq++;
    EMPI_DLIST_APPEND(l->head, l->tail, req, prev, next);
    q->length++;
}

void empi_posted_remove(empi_posted_queue_t *q, empi_request_t *req)
{
    empi_posted_list_t *l = list_of(q, req->peer);
    EMPI_DLIST_UNLINK(l->head, l->tail, req, prev, next);
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
    EMPI_DLIST_APPEND(q->head, q->tail, msg, prev, next);
    empi_unexpected_bin_t *b = bin_of(q, msg->src);
    EMPI_DLIST_APPEND(b->head, b->tail, msg, bin_prev, bin_next);
    q->length++;
}

void empi_unexpected_remove(empi_unexpected_queue_t *q, empi_unexpected_t *msg)
{
    EMPI_DLIST_UNLINK(q->head, q->tail, msg, prev, next);
    empi_unexpected_bin_t *b = bin_of(q, msg->src);
    EMPI_DLIST_UNLINK(b->head, b->tail, msg, bin_prev, bin_next);
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
