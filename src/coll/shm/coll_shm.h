/*
 * The shared-memory collective engine (coll_shm.c) as the algorithms see it: segment layout,
 * epoch primitives and the piece driver. Protocol description at the top of coll_shm.c.
 */
#ifndef EMPI_COLL_SHM_H
#define EMPI_COLL_SHM_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "coll/coll_algs.h"
#include "core/copy.h"
#include "core/tunables.h"

/* Data slots are a power of two between these, sized from EMPI_COLL_SHM_BUFFER and the ranks:
   larger slots cut a large collective into fewer pieces, each a synchronization of every rank,
   which is what costs when ranks outnumber cores. */
#define EMPI_SHM_SLOT_MIN (64 * 1024)
#define EMPI_SHM_SLOT_MAX (1024 * 1024)
/* The slot size this process asks for on a communicator of p ranks (EMPI_COLL_SHM_BUFFER). */
size_t empi_coll_shm_slot_wanted(int p);
/* Medium buffers per rank on a communicator of p ranks. */
unsigned empi_coll_shm_medium_lines(int p);
#define EMPI_SHM_INLINE 56
/* Post lines per rank: how many small pieces a writer may run ahead of the slowest reader. Deep,
   so that when ranks outnumber cores a root broadcasts many small messages per time slice
   instead of waiting for a descheduled reader every other one (4 ranks on 2 cores, bcast 4 B-2 KiB:
   64 lines 0.5-0.6 of 16; 256 lines 0.62-0.7 of 64 for bcast of 4-32 B, a small allreduce
   1.0-1.05). Pieces up to EMPI_SHM_MEDIUM bytes that do not fit inline take one of
   m->medium_lines buffers per rank: 64 while all ranks' buffers fit in EMPI_SHM_MEDIUM_BUDGET,
   then fewer, down to 16 (4 MiB at 128 ranks). Not 256: a benchmark's 100 warm-up calls would no
   longer touch every buffer's page, and the first pass through them paid a page fault each (2
   ranks, 64 B: 0.43-0.62 us against 0.18-0.30), while mapping them all at set-up made a
   communicator 10 ms slower to create. The big data slots stay two deep; mid-size pieces of
   some algorithms go deep in them. */
#define EMPI_SHM_LINES 256
#define EMPI_SHM_MEDIUM 2048
#define EMPI_SHM_MEDIUM_BUDGET (2 * 1024 * 1024)
#define EMPI_SHM_MEDIUM_LINES_MAX 64
#define EMPI_SHM_MEDIUM_LINES_MIN 16

typedef struct {
    _Atomic uint64_t seq;
    char data[EMPI_SHM_INLINE];
} __attribute__((aligned(64))) shm_line_t;
_Static_assert(EMPI_SHM_INLINE >= 2 * sizeof(uint64_t) + sizeof(int), "a post line holds two addresses and a status");

typedef struct {
    shm_line_t post[EMPI_SHM_LINES];
    struct {
        _Atomic uint64_t seq;
        uint64_t probe;   /* set-up only: address of a known word, read by the others over CMA */
        char pad[48];
    } __attribute__((aligned(64))) done;
} shm_rank_t;

struct empi_coll_shm {
    void *base;
    size_t len;
    int p, me;
    shm_rank_t *ctl;
    size_t slot;          /* bytes of one data slot (the same on every rank) */
    char *slots;          /* [2][p][slot] */
    char *medium;         /* [p][medium_lines][EMPI_SHM_MEDIUM] */
    unsigned medium_lines;   /* a power of two dividing EMPI_SHM_LINES (empi_coll_shm_medium_lines) */
    uint64_t epoch;       /* next epoch to hand out */
    uint64_t synced;      /* every rank's done >= synced (known locally: no rereading done lines) */
    uint64_t completed;   /* last epoch this rank finished: pieces run strictly in epoch order */
    uint64_t run_start, run_last;   /* this rank's current run of deep pieces (empi_shm_deep_free) */
    unsigned run_depth;
    int last_barrier_tag; /* the collective tag of the last barrier started here (barrier_shm_release.c) */
    const int *world;     /* comm rank -> world rank */
    int cma;              /* every pair reads the other's memory (agreed by all at set-up) */
    int crowded;          /* ranks take turns on this node's CPUs */
    char *scratch;        /* EMPI_SHM_CMA_CHUNK bytes for single-copy reductions, made on first use */
    char *slice;          /* single copy: a reduce's slice off the root, an in-place scan's input */
    size_t slice_len;
};

