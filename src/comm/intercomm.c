/*
 * Intercommunicator creation: MPI_Intercomm_create (leaders meet through a peer communicator),
 * MPI_Intercomm_merge, and the queries MPI_Comm_test_inter / remote_size / remote_group.
 * See intercomm.h for the representation.
 */
#include <stdlib.h>

#include "comm/intercomm.h"
#include "core/error.h"
#include "core/global.h"
#include "runtime/procs.h"

/* The leaders' messages on peer_comm's collective context: above every collective sequence tag
   (< 0x40000000) and below EMPI_COMM_CREATE_TAG, so they meet nothing else of the library. */
#define EMPI_INTERCOMM_TAG(user_tag) (0x40000000 | ((user_tag) & 0x3ffeffff))

int empi_comm_build_eh(empi_group_t *group, uint32_t ctx, empi_errhandler_t *eh, empi_comm_t **out)
{
    int rc = empi_comm_build(&empi_comm_boot, group, ctx, out);
    if (rc != MPI_SUCCESS)
        return rc;
    empi_errhandler_retain(eh);
    empi_errhandler_release((*out)->errhandler);
    (*out)->errhandler = eh;
    return MPI_SUCCESS;
}

int empi_intercomm_build(empi_group_t *local, empi_group_t *remote, uint32_t context_id, empi_errhandler_t *eh,
                         empi_comm_t **out)
{
    empi_comm_t *lc, *c;
    int rc = empi_comm_build_eh(local, context_id + 2, eh, &lc);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = empi_comm_build_eh(local, context_id, eh, &c);
    if (rc != MPI_SUCCESS) {
        empi_comm_release(lc);
        return rc;
    }
    empi_group_retain(remote);
    c->remote_group = remote;
    c->world_ranks = remote->world_ranks;
    c->local_comm = lc;
    *out = c;
    return MPI_SUCCESS;
}

void empi_intercomm_sets(empi_comm_t *c, int tag, empi_coll_set_t *set, empi_coll_bridge_t *bridge)
{
    empi_comm_set_all_of(c->local_comm, set, tag);
    *bridge = (empi_coll_bridge_t){c, 0, tag};
}

/* ---- MPI_Intercomm_create ---- */

/* Participants of local_comm with the leader first, so participant 0 is the one with the bridge. */
static int *rotated_ranks(int n, int leader)
{
    int *ranks = malloc((size_t)n * sizeof *ranks);
    if (ranks)
        for (int i = 0; i < n; i++)
            ranks[i] = (leader + i) % n;
    return ranks;
}

/* Learn the remote group from the other leader; returns it (refcount 1) in *remote. */
static int learn_remote_group(const empi_coll_set_t *set, const empi_coll_bridge_t *bridge, const empi_group_t *local,
                              empi_group_t **remote)
{
    int mine = local->size, theirs = 0;
    int rc = empi_coll_bridge_exchange(set, bridge, &mine, sizeof mine, &theirs, sizeof theirs);
    if (rc != MPI_SUCCESS)
        return rc;
    if (theirs <= 0)
        return MPI_ERR_OTHER;
    int *world = malloc((size_t)theirs * sizeof *world);
    if (!world)
        return MPI_ERR_NO_MEM;
    rc = empi_coll_bridge_exchange_procs(set, bridge, local->world_ranks, mine, world, theirs);
    if (rc == MPI_SUCCESS && !(*remote = empi_group_new(theirs, world)))
        rc = MPI_ERR_NO_MEM;
    free(world);
    return rc;
}

