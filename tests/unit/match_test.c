/*
 * The matching queues (src/pt2pt/match.c): posted receives binned by source with a wildcard list,
 * unexpected messages on an arrival list and on their source's bin. Whatever the bins, an
 * arriving message takes the earliest-posted receive that accepts it, and a receive the
 * earliest-arrived message it accepts (MPI's non-overtaking order).
 */
#include <string.h>

#include "pt2pt/match.h"
#include "unit_check.h"

static empi_request_t reqs[8];

static empi_request_t *post(empi_posted_queue_t *q, int i, int peer, int tag, uint32_t ctx)
{
    reqs[i].peer = peer, reqs[i].tag = tag, reqs[i].ctx = ctx;
    empi_posted_append(q, &reqs[i]);
    return &reqs[i];
}

static void posted(void)
{
    empi_posted_queue_t q;
    memset(&q, 0, sizeof q);
    /* sources 3 and 3 + EMPI_MATCH_BINS share a bin */
    int far = 3 + EMPI_MATCH_BINS;
    empi_request_t *a = post(&q, 0, 3, 5, 0), *any = post(&q, 1, MPI_ANY_SOURCE, 5, 0);
    empi_request_t *b = post(&q, 2, 3, 5, 0), *c = post(&q, 3, far, MPI_ANY_TAG, 0);
    empi_request_t *other_ctx = post(&q, 4, 3, 5, 2);
    UCHECK(q.length == 5, "length %llu", (unsigned long long)q.length);
    UCHECK(empi_posted_take(&q, 0, far, 7) == c, "a message from the shared bin's other source");
    UCHECK(empi_posted_take(&q, 0, 3, 5) == a, "first posted for source 3");
    UCHECK(empi_posted_take(&q, 0, 3, 5) == any, "the wildcard posted before the next one for 3");
    UCHECK(empi_posted_take(&q, 0, 3, 5) == b, "then the second for 3");
    UCHECK(empi_posted_take(&q, 0, 3, 5) == NULL, "nothing left for (0, 3, 5)");
    UCHECK(empi_posted_take(&q, 2, 3, 6) == NULL, "tag 6 in context 2");
    empi_posted_remove(&q, other_ctx);   /* a cancelled receive */
    UCHECK(q.length == 0 && q.bin[3].head == NULL && q.any.head == NULL, "queue not empty");
    /* a wildcard posted first wins over a later specific one */
    any = post(&q, 5, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    a = post(&q, 6, 9, 1, 0);
    UCHECK(empi_posted_take(&q, 0, 9, 1) == any && empi_posted_take(&q, 0, 9, 1) == a, "wildcard first");
    /* negative (internal) tags are not taken by MPI_ANY_TAG */
    post(&q, 7, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    UCHECK(empi_posted_take(&q, 0, 1, -5) == NULL, "MPI_ANY_TAG took an internal tag");
}

static void unexpected(void)
{
    empi_unexpected_queue_t q;
    memset(&q, 0, sizeof q);
    empi_unexpected_t m[4];
    memset(m, 0, sizeof m);
    int far = 3 + EMPI_MATCH_BINS;
    int srcs[4] = {3, far, 3, 7};
    for (int i = 0; i < 4; i++) {
        m[i].src = srcs[i], m[i].tag = i;
        empi_unexpected_append(&q, &m[i]);
    }
    UCHECK(empi_unexpected_find(&q, 0, MPI_ANY_SOURCE, MPI_ANY_TAG) == &m[0], "arrival order");
    UCHECK(empi_unexpected_find(&q, 0, 3, MPI_ANY_TAG) == &m[0], "first from 3");
    UCHECK(empi_unexpected_find(&q, 0, 3, 2) == &m[2], "source 3, tag 2");
    UCHECK(empi_unexpected_find(&q, 0, far, MPI_ANY_TAG) == &m[1], "the bin's other source");
    empi_unexpected_remove(&q, &m[0]);
    UCHECK(empi_unexpected_find(&q, 0, 3, MPI_ANY_TAG) == &m[2], "after removing the first from 3");
    UCHECK(empi_unexpected_find(&q, 0, MPI_ANY_SOURCE, MPI_ANY_TAG) == &m[1], "arrival order after removal");
    empi_unexpected_remove(&q, &m[2]);
    UCHECK(empi_unexpected_find(&q, 0, 3, MPI_ANY_TAG) == NULL, "nothing left from 3");
    empi_unexpected_remove(&q, &m[1]);
    empi_unexpected_remove(&q, &m[3]);
    UCHECK(q.length == 0 && q.head == NULL && q.tail == NULL && q.bin[3].head == NULL && q.bin[7].tail == NULL,
           "queue not empty");
}

int main(void)
{
    posted();
    unexpected();
    puts("PASS match_test");
    return 0;
}