/* Single-copy (CMA) algorithms read peers' buffers in chunks of this size: big enough that the
   system call's cost is small, small enough to stay in L2 while it is reduced. */
#define EMPI_SHM_CMA_CHUNK (64 * 1024)

static inline char *empi_shm_slot(struct empi_coll_shm *m, int parity, int r)
{
    return m->slots + ((size_t)parity * m->p + r) * m->slot;
}

static inline shm_line_t *empi_shm_line(struct empi_coll_shm *m, int r, uint64_t e)
{
    return &m->ctl[r].post[e % EMPI_SHM_LINES];
}

/* Every rank's done >= target (what is learnt is kept in synced). */
static inline int empi_shm_all_reached(struct empi_coll_shm *m, uint64_t target)
{
    if (m->synced >= target)
        return 1;
    uint64_t low = UINT64_MAX;
    for (int i = 0; i < m->p; i++) {
        uint64_t d = atomic_load_explicit(&m->ctl[i].done.seq, memory_order_acquire);
        if (d < target)
            return 0;
        if (d < low)
            low = d;
    }
    m->synced = low;
    return 1;
}

/* Every rank but this one has finished piece e (this one has not marked it yet: it still has to
   read what they left in their post lines). */
static inline int empi_shm_others_done(struct empi_coll_shm *m, uint64_t e)
{
    for (int i = 0; i < m->p; i++)
        if (i != m->me && atomic_load_explicit(&m->ctl[i].done.seq, memory_order_acquire) < e)
            return 0;
    return 1;
}

/*
 * Every rank has finished the piece that last used the memory piece e of `len` bytes writes: its
 * post line (piece e - EMPI_SHM_LINES), its medium buffer (e - m->medium_lines) or its parity's
 * slot (e - 2).
 */
static inline int empi_shm_all_done(struct empi_coll_shm *m, uint64_t e, size_t len)
{
    uint64_t back = len <= EMPI_SHM_INLINE ? EMPI_SHM_LINES : len <= EMPI_SHM_MEDIUM ? m->medium_lines : 2;
    return e <= back || empi_shm_all_reached(m, e - back);
}

static inline int empi_shm_all_posted(struct empi_coll_shm *m, uint64_t e, uint64_t v)
{
    for (int i = 0; i < m->p; i++)
        if (atomic_load_explicit(&empi_shm_line(m, i, e)->seq, memory_order_acquire) < v)
            return 0;
    return 1;
}

static inline int empi_shm_posted(struct empi_coll_shm *m, int r, uint64_t e, uint64_t v)
{
    return atomic_load_explicit(&empi_shm_line(m, r, e)->seq, memory_order_acquire) >= v;
}

/* Post piece e in rank r's line, which this rank alone writes in piece e (scatterv's root describes
   each reader's block in the reader's line, so the reader finds flag and block in one line). */
static inline void empi_shm_post_to(struct empi_coll_shm *m, int r, uint64_t e, uint64_t v)
{
    atomic_store_explicit(&empi_shm_line(m, r, e)->seq, v, memory_order_release);
}

static inline void empi_shm_post(struct empi_coll_shm *m, uint64_t e, uint64_t v)
{
    empi_shm_post_to(m, m->me, e, v);
}

/* This rank has finished piece e; `all_synced`: every rank is known to have finished e - 1. */
static inline void empi_shm_set_done(struct empi_coll_shm *m, uint64_t e, int all_synced)
{
    atomic_store_explicit(&m->ctl[m->me].done.seq, e, memory_order_release);
    m->completed = e;
    if (all_synced && m->synced < e - 1)
        m->synced = e - 1;
}

/* Rank r's medium buffer of piece e. */
static inline char *empi_shm_medium(struct empi_coll_shm *m, uint64_t e, int r)
{
    return m->medium + ((size_t)r * m->medium_lines + e % m->medium_lines) * EMPI_SHM_MEDIUM;
}

