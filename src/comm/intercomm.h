/*
 * Intercommunicators and communicators built from groups (MPI-4 sessions).
 *
 * An intercommunicator is an empi_comm_t whose `group` is the local group and `remote_group` the
 * remote one; its `world_ranks` point into the remote group, so point-to-point ranks name remote
 * processes and the whole pt2pt layer works unchanged. Each one also owns `local_comm`, a hidden
 * intracommunicator over the local group for the local steps of intercommunicator collectives.
 * Creating one takes four consecutive context ids agreed over both groups: X and X+1 for the
 * intercommunicator, X+2 and X+3 for its local_comm (the two sides' local_comms are disjoint, so
 * they may share ids).
 *
 * Operations spanning two groups run the internal collectives of comm_coll.c inside each group
 * and join them at the leaders (participant 0 of each side) through a "bridge".
 */
#ifndef EMPI_INTERCOMM_H
#define EMPI_INTERCOMM_H

#include "comm/comm.h"

/* Participant 0's link to the other group's leader: rank `peer` of `comm`, `tag` on comm's
   collective context; or, with comm NULL, the stream socket `fd` (groups of two jobs, comm/dyn.h). */
typedef struct empi_coll_bridge {
    empi_comm_t *comm;
    int peer;
    int tag;
    int fd;
} empi_coll_bridge_t;

/* Root's buffer of `len` bytes (at participant 0) to every participant of the set. */
int empi_coll_set_bcast(const empi_coll_set_t *set, void *buf, size_t len);

/* Participant 0 sends `mine` to the other leader and receives `theirs`; every participant of the
   set gets `theirs`. */
int empi_coll_bridge_exchange(const empi_coll_set_t *set, const empi_coll_bridge_t *bridge, const void *mine,
                              size_t mine_len, void *theirs, size_t theirs_len);

/* The same for process lists: `mine` and `theirs` are indices of this process's numbering
   (runtime/procs.h), which the two sides may not share. */
int empi_coll_bridge_exchange_procs(const empi_coll_set_t *set, const empi_coll_bridge_t *bridge, const int *mine,
                                    int nmine, int *theirs, int ntheirs);

/* Allreduce over the union of this set and the other side's (which makes the matching call). */
int empi_coll_bridge_allreduce_int(const empi_coll_set_t *set, const empi_coll_bridge_t *bridge, int *vals,
                                   int count, empi_coll_int_op_t op);

/* Agree on `width` (even) consecutive fresh context ids over the set and, if bridge is not NULL,
   over the other side's set too. */
int empi_comm_agree_context_n(const empi_coll_set_t *set, const empi_coll_bridge_t *bridge, int width,
                              uint32_t *context_id);

#define EMPI_INTERCOMM_CONTEXTS 4

/* What a failed creation step tells the user. */
static inline const char *empi_comm_failure_text(int rc)
{
    return rc == MPI_ERR_NO_MEM ? "out of memory" : "communication with the other members failed";
}

/*
 * The hidden communicator over all processes, alive whenever MPI is up (world or session model).
 * Creation from groups, which has no parent communicator, talks over its collective context.
 */
extern empi_comm_t empi_comm_boot;
#define EMPI_BOOT_CONTEXT 0xfffffff0u
int empi_comm_boot_init(void);
void empi_comm_boot_finalize(void);

/* A non-negative tag (on empi_comm_boot's collective context) identifying a string tag. */
int empi_comm_stringtag_tag(const char *stringtag);

/* The set over the whole local group of intercomm c (through c->local_comm) and the bridge from
   its leader (local rank 0) to the remote leader (remote rank 0) over c itself. */
void empi_intercomm_sets(empi_comm_t *c, int tag, empi_coll_set_t *set, empi_coll_bridge_t *bridge);

/* Build an intercommunicator (and its local_comm) over local group `local` and remote group
   `remote` with agreed ids [context_id, context_id + 4). Local; MPI_SUCCESS or MPI_ERR_NO_MEM. */
int empi_intercomm_build(empi_group_t *local, empi_group_t *remote, uint32_t context_id, empi_errhandler_t *eh,
                         empi_comm_t **out);

/* A communicator over `group` with context ids [ctx, ctx + 2) and error handler `eh`. Local. */
int empi_comm_build_eh(empi_group_t *group, uint32_t ctx, empi_errhandler_t *eh, empi_comm_t **out);

/* Split's member selection (comm_split.c): the group of the records with `color`, ordered by
   (key, parent rank), parent rank r being world rank world_of[r]. NULL on ENOMEM. */
typedef struct empi_split_record {
    int color, key, parent_rank;
} empi_split_record_t;
empi_group_t *empi_split_group(const empi_split_record_t *all, int n, int color, const int *world_of);

/* Dup, split and create on an intercommunicator (comm/intercomm_ops.c); collective over both
   groups; *out is NULL where the standard gives MPI_COMM_NULL. */
int empi_intercomm_dup(empi_comm_t *c, empi_comm_t **out);
int empi_intercomm_split(empi_comm_t *c, int color, int key, empi_comm_t **out);
int empi_intercomm_create_sub(empi_comm_t *c, empi_group_t *g, empi_comm_t **out);

#endif
