/*
 * Communicators. Each one owns two context ids: `context_id` (even) tags point-to-point traffic
 * and `context_id + 1` the library's own collective traffic on it, so user messages and
 * collective messages never match each other.
 */
#ifndef EMPI_COMM_H
#define EMPI_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "comm/group.h"
#include "core/errhandler.h"
#include "core/object.h"
#include "mpi.h"

struct empi_attr;
struct empi_info;

/*
 * The head of a process topology (the block itself is built by src/topo/): immutable, one malloc'd
 * block shared by a communicator and its duplicates, freed by the last one released.
 */
typedef struct empi_comm_topo {
    int32_t refcount;
    int kind;                    /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
} empi_comm_topo_t;

typedef struct empi_comm {
    empi_object_t obj;
    uint32_t context_id;
    int rank, size;
    const int *world_ranks;      /* comm rank -> world rank (points into group) */
    empi_group_t *group;
    empi_errhandler_t *errhandler;
    struct empi_attr *attrs;
    struct empi_info *info;      /* hints given at creation / Comm_set_info, or NULL */
    MPI_Comm handle;
    char name[MPI_MAX_OBJECT_NAME];
    void *coll_cache;            /* collective layer's per-communicator state (node split, schedules) */
    void (*coll_cache_free)(void *);
    empi_comm_topo_t *topo;      /* process topology, or NULL (src/topo/) */
    /* Intercommunicators (comm/intercomm.c); NULL on intracommunicators. world_ranks then points
       into remote_group, so point-to-point ranks name remote processes with no pt2pt change. */
    empi_group_t *remote_group;
    struct empi_comm *local_comm;   /* intracommunicator over the local group (intercomm collectives) */
    struct empi_bsend_buffer *bsend_buffer;   /* MPI_Comm_attach_buffer, or NULL */
    struct empi_session *session;   /* the session its group came from (MPI_Comm_create_from_group) */
    struct empi_comm *live_prev, *live_next; /* every pooled communicator not yet destroyed */
    int disconnecting;              /* in MPI_Comm_disconnect: its members may end without this job */
    int member_lost;                /* and one of them ended (comm/comm_dynamic.c) */
} empi_comm_t;

#define EMPI_COLL_CONTEXT(comm) ((comm)->context_id + 1)
/* Whether a message's context id is a communicator's collective one. */
#define EMPI_CONTEXT_IS_COLL(ctx) (((ctx) & 1u) != 0)

/* Largest tag (the MPI_TAG_UB attribute). 2^29 - 1 so that internal traffic can mirror every user
   tag into the negative tags no user receive matches (partitioned channel set-up, comm_create_group)
   with room to spare; MPICH's bound is lower still. */
#define EMPI_TAG_UB 0x1fffffff

/* A user tag: 0..MPI_TAG_UB, or MPI_ANY_TAG where `wildcard_ok` (receives, probes). Raises on c.
   Inline: every send and receive checks its tag. */
int empi_comm_tag_error(empi_comm_t *c, const char *fn, int tag, int wildcard_ok);
static inline int empi_comm_check_tag(empi_comm_t *c, const char *fn, int tag, int wildcard_ok)
{
    if (__builtin_expect((tag >= 0 && tag <= EMPI_TAG_UB) || (wildcard_ok && tag == MPI_ANY_TAG), 1))
        return MPI_SUCCESS;
    return empi_comm_tag_error(c, fn, tag, wildcard_ok);
}

extern empi_comm_t empi_comm_world, empi_comm_self;

/* Handle -> object; NULL if invalid, freed, or MPI_COMM_NULL. */
empi_comm_t *empi_comm_get(MPI_Comm h);

/* Validate a communicator argument for a call; raises MPI_ERR_COMM (on COMM_SELF's handler). */
/* A communicator not yet destroyed (freed ones with pending operations included) and not being
   disconnected of which process index `proc` (runtime/procs.h) is a member, local or remote; NULL
   if none. Those being disconnected that have it as a member are marked member_lost. */
const empi_comm_t *empi_comm_with_member(int proc);

int empi_comm_check(MPI_Comm h, const char *fname, empi_comm_t **out);

/* Build MPI_COMM_WORLD and MPI_COMM_SELF at init; free everything at finalize. */
int empi_comm_init(void);
void empi_comm_attrs_init(void);
void empi_comm_finalize(void);

/*
 * Create a communicator over `group` (this process must be a member) with a context id agreed
 * collectively over all members of `parent` (every one must call it, in the same order as the
 * parent's other collectives). Used by dup; split and create agree first and build locally.
 */
int empi_comm_create_from(empi_comm_t *parent, empi_group_t *group, empi_comm_t **out);

/* MPI_COMM_WORLD and MPI_COMM_SELF live until finalize: their references need no counting. */
static inline int empi_comm_is_predefined(const empi_comm_t *comm)
{
    return comm == &empi_comm_world || comm == &empi_comm_self;
}
void empi_comm_retain(empi_comm_t *comm);
void empi_comm_release(empi_comm_t *comm);