/* Where rank r's data of piece e (`len` bytes) lives: inline in its post line when it fits. */
static inline char *empi_shm_data(struct empi_coll_shm *m, uint64_t e, int r, size_t len)
{
    if (len <= EMPI_SHM_INLINE)
        return empi_shm_line(m, r, e)->data;
    if (len <= EMPI_SHM_MEDIUM)
        return empi_shm_medium(m, e, r);
    return empi_shm_slot(m, (int)(e & 1), r);
}

/*
 * Deep pieces: a writer of mid-size pieces (over EMPI_SHM_MEDIUM) may run `depth` pieces ahead of
 * its slowest reader instead of two, so that when ranks outnumber cores a gather's senders deposit
 * a burst of calls and leave. Piece e takes position e % depth of the writer's two slots: in slot
 * e & 1 (as any piece e), cut in positions of at least len rounded up to a power of two. Only an
 * algorithm whose every rank writes its own slots alone may use them, and then on every rank for
 * the same (e, len). The bytes ahead are capped: beyond what the caches keep, the reader misses
 * more than it gains (np4 gather 16 KiB on 2 cores: 64 deep 12.2 us, 16 deep 6.1, 2 deep 7.6).
 */
#define EMPI_SHM_DEEP_BYTES (256 * 1024)
#define EMPI_SHM_DEEP_MIN 8   /* fewer positions than this: the usual two slots */

static inline unsigned empi_shm_deep_depth(const struct empi_coll_shm *m, size_t len)
{
    if (len <= EMPI_SHM_MEDIUM)
        return 0;
    size_t pos = EMPI_SHM_MEDIUM;
    while (pos < len)
        pos *= 2;
    size_t depth = EMPI_SHM_DEEP_BYTES / pos;
    if (depth > 2 * (m->slot / pos))
        depth = 2 * (m->slot / pos);
    if (depth > EMPI_SHM_LINES)
        depth = EMPI_SHM_LINES;   /* piece e's flag goes in post line e % EMPI_SHM_LINES */
    return depth >= EMPI_SHM_DEEP_MIN ? (unsigned)depth : 0;
}

/* Where piece e's deep position starts in slot e & 1. */
static inline size_t empi_shm_deep_offset(const struct empi_coll_shm *m, uint64_t e, unsigned depth)
{
    return (size_t)(e % depth) / 2 * (2 * m->slot / depth);
}

/* Where rank r's data of piece e (`len` bytes) lives for an algorithm that takes deep pieces: its
   deep position, or where empi_shm_data puts a piece of any other size. */
static inline char *empi_shm_deep_data(struct empi_coll_shm *m, uint64_t e, int r, size_t len)
{
    unsigned depth = empi_shm_deep_depth(m, len);
    if (!depth)
        return empi_shm_data(m, e, r, len);
    return empi_shm_slot(m, (int)(e & 1), r) + empi_shm_deep_offset(m, e, depth);
}

/* The memory of piece e is free for its writer (empi_shm_all_done for a size that is not deep). A
   deep position is once every rank has finished piece e - depth, which last used it within this
   run of deep pieces alike, and every piece before the run (any layout). */
static inline int empi_shm_deep_free(struct empi_coll_shm *m, uint64_t e, size_t len)
{
    unsigned depth = empi_shm_deep_depth(m, len);
    if (!depth)
        return empi_shm_all_done(m, e, len);
    if (m->run_last != e) {
        if (m->run_last + 1 != e || m->run_depth != depth) {
            m->run_start = e;
            m->run_depth = depth;
        }
        m->run_last = e;
    }
    uint64_t need = e > depth ? e - depth : 0;
    if (m->run_start - 1 > need)
        need = m->run_start - 1;
    return empi_shm_all_reached(m, need);
}

/* Piece e was a barrier: a run of deep pieces that ended at e - 1 goes on across it (safe: every
   rank had finished the pieces before it). Otherwise the next deep piece would start a new run,
   and its writer would wait until every rank has left the barrier, which when ranks outnumber
   cores costs a turn of the scheduler (4 ranks on 2 cores, a bcast of 4 KiB after a barrier: 5.6
   us against 0.5). */
static inline void empi_shm_run_goes_on(struct empi_coll_shm *m, uint64_t e)
{
    if (m->run_last + 1 == e)
        m->run_last = e;
}