EMPI_WEAK_ALIAS(Intercomm_create)
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create";
    empi_comm_t *c, *peer = NULL;
    EMPI_CHECK(empi_comm_check(local_comm, fn, &c));
    if (empi_comm_is_inter(c))
        return empi_err_comm(c, MPI_ERR_COMM, "%s: local_comm is an intercommunicator", fn);
    if (!newintercomm)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: newintercomm is NULL", fn);
    if (local_leader < 0 || local_leader >= c->size)
        return empi_err_comm(c, MPI_ERR_RANK, "%s: local_leader %d is not a rank of local_comm (size %d)", fn,
                             local_leader, c->size);
    EMPI_CHECK(empi_comm_check_tag(c, fn, tag, 0));
    if (c->rank == local_leader) {
        /* peer_comm and remote_leader matter at the leader only. */
        EMPI_CHECK(empi_comm_check(peer_comm, fn, &peer));
        if (remote_leader < 0 || remote_leader >= empi_comm_peer_size(peer))
            return empi_err_comm(c, MPI_ERR_RANK, "%s: remote_leader %d is not a rank of peer_comm (size %d)", fn,
                                 remote_leader, empi_comm_peer_size(peer));
    }
    int *ranks = rotated_ranks(c->size, local_leader);
    if (!ranks)
        return empi_err_comm(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    empi_coll_set_t set = {c, EMPI_COMM_CREATE_TAG, c->size, (c->rank - local_leader + c->size) % c->size, ranks};
    empi_coll_bridge_t bridge = {peer, remote_leader, EMPI_INTERCOMM_TAG(tag)};
    empi_group_t *remote = NULL;
    empi_comm_t *d = NULL;
    uint32_t ctx;
    empi_lock();
    int rc = learn_remote_group(&set, &bridge, c->group, &remote);
    if (rc == MPI_SUCCESS)
        rc = empi_comm_agree_context_n(&set, &bridge, EMPI_INTERCOMM_CONTEXTS, &ctx);
    if (rc == MPI_SUCCESS)
        rc = empi_intercomm_build(c->group, remote, ctx, c->errhandler, &d);
    empi_group_release(remote);
    empi_unlock();
    free(ranks);
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "%s: %s", fn, empi_comm_failure_text(rc));
    *newintercomm = d->handle;
    return MPI_SUCCESS;
}

/* ---- MPI_Intercomm_merge ---- */

EMPI_WEAK_ALIAS(Intercomm_merge)
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char fn[] = "MPI_Intercomm_merge";
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(intercomm, fn, &c));
    if (!empi_comm_is_inter(c))
        return empi_err_comm(c, MPI_ERR_COMM, "%s: the communicator is not an intercommunicator", fn);
    if (!newintracomm)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: newintracomm is NULL", fn);
    empi_coll_set_t set;
    empi_coll_bridge_t bridge;
    empi_intercomm_sets(c, EMPI_COMM_CREATE_TAG, &set, &bridge);
    empi_group_t *lg = c->group, *rg = c->remote_group, *merged = NULL;
    int mine = high != 0, theirs = 0, n = lg->size + rg->size;
    int *world = malloc((size_t)n * sizeof *world);
    if (!world)
        return empi_err_comm(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    empi_comm_t *d = NULL;
    uint32_t ctx;
    empi_lock();
    int rc = empi_coll_bridge_exchange(&set, &bridge, &mine, sizeof mine, &theirs, sizeof theirs);
    if (rc == MPI_SUCCESS) {
        /* The "low" group goes first; equal choices are broken the same way on both sides. */
        int local_first = mine != theirs ? !mine : empi_procs_before(lg->world_ranks[0], rg->world_ranks[0]);
        const empi_group_t *first = local_first ? lg : rg, *second = local_first ? rg : lg;
        for (int i = 0; i < first->size; i++)
            world[i] = first->world_ranks[i];
        for (int i = 0; i < second->size; i++)
            world[first->size + i] = second->world_ranks[i];
        rc = empi_comm_agree_context_n(&set, &bridge, 2, &ctx);
    }
    if (rc == MPI_SUCCESS && !(merged = empi_group_new(n, world)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = empi_comm_build(c, merged, ctx, &d);
    empi_group_release(merged);
    empi_unlock();
    free(world);
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "%s: %s", fn, empi_comm_failure_text(rc));
    *newintracomm = d->handle;
    return MPI_SUCCESS;
}

/* ---- queries ---- */

EMPI_WEAK_ALIAS(Comm_test_inter)
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_test_inter", &c));
    if (!flag)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_test_inter: flag is NULL");
    *flag = empi_comm_is_inter(c);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_remote_size)
int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_remote_size", &c));
    if (!empi_comm_is_inter(c))
        return empi_err_comm(c, MPI_ERR_COMM, "MPI_Comm_remote_size: the communicator is not an intercommunicator");
    if (!size)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_remote_size: size is NULL");
    *size = c->remote_group->size;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_remote_group)
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_remote_group", &c));
    if (!empi_comm_is_inter(c))
        return empi_err_comm(c, MPI_ERR_COMM, "MPI_Comm_remote_group: the communicator is not an intercommunicator");
    if (!group)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_remote_group: group is NULL");
    empi_group_retain(c->remote_group);
    *group = c->remote_group->handle;
    return MPI_SUCCESS;
}
