/*
 * Gatherv and scatterv in shared memory (gather/gatherv_shm.c, scatter/scatterv_shm.c): one epoch
 * per call, since only the root knows every block's size. The end that holds a block's data
 * decides how it travels and says so in a descriptor at the start of the flag line data of the
 * block's non-root end (gatherv: the sender's own line; scatterv: the reader's line, written and
 * posted by the root), which also carries the flag: inline after the descriptor, in that rank's
 * medium buffer, in the writer's slot (up to 32 KiB, one after another while they fit; in a deep
 * position, coll_shm.h, when they fit one), read straight from the holder's buffer (single copy,
 * CMA: contiguous blocks beyond that up to 256 KiB, the address after the descriptor; the holder
 * waits for the reader), written by a gatherv sender straight into the root's receive buffer
 * (single copy: contiguous blocks from the same size, at the place the root published; the
 * senders write in parallel), or as a point-to-point message (when ranks outnumber cores, a small
 * block with no descriptor). The other end follows the descriptor rather than its own count, so counts
 * that disagree still meet: a shorter block is received (a root's receive counts are often upper
 * bounds), a longer one gives MPI_ERR_TRUNCATE, and nobody waits for something that is not coming.
 */
#ifndef EMPI_COLL_SHM_V_H
#define EMPI_COLL_SHM_V_H

#include "coll/shm/coll_shm.h"

enum {
    EMPI_SHM_V_NONE,
    EMPI_SHM_V_INLINE,
    EMPI_SHM_V_MEDIUM,
    EMPI_SHM_V_SLOT,
    EMPI_SHM_V_MESSAGE,
    EMPI_SHM_V_CMA,
    EMPI_SHM_V_TINY,   /* a message that needs no descriptor (empi_shm_v_take_ready) */
    EMPI_SHM_V_WRITE,  /* gatherv: to be written into the root's buffer (empi_shm_v_write) */
    EMPI_SHM_V_WRITTEN /* ... and so it was: nothing left to take */
};
/* When ranks outnumber cores, blocks up to EMPI_COLL_SHM_V_TINY_MAX go as EMPI_SHM_V_TINY messages
   that their writer sends without waiting for a free line: a gatherv's senders then run as far
   ahead as the transport's queues let them instead of EMPI_SHM_LINES calls (4 ranks on 2 cores,
   4-128 B back to back: 0.23-0.28 us against 0.34-0.43 inline; 8 ranks: gatherv 0.26-0.34
   against 0.97-1.73, scatterv 0.43-0.53 against 1.05-1.32). Calls separated by barriers, where
   nobody runs ahead, lose (4 ranks: scatterv 0.66-0.74 against 0.38-0.50, gatherv 1.53-1.60
   against 1.19-1.41), hence off by default; with a core each the line is faster too (2 ranks,
   4-32 B: 0.17 against 0.22 us). The reader takes the message when it arrives before any
   descriptor; a writer that posts for other blocks describes it as a message. */

typedef struct {
    uint64_t bytes;
    uint32_t way;
    uint32_t offset;   /* EMPI_SHM_V_SLOT: where in the writer's slot; EMPI_SHM_V_WRITTEN: the write's
                          error class */
} empi_shm_vdesc_t;

#define EMPI_SHM_V_INLINE_MAX (EMPI_SHM_INLINE - sizeof(empi_shm_vdesc_t))

/* Larger blocks go as messages even where the slot has room: a message's copy is pipelined (or
   single, CMA), the slot's two copies follow each other (2 ranks: 64 KiB 11 against 8.3 us); up
   to here a message would be eager and, its receive posted only once the descriptor is read,
   copied once more out of the unexpected queue. */
#define EMPI_SHM_V_SLOT_MAX (32 * 1024)
/* Where pairs read each other's memory, contiguous blocks in this range are read from their
   holder; larger ones go as messages, whose copy both processes share (2 ranks, 1 MiB: a
   single-copy read 1.5-1.9 times slower). When ranks outnumber cores the slot wins up to 32 KiB:
   the read's holder waits for its reader, while a deep position lets the writer run calls ahead
   (gatherv 16-32 KiB back to back: 4 ranks on 2 cores 0.53-0.72 of the read). With a core each
   the read wins from 16 KiB when calls are separated by barriers (2 ranks, scatterv 16-32 KiB
   0.7-0.75 of the slot, gatherv 32 KiB 0.8), though back to back it is 1.25-1.3 times the slot. */
#define EMPI_SHM_V_CMA_MIN (16 * 1024 + 1)
#define EMPI_SHM_V_CMA_MIN_CROWDED (32 * 1024 + 1)
#define EMPI_SHM_V_CMA_MAX (256 * 1024)

/* The smallest block that travels single copy on this communicator. */
static inline MPI_Count empi_shm_v_cma_min(const struct empi_coll_shm *m)
{
    return m->crowded ? EMPI_SHM_V_CMA_MIN_CROWDED : EMPI_SHM_V_CMA_MIN;
}