/* Single-copy algorithms: publish this rank's two buffer addresses for piece e (post 2e+1). */
static inline void empi_shm_publish(struct empi_coll_shm *m, uint64_t e, const void *a, const void *b)
{
    uint64_t addr[2] = {(uint64_t)(uintptr_t)a, (uint64_t)(uintptr_t)b};
    memcpy(empi_shm_line(m, m->me, e)->data, addr, sizeof addr);
    empi_shm_post(m, e, 2 * e + 1);
}

/* Address k (0 or 1) that rank r published for piece e. */
static inline const char *empi_shm_peer_addr(struct empi_coll_shm *m, uint64_t e, int r, int k)
{
    uint64_t addr[2];
    memcpy(addr, empi_shm_line(m, r, e)->data, sizeof addr);
    return (const char *)(uintptr_t)addr[k];
}

/* After the two addresses in rank r's post line of a single-copy piece: an error class (0: none).
   In another rank's line (bcast's pair), for r to read once this rank is done with piece e: r
   alone reuses its line, and only after it has read this. */
static inline void empi_shm_post_status_to(struct empi_coll_shm *m, int r, uint64_t e, int err)
{
    memcpy(empi_shm_line(m, r, e)->data + 2 * sizeof(uint64_t), &err, sizeof err);
}

/* This rank's error class for a part others take from it, written before a later post of the same
   line, read after it. */
static inline void empi_shm_post_status(struct empi_coll_shm *m, uint64_t e, int err)
{
    empi_shm_post_status_to(m, m->me, e, err);
}

static inline int empi_shm_peer_status(struct empi_coll_shm *m, uint64_t e, int r)
{
    int err;
    memcpy(&err, empi_shm_line(m, r, e)->data + 2 * sizeof(uint64_t), sizeof err);
    return err;
}

/* Copy n bytes of a piece out of the segment into a receive buffer of `total` bytes: with
   non-temporal stores once that buffer outgrows what the caches keep, so that writing it does not
   first read every line of it (np4 alltoall 512 KiB-1 MiB 10-18% faster here). */
static inline void empi_shm_copy_out(void *dst, const void *src, size_t n, size_t total)
{
    empi_copy_for(dst, src, n, total, empi_tunables.coll_copy_stream_threshold);
}

/* Copy len bytes at `remote` in rank r's memory to `local`; 0 or an MPI error class. */
int empi_shm_read(struct empi_coll_shm *m, int r, void *local, const void *remote, size_t len);
/* Copy len bytes at `local` to `remote` in rank r's memory; 0 or an MPI error class. */
int empi_shm_write(struct empi_coll_shm *m, int r, const void *local, void *remote, size_t len);
/* The chunk buffer of single-copy reductions (NULL when out of memory). */
char *empi_shm_scratch(struct empi_coll_shm *m);
/* At least len bytes of the segment's slice buffer for piece e, kept for the next call: 0 while an
   earlier piece's readers may still be in it (a piece marks itself done before they are through),
   else 1 with *buf set (NULL when out of memory). */
int empi_shm_slice_buf(struct empi_coll_shm *m, uint64_t e, size_t len, char **buf);

/*
 * One operation: `count` elements of `esize` bytes cut into pieces of `piece` elements, one epoch
 * each. The driver computes the current piece (e, parity, cnt, len, off0) and calls `step`
 * until it returns 1 (piece finished; it must have called empi_shm_set_done), 0 (waiting) or
 * -class (error); phase is reset to 0 for every piece.
 */
typedef struct empi_shm_op empi_shm_op_t;
struct empi_shm_op {
    int (*step)(empi_shm_op_t *o);
    struct empi_coll_shm *m;
    int phase;
    int root;
    uint64_t e;              /* epoch of the current piece */
    int parity;
    int streamed;            /* this piece's blocks went into the segment with non-temporal stores */
    uint64_t copy_in_ns;     /* ... and took this long to copy in (coll/shm/shm_stream.c) */
    MPI_Count piece, count, done_elems;
    MPI_Count cnt;           /* elements in the current piece */
    size_t len, off0;        /* its bytes, and its byte offset in the message */
    const char *sbuf;        /* contiguous bytes (true_lb applied) */
    char *rbuf;
    empi_datatype_t *dt;
    empi_op_t *op;
    size_t esize;
    size_t nb;               /* block bytes (alltoall, allgather) */
    int all;                 /* reductions: every rank gets the result (allreduce) */
    int err;                 /* single-copy algorithms: error class to return once the others are done */
    int uses_slice;          /* single-copy: this rank's output (reduce off the root) or input (scan in
                                place) goes in the segment's slice buffer, taken at each start */
    void *plan;              /* the algorithm's own layout (alltoallv), in schedule memory */
};

