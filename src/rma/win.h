/*
 * Windows: the RMA layer's object and the internal interface between its files.
 *
 * A window keeps, for every rank of its group, how this process reaches that rank's memory
 * (empi_win_peer_t.path):
 *   DIRECT  the memory is mapped here (a node segment of Win_allocate/_shared, or our own memory):
 *           operations are loads, stores and hardware atomics, complete when the call returns;
 *   CMA     private memory of a process on this node (Win_create, dynamic windows): read and
 *           written with process_vm_readv/writev, also complete at return;
 *   AM      anything else (another node, or CMA refused): active messages through the pt2pt
 *           packet path, applied by the target's progress engine (rma_am.c).
 * Control words every node rank must see (passive-target locks, the accumulate lock, attached
 * regions of dynamic windows) live in one shared segment per window and node (win_segment.c).
 */
#ifndef EMPI_RMA_WIN_H
#define EMPI_RMA_WIN_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "comm/comm.h"
#include "core/global.h"
#include "core/progress.h"
#include "core/errhandler.h"
#include "core/object.h"
#include "datatype/datatype.h"
#include "datatype/op.h"
#include "mpi.h"
#include "pt2pt/request.h"

struct empi_attr;
struct empi_info;

enum { EMPI_RMA_DIRECT = 1, EMPI_RMA_CMA, EMPI_RMA_AM };

/* Regions a dynamic window exposes per rank (MPI_Win_attach beyond this: MPI_ERR_RMA_ATTACH). The
   table lives in every window's control block, two pages untouched (so unallocated) unless used. */
#define EMPI_WIN_DYN_MAX 512

/* Passive-target lock word: reader count in the low bits, the writer flag on top, and below it a
   flag a waiting writer raises so that new readers hold back (win_lock.c). */
#define EMPI_WIN_LOCK_WRITER (UINT64_C(1) << 62)
#define EMPI_WIN_LOCK_WAITING (UINT64_C(1) << 61)
/* How long a reader defers to a waiting writer before it takes its share anyway (win_lock.c), for
   local lockers and for the requests queued at a target of the message path (rma_am.c). */
#define EMPI_WIN_READER_PATIENCE_NS 10000000   /* 10 ms */

/* One rank's control block in the node segment (cache-line aligned, so ranks never share lines). */
typedef struct empi_win_slot {
    _Alignas(64) _Atomic uint64_t lock;     /* passive-target lock of this rank's memory */
    _Alignas(64) _Atomic uint32_t acc_lock; /* accumulate lock (win_lock.c), a line of its own */
    _Alignas(64) _Atomic uint32_t dyn_seq; /* seqlock over the attached-region table: odd = changing */
    uint32_t ndyn;
    _Alignas(64) _Atomic uint64_t arrive;  /* fences and barriers this rank has entered */
    struct empi_win_region {
        uint64_t base, size;
    } dyn[EMPI_WIN_DYN_MAX];
} empi_win_slot_t;

typedef struct empi_win_peer {
    char *base;          /* DIRECT: its memory as mapped here; CMA/AM: the address in its process */
    MPI_Aint size;
    int disp_unit;
    int world;           /* world rank */
    pid_t pid;
    uint8_t path;        /* EMPI_RMA_* */
    uint8_t atomics;     /* memory in a shared mapping: accumulates use hardware atomics */
    uint8_t on_node;
    uint8_t sync;        /* access epoch towards it: EMPI_WIN_SYNC_* bits */
    empi_win_slot_t *slot;   /* its control block in our node segment (on_node only) */
    uint32_t am_pending;     /* AM operations awaiting a reply (gets, flush acks, lock grants) */
    uint8_t net_read;        /* its memory is exposed to our transport's one-sided reads (rma_net.c) */
    uint8_t net_write;       /* ... and writes */
    uint8_t net_amo;         /* accumulates to it may use the transport's atomics (rma_net_atomic.c) */
    uint8_t am_acc_unflushed; /* an accumulate went to it by AM since the last transport atomic */
    uint64_t net_key, net_raddr;
    uint32_t ndyn_known;     /* dynamic windows off the node: its regions as last asked for */
    struct empi_win_region *dyn_known;
    uint8_t dyn_partial;     /* dyn_known is the part of a table too large for one packet */
} empi_win_peer_t;

