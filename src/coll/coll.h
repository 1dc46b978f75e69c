/*
 * The collective layer. Every collective operation is described by one argument block
 * (empi_coll_args_t), an algorithm chosen for it from the registry (coll_select.c) builds a
 * schedule (sched.c) of sends, receives, local reductions, copies and polls separated by fences,
 * and the schedule engine runs it: to completion for blocking calls, from the progress engine for
 * nonblocking and persistent ones. One engine, one description of each algorithm.
 */
#ifndef EMPI_COLL_H
#define EMPI_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "comm/comm.h"
#include "datatype/datatype.h"
#include "datatype/op.h"
#include "pt2pt/request.h"

typedef enum {
    EMPI_COLL_BARRIER,
    EMPI_COLL_BCAST,
    EMPI_COLL_REDUCE,
    EMPI_COLL_ALLREDUCE,
    EMPI_COLL_GATHER,
    EMPI_COLL_GATHERV,
    EMPI_COLL_SCATTER,
    EMPI_COLL_SCATTERV,
    EMPI_COLL_ALLGATHER,
    EMPI_COLL_ALLGATHERV,
    EMPI_COLL_ALLTOALL,
    EMPI_COLL_ALLTOALLV,
    EMPI_COLL_ALLTOALLW,
    EMPI_COLL_REDUCE_SCATTER,
    EMPI_COLL_REDUCE_SCATTER_BLOCK,
    EMPI_COLL_SCAN,
    EMPI_COLL_EXSCAN,
    EMPI_COLL_COUNT
} empi_coll_kind_t;

/*
 * Arguments of one collective call, normalized: MPI_IN_PLACE becomes in_place = 1 (sbuf then
 * NULL), int count arrays are widened to MPI_Count/MPI_Aint copies the schedule owns.
 *   bcast:        rbuf/rcount/rdt is the buffer
 *   reductions:   sbuf -> rbuf, rcount elements of rdt, op (reduce_scatter: rcounts; _block: rcount)
 *   gather/scatter/allgather/alltoall families: s* and r* as in the standard
 *   alltoallw:    sdts/rdts, displacements in bytes
 */
typedef struct empi_coll_args {
    int coll;
    int root;
    int in_place;
    const void *sbuf;
    void *rbuf;
    MPI_Count scount, rcount;
    empi_datatype_t *sdt, *rdt;
    const MPI_Count *scounts, *rcounts;
    const MPI_Aint *sdispls, *rdispls;
    empi_datatype_t *const *sdts, *const *rdts;
    empi_op_t *op;
    empi_comm_t *comm;
    /* Blocking fast paths: the call's tag, taken before the fast path runs as a schedule takes its
       own, so a rank on the fast path and one on the schedule path (a local condition such as a
       contiguous type can differ between them) use the same tags afterwards. */
    int tag;
} empi_coll_args_t;

/* ---------------------------------------------------------------- schedules */

typedef enum {
    EMPI_SOP_SEND,
    EMPI_SOP_RECV,
    EMPI_SOP_REDUCE,   /* dst = src op dst */
    EMPI_SOP_COPY,     /* (src, count, dt) -> (dst, rcount, rdt) through the byte stream */
    EMPI_SOP_POLL,     /* fn(sched, arg) until it returns 1 (<0: error class negated) */
    EMPI_SOP_FENCE,    /* everything before completes before anything after starts */
} empi_sop_kind_t;

struct empi_sched;
typedef int (*empi_sched_poll_fn)(struct empi_sched *s, void *arg);

typedef struct empi_sop {
    uint8_t kind;
    uint8_t pending;
    int peer;
    const void *src;
    void *dst;
    MPI_Count count, rcount;
    empi_datatype_t *dt, *rdt;
    empi_op_t *op;
    empi_sched_poll_fn fn;
    void *arg;
    empi_request_t *req;
    empi_comm_t *comm;   /* NULL: the schedule's (intercommunicator algorithms use their local_comm) */
} empi_sop_t;

#define EMPI_SCHED_INLINE_OPS 8

#define EMPI_SCHED_TMP_INLINE 256