/* Gatherv's senders write contiguous blocks from the size they would be read from into the root's
   buffer, all at once rather than one after another by the root (4 ranks on 2 cores, 64 KiB-1 MiB
   paced by barriers: 0.37-0.89 of the reads), where the root's destinations fit its medium buffer.
   Not with one sender: one writer gains nothing over one reader, and over 256 KiB a message lets
   both processes share the copy. */
#define EMPI_SHM_V_WRITE_RANKS_MAX ((int)(EMPI_SHM_MEDIUM / (2 * sizeof(uint64_t))))
static inline int empi_shm_v_writes(const struct empi_coll_shm *m)
{
    return m->cma && m->p > 2 && m->p <= EMPI_SHM_V_WRITE_RANKS_MAX;
}

static inline int empi_shm_v_by_message(const empi_shm_vdesc_t *d)
{
    return d->way == EMPI_SHM_V_MESSAGE || d->way == EMPI_SHM_V_TINY;
}

/* One call's state, in schedule memory or on the blocking caller's stack. */
typedef struct {
    const empi_coll_args_t *a;
    const int *tag;           /* the call's tag, for the messages (a persistent call's changes at each start) */
    int err;                  /* first error class of this end (truncation) */
    int next;                 /* gatherv root: the next block to take (in rank order) */
    int described;            /* blocks taken by descriptor so far */
    int nreqs;
    empi_request_t **reqs;    /* the messages this end receives; room for one per rank */
} empi_shm_vplan_t;

/* How a block of `bytes` travels (`contig`: its holder's data is one run of bytes); *used is the
   writer's slot so far (advanced for a slot block). */
empi_shm_vdesc_t empi_shm_v_choose(const struct empi_coll_shm *m, MPI_Count bytes, int contig, size_t *used);

/* Gatherv: the way of a sender's block d of `bytes` (empi_shm_v_choose's) turned into
   EMPI_SHM_V_WRITE where the sender may write it into the root's buffer. */
void empi_shm_v_write_way(const struct empi_coll_shm *m, empi_shm_vdesc_t *d, MPI_Count bytes, int contig);

/* Gatherv's root, where single copy works: publish every sender's destination in its receive
   buffer for piece e (none for a non-contiguous receive type), and post. 0 while the memory it
   takes is still in use. */
int empi_shm_v_publish_dests(struct empi_coll_shm *m, uint64_t e, const empi_coll_args_t *a);

/* A gatherv sender's EMPI_SHM_V_WRITE block d at buf (of contiguous type dt): 0 until the root has
   published piece e; then written into the root's buffer where it has room (d becomes
   EMPI_SHM_V_WRITTEN) or else left for the root to read (EMPI_SHM_V_CMA; a block larger than the
   root's receive count is its truncation to report). */
int empi_shm_v_write(struct empi_coll_shm *m, uint64_t e, int root, empi_shm_vdesc_t *d, const void *buf,
                     const empi_datatype_t *dt);

/* Whether the writer may put piece e, whose blocks take `used` bytes of its slot (placed from 0 by
   empi_shm_v_choose) and, when `medium`, a medium buffer; *base is where the slot's blocks go in
   slot e & 1: a deep position when they fit one, so that a gatherv sender or a scatterv root runs
   as far ahead as in gather and scatter. Blocks in the lines alone run EMPI_SHM_LINES ahead. */
int empi_shm_v_free(struct empi_coll_shm *m, uint64_t e, size_t used, int medium, uint32_t *base);

/* The writer's side for piece e: pack (buf, count, dt) where d says (nothing for a message or an
   empty block) and put d in rank `owner`'s line; the slot is the writer's own (m->me). */
void empi_shm_v_put(struct empi_coll_shm *m, uint64_t e, int owner, const empi_shm_vdesc_t *d, const void *buf,
                    MPI_Count count, const empi_datatype_t *dt);

/* The reader's side: follow rank `owner`'s descriptor of piece e, whose slot is `writer`'s, into
   (buf, count, dt); a message is received from `writer` (posted into pl->reqs), a single-copy
   block read from `writer`'s memory. */
void empi_shm_v_take(struct empi_coll_shm *m, uint64_t e, int owner, int writer, empi_shm_vplan_t *pl, void *buf,
                     MPI_Count count, empi_datatype_t *dt);

/* empi_shm_v_take once `owner`'s line is posted for piece e (by the writer), or a receive of the
   writer's message (a tiny block, sent with no descriptor) once that has arrived: 1 when the block
   is taken, 0 while neither. */
int empi_shm_v_take_ready(struct empi_coll_shm *m, uint64_t e, int owner, int writer, empi_shm_vplan_t *pl,
                          void *buf, MPI_Count count, empi_datatype_t *dt);

/* The call's one epoch (count 0 is one piece) run by `step` over pl. */
empi_shm_op_t empi_shm_v_op(struct empi_coll_shm *m, empi_shm_vplan_t *pl, int (*step)(empi_shm_op_t *));

/* A reading end's last phase, as a step's return value: 0 until every message posted by
   empi_shm_v_take has arrived, then 1, or -class of the first error (truncation). */
int empi_shm_v_finish(empi_shm_vplan_t *pl);

#endif