enum {
    EMPI_WIN_SYNC_SHARED = 1,     /* MPI_Win_lock(MPI_LOCK_SHARED) held */
    EMPI_WIN_SYNC_EXCL = 2,       /* MPI_Win_lock(MPI_LOCK_EXCLUSIVE) held */
    EMPI_WIN_SYNC_STARTED = 4,    /* in the group of MPI_Win_start */
    EMPI_WIN_SYNC_ALL = 8,        /* shared lock taken by MPI_Win_lock_all */
    EMPI_WIN_SYNC_TOUCHED = 16,   /* AM traffic sent since the last flush (flush must round-trip) */
    EMPI_WIN_SYNC_NOCHECK = 32,   /* locked with MPI_MODE_NOCHECK: the lock word was not taken */
};

typedef struct empi_win_seg {
    void *base;
    size_t bytes;
    empi_win_slot_t *slots;    /* one per node rank of the window, in comm-rank order */
    char *data;                /* start of the memory of the allocate flavors */
} empi_win_seg_t;

typedef struct empi_win {
    empi_object_t obj;
    MPI_Win handle;
    empi_comm_t *comm;         /* private duplicate: fences, PSCW and AM traffic never meet user messages */
    int rank, size;
    int flavor;                /* MPI_WIN_FLAVOR_* */
    void *base;                /* this rank's memory (NULL for dynamic windows) */
    MPI_Aint mysize;
    int disp_unit;
    empi_win_peer_t *peers;    /* comm rank -> how to reach it */
    const void *last_get_dst;  /* origin buffer of the last get that could stream (rma_direct.c) */
    const void *last_put_dst;  /* target place of the last put that could stream (rma_direct.c) */
    empi_win_seg_t seg;
    int *node_ranks;           /* comm ranks on our node, ascending (index = slot) */
    int nnode;
    empi_errhandler_t *errhandler;
    struct empi_attr *attrs;
    struct empi_info *info;
    char name[MPI_MAX_OBJECT_NAME];
    int no_locks;              /* info no_locks=true: lock words are never touched */
    int owns_private;          /* base was malloc'ed here (allocate flavor without a segment) */
    uint64_t barriers;         /* window barriers entered (slot.arrive of ours) */

    /* synchronization state */
    int fence_open;            /* a fence opened an epoch (not followed by MPI_MODE_NOSUCCEED) */
    int fence_used;            /* operations issued since that fence */
    int lock_all;              /* inside MPI_Win_lock_all */
    int nlocks;                /* targets locked with MPI_Win_lock */
    int *start_ranks, nstart;  /* access group of MPI_Win_start (comm ranks) */
    int *post_ranks, npost;    /* exposure group of MPI_Win_post (comm ranks) */
    int posted;
    empi_request_t **done_reqs;   /* receives of the origins' completion notices (post .. wait) */

    /* active-message state */
    struct empi_win *next_am;  /* list of windows by context id, for arriving packets */
    uint32_t am_id;
    int uses_am;               /* counted in empi_rma_am_windows */
    struct empi_transport *net_tp; /* the transport that exposes our memory (rma_net.c), if any */
    void *net_handle;
    struct empi_rma_am_wait *am_waiting;   /* lock requests that must wait for the lock word */
    struct am_queued *am_early;   /* packets that came while this process was still creating it */
    int am_open;                  /* created here: packets are handled as they come */
} empi_win_t;

/* ---- objects (win_object.c) ---- */
empi_win_t *empi_win_get(MPI_Win h);
/* Validate a window argument; raises MPI_ERR_WIN on MPI_COMM_SELF's handler when invalid. */
int empi_win_check(MPI_Win h, const char *fname, empi_win_t **out);
empi_win_t *empi_win_alloc(void);
void empi_win_destroy(empi_win_t *w);

