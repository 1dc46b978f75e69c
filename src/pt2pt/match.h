/*
 * Matching queues. A receive is matched against arrived-but-unclaimed messages (the unexpected
 * queue) in arrival order; an arriving message against posted receives in posting order. Both
 * orders together give MPI's non-overtaking rule. Pure data structures: no I/O, unit-tested.
 * Posted receives are kept in bins by source rank, those for MPI_ANY_SOURCE apart, each bin in
 * posting order with a sequence number across bins: an arriving message looks at its source's
 * bin and the wildcard list only and takes the earlier-posted of their first matches. (One list
 * made a message from a peer running ahead scan past thousands of receives for other peers.)
 * Likewise unexpected messages are on one list in arrival order (for MPI_ANY_SOURCE) and on
 * their source's bin, which a receive from that source searches alone.
 */
#ifndef EMPI_MATCH_H
#define EMPI_MATCH_H

#include <stdint.h>

#include "pt2pt/request.h"

#define EMPI_MATCH_BINS 64   /* a power of two; sources share bins modulo it */

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
    uint64_t runs;           /* rendezvous with EMPI_RTS_GETTABLE_RUNS: entries at addr */
    void *data;              /* eager payload (bytes long) */
    struct empi_comm *comm;  /* once handed out by MPI_Mprobe: where its receive raises errors */
    struct empi_unexpected *next, *prev;          /* every unexpected message, arrival order */
    struct empi_unexpected *bin_next, *bin_prev;  /* those of its source's bin, arrival order */
} empi_unexpected_t;

typedef struct empi_posted_list {
    empi_request_t *head, *tail;
} empi_posted_list_t;

typedef struct empi_posted_queue {
    empi_posted_list_t bin[EMPI_MATCH_BINS];   /* by source rank (rank mod EMPI_MATCH_BINS) */
    empi_posted_list_t any;                     /* MPI_ANY_SOURCE receives */
    uint64_t length;
    uint64_t seq;                               /* posting order across the lists */
} empi_posted_queue_t;

typedef struct empi_unexpected_bin {
    empi_unexpected_t *head, *tail;
} empi_unexpected_bin_t;

typedef struct empi_unexpected_queue {
    empi_unexpected_t *head, *tail;
    empi_unexpected_bin_t bin[EMPI_MATCH_BINS];
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
