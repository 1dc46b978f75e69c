/*
 * Matching queues. A receive is matched against arrived-but-unclaimed messages (the unexpected
 * queue) in arrival order; an arriving message against posted receives in posting order. Both
 * orders together give MPI's non-overtaking rule. Pure data structures: no I/O, unit-tested.
 */
#ifndef EMPI_MATCH_H
#define EMPI_MATCH_H

#include <stdint.h>

#include "pt2pt/request.h"

/* An arrived message nobody has asked for yet (also the object behind an MPI_Message). */
typedef struct empi_unexpected {
    uint32_t magic;          /* EMPI_MAGIC_MESSAGE once handed out by MPI_Mprobe */
    uint8_t type;            /* EMPI_PKT_EAGER, EMPI_PKT_EAGER_SYNC or EMPI_PKT_RTS */
    uint8_t rts_flags;
    uint8_t pooled;          /* record and payload came from the small-message pool (recv.c) */
    uint32_t ctx;
    int src, tag, world_src;
    uint64_t bytes;
    uint64_t sreq, addr;     /* rendezvous / sync: sender's ids */
    void *data;              /* eager payload (bytes long) */
    struct empi_comm *comm;  /* once handed out by MPI_Mprobe: where its receive raises errors */
    struct empi_unexpected *next, *prev;
} empi_unexpected_t;

typedef struct empi_posted_queue {
    empi_request_t *head, *tail;
    uint64_t length;
} empi_posted_queue_t;

typedef struct empi_unexpected_queue {
    empi_unexpected_t *head, *tail;
    uint64_t length;
} empi_unexpected_queue_t;

static inline int empi_match(uint32_t want_ctx, int want_src, int want_tag, uint32_t ctx, int src, int tag)
{
    return want_ctx == ctx && (want_src == src || want_src == MPI_ANY_SOURCE) &&
           (want_tag == tag || (want_tag == MPI_ANY_TAG && tag >= 0));
}

void empi_posted_append(empi_posted_queue_t *q, empi_request_t *req);
void empi_posted_remove(empi_posted_queue_t *q, empi_request_t *req);
/* First posted receive that accepts (ctx, src, tag), removed from the queue; NULL if none. */
empi_request_t *empi_posted_take(empi_posted_queue_t *q, uint32_t ctx, int src, int tag);

void empi_unexpected_append(empi_unexpected_queue_t *q, empi_unexpected_t *msg);
void empi_unexpected_remove(empi_unexpected_queue_t *q, empi_unexpected_t *msg);
/* First unexpected message that (ctx, src, tag) with wildcards accepts; not removed. */
empi_unexpected_t *empi_unexpected_find(empi_unexpected_queue_t *q, uint32_t ctx, int src, int tag);

#endif