/* ---- creation (win_create.c, win_segment.c) ---- */
/* What each rank tells the others at creation. */
typedef struct empi_win_rec {
    uint64_t base;       /* address in its own process */
    int64_t size;
    int32_t disp_unit;
    int32_t world;
    int32_t pid;
    int32_t node;
} empi_win_rec_t;

int empi_win_seg_create(empi_win_t *w, const size_t *data_bytes, int contiguous, size_t align, size_t *offs);
/* Every rank of the window agrees on ok (logical AND over its private communicator). */
int empi_win_agree(empi_win_t *w, int ok);
/* Hints (win_attr.c): take the known keys of `given` (NULL: defaults only) into w->info. */
int empi_win_apply_info(empi_win_t *w, const struct empi_info *given);
int empi_win_info_flag(const struct empi_info *info, const char *key);
void empi_win_seg_destroy(empi_win_t *w);

/* ---- synchronization checks (win_sync.c) ---- */
/* MPI_SUCCESS if an RMA operation to comm rank t may be issued now, else MPI_ERR_RMA_SYNC. */
static inline int empi_win_access_ok(empi_win_t *w, int t)
{
    if (EMPI_LIKELY(w->peers[t].sync & (EMPI_WIN_SYNC_SHARED | EMPI_WIN_SYNC_EXCL | EMPI_WIN_SYNC_ALL |
                                        EMPI_WIN_SYNC_STARTED)))
        return MPI_SUCCESS;
    if (w->fence_open) {
        w->fence_used = 1;
        return MPI_SUCCESS;
    }
    return MPI_ERR_RMA_SYNC;
}
/* A passive-target epoch (lock or lock_all) is open towards comm rank t: where request-based
   operations may be issued (MPI 4.1 12.3.5). */
static inline int empi_win_passive_ok(const empi_win_t *w, int t)
{
    return (w->peers[t].sync & (EMPI_WIN_SYNC_SHARED | EMPI_WIN_SYNC_EXCL | EMPI_WIN_SYNC_ALL)) != 0;
}
/* Barrier over the window's ranks (shared memory on one node, messages otherwise). */
int empi_win_barrier(empi_win_t *w);
/* May a new epoch (lock, start, post) begin: no fence epoch with operations in it. */
int empi_win_can_begin(empi_win_t *w);
/* Wait until every operation issued to t is complete at the target (AM: round trip). */
int empi_win_flush_peer(empi_win_t *w, int t);
int empi_win_flush_all_peers(empi_win_t *w);
/* Lock word primitives (win_lock.c): try once; returns 1 when acquired. A shared try with
   `defer` set fails while a writer waits. */
int empi_win_lock_try(_Atomic uint64_t *word, int exclusive, int defer);
void empi_win_lock_release(_Atomic uint64_t *word, int exclusive);
/* The accumulate lock (acc_lock): exclusive for plain-load/store updates, shared around hardware
   atomics (win_lock.c). */
void empi_win_spin_acquire(_Atomic uint32_t *word);
void empi_win_spin_release(_Atomic uint32_t *word);
void empi_win_acc_shared_acquire(_Atomic uint32_t *word);
void empi_win_acc_shared_release(_Atomic uint32_t *word);
/* Hold it for one update: shared when the update uses hardware atomics, else exclusive. */
static inline void empi_win_acc_hold(_Atomic uint32_t *word, int atomics)
{
    if (atomics)
        empi_win_acc_shared_acquire(word);
    else
        empi_win_spin_acquire(word);
}
static inline void empi_win_acc_drop(_Atomic uint32_t *word, int atomics)
{
    if (atomics)
        empi_win_acc_shared_release(word);
    else
        empi_win_spin_release(word);
}

/* ---- operations (rma_op.c, rma_direct.c, rma_cma.c, rma_am.c) ---- */
typedef enum { EMPI_RMA_PUT, EMPI_RMA_GET, EMPI_RMA_ACC, EMPI_RMA_GET_ACC, EMPI_RMA_CAS } empi_rma_kind_t;

