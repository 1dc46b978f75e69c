/*
 * The node's shared segment: one per job and node, created by local rank 0, mapped by every local
 * rank, unlinked as soon as all have mapped it. Layout:
 *   page-rounded header: geometry + one slot per local rank (world rank, pid), then one cache
 *          line per local rank for cooperative copies (pt2pt/coop.c)
 *   rings: for each receiver, its local_size - 1 incoming rings, contiguous so the receiver's
 *          first touch places them in its memory.
 *   bulk rings (optional): the same arrangement with bigger rings for rendezvous data; never
 *          touched at attach, so a pair that never moves a large message costs no memory.
 *   cells (optional): for each unordered pair, cells that both directions share (shm.c), never
 *          touched at attach either.
 */
#ifndef EMPI_SHM_SEGMENT_H
#define EMPI_SHM_SEGMENT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime/bootstrap.h"

typedef struct empi_shm_slot {
    int32_t world_rank;
    int32_t pid;
    /* What this process waits on, for the deadlock watch (transport publish_wait). */
    _Atomic uint64_t wait_start, wait_seen;
} empi_shm_slot_t;

typedef struct empi_shm_header {
    uint64_t magic;
    uint64_t ring_bytes;
    uint64_t bulk_bytes;   /* 0: no bulk rings (the creator found no room for them) */
    uint64_t cell_stride;  /* bytes per cell; 0: no cells (the creator found no room for them) */
    uint64_t cells;        /* cells per pair */
    int32_t local_size;
    uint32_t node_flags;   /* the creator's findings about this node, one answer for every rank */
    empi_shm_slot_t slots[];
} empi_shm_header_t;

typedef struct empi_shm_segment {
    empi_shm_header_t *hdr;
    size_t bytes;
    size_t ring_bytes;
    size_t bulk_bytes;
    size_t cell_stride;    /* 0: no cells */
    int cells;             /* per pair */
    int local_size;
    int creator;       /* local rank 0: unlinks the name */
    uint32_t node_flags;   /* copied from the header */
    int unlinked;
    char name[64];
} empi_shm_segment_t;

/* Per-pair ring bytes for this node: min(size, budget / (local_size - 1)), a power of two >= 8 KiB. */
size_t empi_shm_ring_bytes(size_t ring_size, size_t budget, int local_size);

/*
 * Create (local rank 0) or open and map the segment. Collective: calls empi_boot_fence twice on every
 * rank, whatever happens, so a failure on one rank never leaves the others hanging in a fence.
 * `bulk_bytes` (0: none) is what the creator asks for; seg->bulk_bytes is what the node got, and
 * the same for `cells` cells of `cell_stride` bytes per pair (seg->cells, seg->cell_stride).
 * `node_flags` matters on the creator only: it is what every rank finds in seg->node_flags, so
 * that a measurement taken by one process decides for the node (timings differ between processes).
 * On success every local rank's slot is filled in. Returns 0, or -1 with a message on stderr.
 */
int empi_shm_segment_attach(empi_shm_segment_t *seg, const empi_boot_info_t *boot, size_t ring_bytes,
                            size_t bulk_bytes, size_t cell_stride, int cells, uint32_t node_flags);

/* Local rank `l`'s cache line of counters for cooperative copies (8 words, zero at creation). */
_Atomic uint64_t *empi_shm_segment_coop(const empi_shm_segment_t *seg, int l);

/* Shared memory of the ring carrying packets from local rank `src` to local rank `dst`. */
void *empi_shm_segment_ring(const empi_shm_segment_t *seg, int dst, int src);

/* The same for the bulk ring (only when seg->bulk_bytes != 0). */
void *empi_shm_segment_bulk(const empi_shm_segment_t *seg, int dst, int src);

/* The cells shared by local ranks `a` and `b` (either order; only when seg->cells != 0). */
void *empi_shm_segment_cells(const empi_shm_segment_t *seg, int a, int b);

void empi_shm_segment_detach(empi_shm_segment_t *seg);

#endif