typedef struct empi_sched {
    empi_sop_t *ops;
    int n, cap;
    int pos;          /* first op of the running round */
    int end;          /* its fence (or n) */
    int issued;       /* the round's ops have been started */
    int scan;         /* the round's ops before it are complete */
    int round_polls;  /* the round has poll ops (they must run on every pass) */
    int done;
    int err;
    int tag;
    int persistent;
    int active;       /* on the progress list */
    empi_comm_t *comm;
    empi_comm_t *user_comm;           /* persistent: the user's communicator, comm a private duplicate */
    empi_request_t *req;              /* the user's request (nonblocking/persistent) */
    void **tmp;                       /* buffers freed with the schedule */
    int ntmp, tmpcap;
    size_t tmp_inline_used;           /* bytes of tmp_inline handed out */
    void (*cleanup)(struct empi_sched *s);  /* algorithm state release, optional */
    void *state;
    void (*restart)(struct empi_sched *s);  /* persistent: reset algorithm state at start */
    struct empi_sched *next, *prev;
    /* empi_sched_poll_ordered: its op, which completes only after those of the same key with a
       smaller *order_seq (shared-memory operations of one segment, in epoch order) */
    const void *order_key;
    const uint64_t *order_seq;
    int order_op;
    int heap;                         /* allocated by empi_sched_new (else caller-owned storage) */
    int holds_comm;                   /* a reference on comm to drop at free */
    empi_datatype_t **held;           /* datatype references to drop at free */
    int nheld;
    empi_sop_t inline_ops[EMPI_SCHED_INLINE_OPS];
    /* room for one small algorithm state (shared-memory operations) without an allocation */
    _Alignas(16) char state_inline[176];
    /* the first small scratch buffers, without a malloc each (schedules never move once built) */
    _Alignas(16) char tmp_inline[EMPI_SCHED_TMP_INLINE];
} empi_sched_t;

empi_sched_t *empi_sched_new(empi_comm_t *comm);
/* The schedule of a persistent collective on comm (collective over comm; NULL with *rc on failure).
   It runs on a private duplicate of comm: persistent collectives may be started in any order, a
   different one on each process (MPI 4.0, 6.13), so they cannot share comm's tag sequence or its
   shared-memory epochs with each other or with the other collectives.
   p2p_only: its operations are point-to-point messages only (neighborhood collectives), so the
   duplicate gets no shared segment or node hierarchy. */
empi_sched_t *empi_sched_new_persistent(empi_comm_t *comm, int p2p_only, int *rc);
/* The schedule of a nonblocking (persistent 0) or persistent call; NULL with *rc on failure. */
empi_sched_t *empi_sched_new_for(empi_comm_t *comm, int persistent, int p2p_only, int *rc);
/* Blocking calls keep the schedule on their stack: init, build, run, fini. */
void empi_sched_init(empi_sched_t *s, empi_comm_t *comm);
/* The same with the call's tag already taken (a blocking call whose fast path declined). */
void empi_sched_init_tag(empi_sched_t *s, empi_comm_t *comm, int tag);
void empi_sched_free(empi_sched_t *s);   /* fini for caller-owned schedules too */
/* Keep dt alive until the schedule is freed (nonblocking calls whose user frees the type). */
int empi_sched_hold(empi_sched_t *s, empi_datatype_t *dt);

/* Builders: return MPI_SUCCESS or MPI_ERR_NO_MEM. */
int empi_sched_send(empi_sched_t *s, const void *buf, MPI_Count count, empi_datatype_t *dt, int peer);
int empi_sched_recv(empi_sched_t *s, void *buf, MPI_Count count, empi_datatype_t *dt, int peer);
int empi_sched_reduce(empi_sched_t *s, const void *in, void *inout, MPI_Count count, empi_datatype_t *dt,
                      empi_op_t *op);
int empi_sched_copy(empi_sched_t *s, const void *src, MPI_Count scount, empi_datatype_t *sdt, void *dst,
                    MPI_Count rcount, empi_datatype_t *rdt);
int empi_sched_poll(empi_sched_t *s, empi_sched_poll_fn fn, void *arg);
/* A poll op (one per schedule) that cannot complete before the poll ops of other schedules with the
   same key and a smaller *seq: progress skips it while one of those waits. */
