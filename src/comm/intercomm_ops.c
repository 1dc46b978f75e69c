/*
 * MPI_Comm_dup, MPI_Comm_split and MPI_Comm_create on intercommunicators. Each runs inside both
 * groups at once: internal collectives over the local group, joined at the leaders by the bridge
 * (intercomm.h), and one agreement on four context ids over both groups. The results of one split
 * or create are disjoint, so they all share those ids, as intracommunicator splits do.
 */
#include <stdlib.h>

#include "comm/intercomm.h"

int empi_intercomm_dup(empi_comm_t *c, empi_comm_t **out)
{
    empi_coll_set_t set;
    empi_coll_bridge_t bridge;
    empi_intercomm_sets(c, EMPI_COMM_CREATE_TAG, &set, &bridge);
    uint32_t ctx;
    int rc = empi_comm_agree_context_n(&set, &bridge, EMPI_INTERCOMM_CONTEXTS, &ctx);
    return rc != MPI_SUCCESS ? rc : empi_intercomm_build(c->group, c->remote_group, ctx, c->errhandler, out);
}

/* Both sides' groups known: build unless either is empty (then the result is MPI_COMM_NULL). */
static int build_if_both(empi_comm_t *c, empi_group_t *local, empi_group_t *remote, uint32_t ctx, empi_comm_t **out)
{
    if (!local || !remote)
        return MPI_ERR_NO_MEM;
    if (local->rank == MPI_UNDEFINED || remote->size == 0)
        return MPI_SUCCESS;
    return empi_intercomm_build(local, remote, ctx, c->errhandler, out);
}

int empi_intercomm_split(empi_comm_t *c, int color, int key, empi_comm_t **out)
{
    int n = c->size, m = c->remote_group->size;
    empi_split_record_t mine = {color, key, c->rank};
    empi_split_record_t *local = malloc((size_t)n * sizeof *local), *remote = malloc((size_t)m * sizeof *remote);
    if (!local || !remote) {
        free(local);
        free(remote);
        return MPI_ERR_NO_MEM;
    }
    empi_coll_set_t set;
    empi_coll_bridge_t bridge;
    empi_intercomm_sets(c, EMPI_COMM_CREATE_TAG, &set, &bridge);
    uint32_t ctx;
    int rc = empi_coll_set_allgather(&set, &mine, sizeof mine, local);
    if (rc == MPI_SUCCESS)
        rc = empi_coll_bridge_exchange(&set, &bridge, local, (size_t)n * sizeof *local, remote,
                                       (size_t)m * sizeof *remote);
    if (rc == MPI_SUCCESS)
        rc = empi_comm_agree_context_n(&set, &bridge, EMPI_INTERCOMM_CONTEXTS, &ctx);
    *out = NULL;
    if (rc == MPI_SUCCESS && color != MPI_UNDEFINED) {
        empi_group_t *lg = empi_split_group(local, n, color, c->group->world_ranks);
        empi_group_t *rg = empi_split_group(remote, m, color, c->remote_group->world_ranks);
        rc = build_if_both(c, lg, rg, ctx, out);
        empi_group_release(lg);
        empi_group_release(rg);
    }
    free(local);
    free(remote);
    return rc;
}

int empi_intercomm_create_sub(empi_comm_t *c, empi_group_t *g, empi_comm_t **out)
{
    empi_coll_set_t set;
    empi_coll_bridge_t bridge;
    empi_intercomm_sets(c, EMPI_COMM_CREATE_TAG, &set, &bridge);
    /* Every local process passed the same group: the leaders swap theirs and tell their sides. */
    int mine = g->size, theirs = 0;
    int rc = empi_coll_bridge_exchange(&set, &bridge, &mine, sizeof mine, &theirs, sizeof theirs);
    if (rc != MPI_SUCCESS)
        return rc;
    int *world = malloc((size_t)(theirs > 0 ? theirs : 1) * sizeof *world);
    if (!world)
        return MPI_ERR_NO_MEM;
    uint32_t ctx;
    rc = empi_coll_bridge_exchange_procs(&set, &bridge, g->world_ranks, mine, world, theirs);
    if (rc == MPI_SUCCESS)
        rc = empi_comm_agree_context_n(&set, &bridge, EMPI_INTERCOMM_CONTEXTS, &ctx);
    *out = NULL;
    if (rc == MPI_SUCCESS) {
        empi_group_t *remote = empi_group_new(theirs, world);
        rc = build_if_both(c, g, remote, ctx, out);
        empi_group_release(remote);
    }
    free(world);
    return rc;
}