/* One RMA operation, checked and resolved to a target address range. */
typedef struct empi_rma_op {
    empi_rma_kind_t kind;
    const void *obuf;          /* origin data (put, accumulates), or destination (get) */
    MPI_Count ocount;
    empi_datatype_t *odt;
    void *rbuf;                /* result (get_accumulate, fetch_and_op, compare_and_swap) */
    MPI_Count rcount;
    empi_datatype_t *rdt;
    const void *cbuf;          /* compare value (compare_and_swap) */
    int target;
    MPI_Aint offset;           /* byte offset of the target buffer's origin from the peer's base */
    MPI_Count tcount;
    empi_datatype_t *tdt;
    empi_op_t *op;
    empi_datatype_t *elem;     /* accumulates: the predefined type of one element */
    MPI_Count bytes;           /* packed bytes moved */
    empi_request_t *req;       /* request-based forms: completed when the operation is */
    int done_here;             /* finished on return (no answer awaited), whatever the peer's path */
} empi_rma_op_t;

/* Execute op towards its target by the peer's path. Returns an MPI error class. */
int empi_rma_direct(empi_win_t *w, empi_rma_op_t *op);
int empi_rma_cma(empi_win_t *w, empi_rma_op_t *op);
int empi_rma_am(empi_win_t *w, empi_rma_op_t *op);

/*
 * One-sided reads and writes across nodes (rma_net.c). empi_rma_net_record: expose this rank's
 * memory if the transport to other nodes can read (and write) it without us, into the record every
 * rank gathers; empi_rma_net_accept takes the gathered records; empi_rma_net_get reads a get's
 * target runs, empi_rma_net_put writes a put's (MPI_SUCCESS, or an error after which the caller
 * uses active messages).
 */
typedef struct {
    uint64_t key, raddr;
    int32_t ok, amo;   /* exposed; and open to the transport's atomics */
} empi_rma_net_rec_t;
void empi_rma_net_record(empi_win_t *w, empi_rma_net_rec_t *mine);
void empi_rma_net_accept(empi_win_t *w, const empi_rma_net_rec_t *all);
void empi_rma_net_release(empi_win_t *w);
int empi_rma_net_get(empi_win_t *w, empi_rma_op_t *op);
int empi_rma_net_put(empi_win_t *w, empi_rma_op_t *op);
/* An accumulate, get_accumulate, fetch_and_op or compare_and_swap as one transport atomic
   (rma_net_atomic.c): MPI_SUCCESS (done), EMPI_RMA_NET_DECLINED (use active messages) or an
   error class. */
int empi_rma_net_atomic(empi_win_t *w, empi_rma_op_t *op);
#define EMPI_RMA_NET_DECLINED 0x10001

/* Straight through when everything about the call is the common case (rma_fast.c): MPI_SUCCESS,
   or EMPI_RMA_FAST_DECLINED for the general path. A put or get (get: 1) of `count` elements of one
   contiguous datatype on both sides; */
int empi_rma_put_get_fast(empi_win_t *w, int get, const void *obuf, MPI_Count count, MPI_Datatype h, int target,
                          MPI_Aint disp);
/* an accumulate (rbuf NULL), get-accumulate or fetch-and-op of `count` elements of one predefined
   datatype on every side. */
int empi_rma_acc_fast(empi_win_t *w, const void *obuf, MPI_Count count, MPI_Datatype h, void *rbuf, int target,
                      MPI_Aint disp, MPI_Op mop);
#define EMPI_RMA_FAST_DECLINED 0x10002

/* The CMA path could not reach the peer (the kernel refused): retry by active messages. */
#define EMPI_RMA_CMA_REFUSED 0x10000

/* Contiguous bytes into and out of mapped target memory, streamed from the sizes the tunables
   say (rma_direct.c). */
void empi_rma_put_bytes(empi_win_t *w, char *dst, const char *src, size_t bytes);  /* w: NULL for runs */
void empi_rma_get_bytes(empi_win_t *w, char *dst, const char *src, size_t bytes);
/* (buf, count, dt) as contiguous bytes: buf itself when contiguous, else a packed copy in *tmp
   (NULL when out of memory); the caller frees *tmp. */