int empi_sched_poll_ordered(empi_sched_t *s, empi_sched_poll_fn fn, void *arg, const void *key, const uint64_t *seq);
int empi_sched_fence(empi_sched_t *s);

/* Scratch memory owned by the schedule. _dt: room for count elements of dt, returned pointer is
   the "buf" to pass with (count, dt) (it accounts for the type's lower bound). */
void *empi_sched_tmp(empi_sched_t *s, size_t bytes);
void *empi_sched_tmp_dt(empi_sched_t *s, MPI_Count count, const empi_datatype_t *dt);

/* Run to completion (blocking collectives). Returns an MPI error class. */
int empi_sched_run(empi_sched_t *s);
/* Make a user request that drives s (nonblocking: started now; persistent: started by MPI_Start). */
int empi_sched_request(empi_sched_t *s, int persistent, empi_request_t **out);

/* Immediate copy (src, scount, sdt) -> (dst, rcount, rdt), min of the two byte sizes. */
void empi_coll_copy(const void *src, MPI_Count scount, const empi_datatype_t *sdt, void *dst, MPI_Count rcount,
                    const empi_datatype_t *rdt);

/* ---------------------------------------------------------------- per-communicator state */

struct empi_coll_shm;

typedef struct empi_coll_comm {
    uint32_t seq;            /* collective calls started on the communicator */
    int topo_done;
    int num_nodes;           /* distinct hosts among the ranks */
    int max_ppn;             /* most ranks on one host */
    int ranks_per_cpu;       /* most ranks of the job per CPU on one of these hosts (>1: oversubscribed) */
    int single_node;
    struct empi_coll_shm *shm;   /* node-wide segment (single-node communicators), lazily */
    int shm_failed;
    struct empi_coll_hier *hier;   /* node/leader communicators (multi-node), lazily */
    int hier_failed;
    int hier_part;           /* a node or leaders communicator of a hierarchy: EMPI_<COLL>_ALGORITHM
                                is for the user's communicators, not for the steps inside hier */
    /* last selection per collective: (message bytes, blocking) -> algorithm */
    long long sel_bytes[EMPI_COLL_COUNT];
    const void *sel_alg[EMPI_COLL_COUNT];
    int sel_blocking[EMPI_COLL_COUNT];
    unsigned sel_gen[EMPI_COLL_COUNT];
} empi_coll_comm_t;

empi_coll_comm_t *empi_coll_comm(empi_comm_t *comm);
/* Next tag for a collective on comm (never EMPI_COMM_CREATE_TAG, never negative). */
int empi_coll_next_tag(empi_comm_t *comm);

/* ---------------------------------------------------------------- registry and selection */

/* Restrictions an algorithm may have; selection falls back when one is not met. */
#define EMPI_ALG_COMMUTATIVE 0x1   /* needs a commutative op */
#define EMPI_ALG_POW2        0x2   /* communicator size must be a power of two */
#define EMPI_ALG_SINGLE_NODE 0x4   /* all ranks on one host (shared memory) */
#define EMPI_ALG_CONTIG      0x8   /* contiguous datatypes only */
#define EMPI_ALG_BLOCKING    0x10  /* has no nonblocking form (blocking calls only) */
#define EMPI_ALG_COUNT_GE_P  0x20  /* count >= communicator size */
#define EMPI_ALG_BUILTIN_OP  0x40  /* predefined op */
#define EMPI_ALG_MULTI_NODE  0x80  /* ranks on several hosts (node-aware hierarchy) */
#define EMPI_ALG_OP_PER_PIECE 0x200 /* calls the op per shared-memory piece: user ops on few pieces only */
#define EMPI_ALG_NOT_IN_PLACE 0x400 /* not MPI_IN_PLACE; only where every rank passes it or none (allreduce) */
/* Not a restriction of its own: why a single-node algorithm does not apply to a nonblocking call. */
#define EMPI_ALG_NO_SEGMENT  0x100 /* the shared segment comes with the first blocking collective */

typedef int (*empi_coll_build_fn)(empi_sched_t *s, const empi_coll_args_t *a);