/* Give dup the topology of comm (duplicates keep it; split and create do not). */
void empi_comm_share_topo(empi_comm_t *dup, const empi_comm_t *comm);


/* ---- additions by the communicator layer ---- */

/*
 * Tags communicator creation uses on a parent's collective context. Collective creation (dup,
 * split, create) uses EMPI_COMM_CREATE_TAG: the collective layer must not use that tag. Comm_create_group
 * runs over a subset and is told apart by the user's tag, mapped to a negative tag below -2 (-2 is
 * MPI_ANY_TAG in the standard ABI, which a receive must not post: it would take any message of the
 * context; a receive with MPI_ANY_TAG never matches a negative tag): one each, since user tags
 * end at EMPI_TAG_UB.
 */
#define EMPI_COMM_CREATE_TAG 0x7fff0000
#define EMPI_COMM_CREATE_GROUP_TAG(user_tag) (-3 - (user_tag))

/*
 * Run the attribute delete callbacks of MPI_COMM_SELF (in reverse order of setting), then of
 * MPI_COMM_WORLD, as the standard wants at the start of MPI_Finalize, while communication still
 * works. Idempotent; empi_comm_finalize calls it too if the lead did not.
 */
int empi_comm_finalize_attrs(void);

/* Rank of world rank `world_rank` in comm, or MPI_UNDEFINED. */
int empi_comm_rank_of_world(const empi_comm_t *comm, int world_rank);

/* MPI_X_toint / MPI_X_fromint for any kind of handle (src/comm/handle_int.c). */
int empi_handle_toint(const void *h);
void *empi_handle_fromint(int i);

/*
 * Internal collectives over a set of participants of a parent communicator, on its collective
 * context (src/comm/comm_coll.c). Participant i is rank `ranks[i]` of `comm` (ranks == NULL:
 * participant i is rank i, all of comm); `me` is this process's participant index. Every
 * participant must make the same sequence of calls with the same `tag`.
 */
typedef struct empi_coll_set {
    empi_comm_t *comm;
    int tag;
    int n;
    int me;
    const int *ranks;
} empi_coll_set_t;

typedef enum { EMPI_COLL_INT_MAX, EMPI_COLL_INT_MIN, EMPI_COLL_INT_SUM, EMPI_COLL_INT_AND } empi_coll_int_op_t;

/* Element-wise reduction of vals[0..count) over the set; the result replaces vals everywhere. */
int empi_coll_set_allreduce_int(const empi_coll_set_t *set, int *vals, int count, empi_coll_int_op_t op);
/* The binomial tree of these collectives (rooted at participant 0): participant i's subtree spans
   [i, i + span), its parent is i - span; the root's span is the first power of two >= n. */
int empi_coll_tree_span(int i, int n);
/* all[i*recsize ...] = participant i's `mine` record. */
int empi_coll_set_allgather(const empi_coll_set_t *set, const void *mine, size_t recsize, void *all);

/* Agree on a fresh context id over the set (see comm_context.c). */
int empi_comm_agree_context(const empi_coll_set_t *set, uint32_t *context_id);
/* The agreement's two local steps, for a nonblocking driver (comm_idup.c): a fresh proposal of
   `width` ids (`retry`: after a failed round), and whether this process can take
   [agreed, agreed + width) (1, now taken) or not (0). */
uint32_t empi_comm_context_propose(uint32_t width, int retry);
int empi_comm_context_claim(uint32_t agreed, uint32_t width);
struct empi_request;
/* A dup's context id until its nonblocking agreement completes: never agreed on (comm_idup.c). */
#define EMPI_CONTEXT_PENDING 0xffffffe0u   /* not EMPI_BOOT_CONTEXT either */
/* Run the context agreement of child, a dup of parent, without blocking; req completes (MPI_ERROR
   set) once child's context ids are set (comm_idup.c). local_err: the dup already failed here (an
   attribute copy callback); the agreement still runs, for the other members, then req reports
   local_err and child, whose handle the program did not get, is released. */
int empi_comm_idup_start(empi_comm_t *parent, empi_comm_t *child, struct empi_request *req, int local_err);

/* Build a communicator over `group` (refcount taken) with an already agreed context id; inherits
   parent's error handler. Local, never raises: MPI_SUCCESS or MPI_ERR_NO_MEM. */
int empi_comm_build(empi_comm_t *parent, empi_group_t *group, uint32_t context_id, empi_comm_t **out);

/* The participant set "all of comm" for the internal collectives. */
void empi_comm_set_all_of(empi_comm_t *comm, empi_coll_set_t *set, int tag);

/* ---- intercommunicators (comm/intercomm.h has the rest) ---- */

static inline int empi_comm_is_inter(const empi_comm_t *c)
{
    return c->remote_group != NULL;
}

/* How many ranks point-to-point and rooted collectives address: the remote group's size on an
   intercommunicator, the communicator's size otherwise. */
static inline int empi_comm_peer_size(const empi_comm_t *c)
{
    return c->remote_group ? c->remote_group->size : c->size;
}

#endif