const void *empi_rma_stream(const void *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count bytes,
                            void **tmp);
/* Its twin for data arriving: where `bytes` contiguous bytes for (buf, dt) go, buf itself when dt is
   contiguous, else a scratch in *tmp (NULL when out of memory) that the caller unpacks into buf and
   frees. */
char *empi_rma_sink(void *buf, const empi_datatype_t *dt, MPI_Count bytes, void **tmp);
/* Accumulate (and fetch) under the accumulate lock on an image of the target buffer whose
   origin is tmem, reducing with the target datatype (rma_direct.c). */
int empi_rma_acc_image(const empi_rma_op_t *op, char *tmem);
/* Compare-and-swap one element at t (rma_atomic.c). */
void empi_rma_cas(const empi_datatype_t *elem, const void *origin, const void *compare, void *result, char *t,
                  int atomics);
/* Types MPI_Compare_and_swap takes: integers, logicals, bytes. */
int empi_rma_cas_type_ok(empi_basic_t b);

/* Element-wise accumulate of n elements of `elem` from `in` into target memory `t`, fetching the
   old values into `fetch` when not NULL (rma_atomic.c). `atomics`: use hardware atomics when the
   element allows, else the caller holds the accumulate lock. */
void empi_rma_apply(const empi_op_t *op, const empi_datatype_t *elem, const void *in, char *t, void *fetch,
                    MPI_Count n, int atomics);
/* Does an accumulate of `bytes` of `elem` elements update under the exclusive lock with the
   vectorized kernels, rather than with one hardware atomic per element (EMPI_RMA_ACC_ATOMIC_MAX)? */
int empi_rma_acc_bulk(MPI_Count bytes, const empi_datatype_t *elem);
/* Can this element type be accumulated with hardware atomics at address a? */
int empi_rma_atomic_ok(const empi_datatype_t *elem, const void *a);
/* The predefined datatype of one element of a basic kind (NULL for none). */
empi_datatype_t *empi_rma_elem_type(empi_basic_t b);

/* CMA transfers between this process and pid (rma_cma.c): 0, -1 or EMPI_RMA_CMA_REFUSED. */
int empi_rma_cma_rw(pid_t pid, int write, void *local, uint64_t remote, size_t len);

/* ---- active messages (rma_am.c) ---- */
/* Windows of this process with peers reached by AM: their packets are applied only when we poll,
   so calls that complete locally still poll progress while this is nonzero. */
extern int empi_rma_am_windows;
static inline void empi_rma_am_poll(void)
{
    if (EMPI_UNLIKELY(empi_rma_am_windows))
        empi_progress_poll();
}
int empi_rma_am_init(void);
void empi_rma_am_register(empi_win_t *w);
void empi_rma_am_unregister(empi_win_t *w);
/* The window is set up here: handle the packets that came early, and the rest as they come. */
void empi_rma_am_open(empi_win_t *w);
void empi_rma_am_uses(empi_win_t *w);
int empi_rma_am_lock(empi_win_t *w, int t, int exclusive);
int empi_rma_am_unlock(empi_win_t *w, int t, int exclusive);
int empi_rma_am_flush(empi_win_t *w, int t);
/* Ask target t for the regions it has attached to dynamic window w, into p->dyn_known. */
int empi_rma_am_regions(empi_win_t *w, int t);

/* ---- dynamic windows (win_dynamic.c) ---- */
/* Is [addr, addr + len) inside a region peer t attached? */
int empi_win_dyn_contains(empi_win_t *w, int t, uint64_t addr, uint64_t len);
int empi_win_dyn_local_contains(empi_win_t *w, uint64_t addr, uint64_t len);
/* This rank's attached regions (call with the library lock held, as attach and detach do). */
int empi_win_dyn_table(empi_win_t *w, const struct empi_win_region **regions);

/* The errhandler hook core/error.c calls. */
empi_errhandler_t *empi_win_errhandler_of(struct empi_win *win, MPI_Win *handle_out);

#endif