/* Single-copy algorithms' first phase (0 -> 1): once the post line is free, publish sbuf and rbuf
   for the others to read. Returns 0 while waiting. */
static inline int empi_shm_cma_publish(empi_shm_op_t *o)
{
    if (o->phase == 0) {
        if (!empi_shm_all_done(o->m, o->e, 0))
            return 0;
        empi_shm_publish(o->m, o->e, o->sbuf, o->rbuf);
        o->err = MPI_SUCCESS;
        o->phase = 1;
    }
    return 1;
}

/* Their last phase, after empi_shm_set_done: the others may still be reading our buffers, so the
   piece ends when every rank is through it. A step's return value: 0 waiting, 1, or -o->err. */
static inline int empi_shm_cma_finish(empi_shm_op_t *o)
{
    if (!empi_shm_all_reached(o->m, o->e))
        return 0;
    return o->err == MPI_SUCCESS ? 1 : -o->err;
}

/* Queue o (copied) as the schedule's shared-memory step. */
int empi_shm_build(empi_sched_t *s, const empi_shm_op_t *o);
/* Run o to completion now (blocking fast paths); returns an MPI error class. */
int empi_shm_run_direct(empi_shm_op_t *o);
/* Set up o as the reduce (all = 0: to a->root) or allreduce (all = 1) of the call `a` in shared
   memory (reduce_shm.c); 0 when that does not apply (derived types, no shared segment). */
int empi_shm_reduce_op(empi_comm_t *comm, const empi_coll_args_t *a, int all, empi_shm_op_t *o);

/* Scatter shm_cma's step (scatter_shm_cma.c): the root publishes sbuf, every other rank reads nb
   bytes of it into rbuf, its own block (all = 1: a bcast, the same block for all). */
int empi_shm_root_read_step(empi_shm_op_t *o);

/* Set up o as the single-copy (CMA) reduce (all = 0: to a->root) or allreduce (all = 1) of the call
   `a` (allreduce_shm_cma.c); 0 when that does not apply (not commutative, non-contiguous types, no
   CMA). */
int empi_shm_cma_reduce_op(empi_comm_t *comm, const empi_coll_args_t *a, int all, empi_shm_op_t *o);

/* Set up o as reduce shm_cma_root (all = 0) or allreduce shm_cma_each (all = 1): the root, or
   every rank, reads every input (CMA) and folds it alone (reduce_shm_cma_root.c); 0 when that does
   not apply (non-contiguous types, elements over 32 KiB, no CMA, an allreduce in place). */
int empi_shm_cma_fold_all_op(empi_comm_t *comm, const empi_coll_args_t *a, int all, empi_shm_op_t *o);

/* acc = the fold of cnt elements at byte offset off of every rank's data of the current piece,
   right to left (acc = d_i op acc: rank order for any op); own_posted 0: this rank's data is
   read from sbuf, not from the segment. Returns an MPI error class. */
int empi_shm_fold(empi_shm_op_t *o, size_t off, MPI_Count cnt, char *acc, int own_posted);

/* The reduction step shared by reduce and allreduce (reduce/reduce_shm.c). */
int empi_shm_reduce_step(empi_shm_op_t *o);
#define EMPI_SHM_SMALL_REDUCE 2048   /* pieces up to this many bytes: every rank folds all */
/* Reduce (one root): the root folds pieces up to this size alone, the others leave once posted;
   that beats two all-rank synchronizations up to here (np4 on 2 cores: 4 KiB 12.5 -> 4.4 us,
   16 KiB 18 -> 9.8, 64 KiB 23 -> 21; np2 4 KiB 2.6 -> 1.6). */
#define EMPI_SHM_SMALL_ROOT_REDUCE (64 * 1024)
/* A large reduction works in the slots directly: a piece in a medium buffer must be a small one. */
_Static_assert(EMPI_SHM_MEDIUM <= EMPI_SHM_SMALL_REDUCE, "medium pieces are reduced as small ones");

#endif