typedef struct empi_coll_alg {
    int coll;
    const char *name;
    unsigned restrict_flags;
    empi_coll_build_fn build;
    const char *desc;
    /* optional direct blocking path (no schedule): returns 1 and sets *rc when it ran the call,
       0 to decline (the schedule path then runs the same algorithm, with the same a->tag) */
    int (*fast)(const empi_coll_args_t *a, int *rc);
} empi_coll_alg_t;

const char *empi_coll_name(int coll);
/* Pick the algorithm for a call (table, forcing, restrictions) and build its schedule. */
int empi_coll_build(empi_sched_t *s, const empi_coll_args_t *a, int blocking);
/* Which restriction of alg a call fails, or 0. */
unsigned empi_coll_alg_violates(const empi_coll_alg_t *alg, const empi_coll_args_t *a, int blocking);

/* Tuning table (coll_table.c): parse text into rules; look up by key. */
typedef struct empi_tune_rule {
    int coll;
    long np_lo, np_hi, ppn_lo, ppn_hi, rpc_lo, rpc_hi;
    long long bytes_lo, bytes_hi;
    int copy;   /* -1 any node; 1 only where processes copy each other's memory (CMA), 0 only where not */
    char alg[32];
} empi_tune_rule_t;

/* What a call is looked up by: communicator size, most ranks on one host, most ranks per CPU on
   one host (above 1: ranks take turns on cores), message bytes, and whether the communicator is
   on one host whose processes copy each other's memory (CMA: the single-copy algorithms work). */
typedef struct empi_tune_key {
    int coll;
    long np, ppn, rpc;
    long long bytes;
    int cma;
} empi_tune_key_t;

typedef struct empi_tune_table {
    empi_tune_rule_t *rules;
    int n, cap;
} empi_tune_table_t;

/* Parse; returns 0, or the 1-based line number of the first bad line (err describes it). */
int empi_tune_parse(const char *text, empi_tune_table_t *t, char *err, size_t errlen);
void empi_tune_free(empi_tune_table_t *t);
/* The algorithm name the first matching rule gives, or NULL. */
const char *empi_tune_lookup(const empi_tune_table_t *t, const empi_tune_key_t *key);
/* Index of the first matching rule at or after `from`, or -1. */
int empi_tune_match(const empi_tune_table_t *t, int from, const empi_tune_key_t *key);
int empi_coll_kind_of(const char *name);   /* "allreduce" -> EMPI_COLL_ALLREDUCE, -1 if unknown */
extern const char empi_tune_default_text[];

/* Byte size used as the message-size key of a call. */
long long empi_coll_msg_bytes(const empi_coll_args_t *a);

/* Common helpers for algorithms. */
static inline int empi_coll_is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }
static inline int empi_coll_pow2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}
static inline char *empi_coll_off(const void *buf, MPI_Count elems, const empi_datatype_t *dt)
{
    return (char *)buf + elems * dt->extent;
}

/* counts[0] + ... + counts[n - 1] */
static inline MPI_Count empi_coll_sum(const MPI_Count *counts, int n)
{
    MPI_Count total = 0;
    for (int i = 0; i < n; i++)
        total += counts[i];
    return total;
}

/* Shared-memory support (shm/coll_shm.c). NULL if not single-node or setup failed. */
struct empi_coll_shm *empi_coll_shm_get(empi_comm_t *comm);
void empi_coll_shm_free(struct empi_coll_shm *shm);

/* Node-aware hierarchy (hier/coll_hier.c). NULL on single-node communicators or failure. */
struct empi_coll_hier *empi_coll_hier_get(empi_comm_t *comm);
void empi_coll_hier_free(struct empi_coll_hier *h);
/* Host index of a world rank as the collectives see it (EMPI_COLL_FAKE_PPN can split one host
   into groups of that many consecutive ranks, to exercise the hierarchy on one machine). */
int empi_coll_node_of_world(int world_rank);
/* The info argument of a persistent collective: MPI_INFO_NULL or a valid info (raises otherwise). */
int empi_coll_check_info(const char *fn, MPI_Comm comm, MPI_Info info);
/* Run a blocking collective (selection + fast path or schedule) without raising; for the
   hierarchy's sub-collectives. Returns an MPI error class. */
int empi_coll_run_blocking(empi_coll_args_t *a);

#endif
