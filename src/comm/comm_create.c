/*
 * MPI_Comm_create (collective over the parent, any disjoint groups per process as MPI-2.2 allows)
 * and MPI_Comm_create_group (collective over the group only, told apart by the user's tag).
 */
#include <stdlib.h>

#include "comm/intercomm.h"
#include "core/error.h"
#include "core/global.h"

/*
 * Parent ranks of group's members into ranks[] (may be NULL to only check); returns the index of
 * the first member not in the parent, or -1 when all are.
 */
static int map_to_parent(const empi_comm_t *c, const empi_group_t *g, int *ranks, int *failed)
{
    empi_group_index_t *ix = empi_group_index_new(c->group);
    if (!ix)
        return MPI_ERR_NO_MEM;
    *failed = -1;
    for (int i = 0; i < g->size && *failed < 0; i++) {
        int r = empi_group_index_lookup(ix, g->world_ranks[i]);
        if (r == MPI_UNDEFINED)
            *failed = i;
        else if (ranks)
            ranks[i] = r;
    }
    empi_group_index_free(ix);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_create)
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_create", &c));
    empi_group_t *g = empi_group_get(group);
    if (!g)
        return empi_err_comm(c, MPI_ERR_GROUP, "MPI_Comm_create: invalid group %p", (void *)group);
    if (!newcomm)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_create: newcomm is NULL");
    int failed;
    if (map_to_parent(c, g, NULL, &failed) != MPI_SUCCESS)
        return empi_err_comm(c, MPI_ERR_NO_MEM, "MPI_Comm_create: out of memory");
    if (failed >= 0)
        return empi_err_comm(c, MPI_ERR_GROUP, "MPI_Comm_create: group rank %d is not a member of the communicator",
                             failed);
    empi_lock();
    empi_coll_set_t set;
    empi_comm_set_all_of(c, &set, EMPI_COMM_CREATE_TAG);
    uint32_t context_id;
    empi_comm_t *d = NULL;
    int rc;
    if (empi_comm_is_inter(c)) {
        rc = empi_intercomm_create_sub(c, g, &d);
    } else {
        /* Non-members take part in the agreement too: it runs over the whole parent. */
        rc = empi_comm_agree_context(&set, &context_id);
        if (rc == MPI_SUCCESS && g->rank != MPI_UNDEFINED)
            rc = empi_comm_build(c, g, context_id, &d);
    }
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "MPI_Comm_create: %s", rc == MPI_ERR_NO_MEM ? "out of memory"
                                                                                 : "communication with the other members failed");
    *newcomm = d ? d->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_create_group)
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_create_group", &c));
    empi_group_t *g = empi_group_get(group);
    if (!g)
        return empi_err_comm(c, MPI_ERR_GROUP, "MPI_Comm_create_group: invalid group %p", (void *)group);
    if (!newcomm)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_create_group: newcomm is NULL");
    EMPI_CHECK(empi_comm_check_tag(c, "MPI_Comm_create_group", tag, 0));
    if (empi_comm_is_inter(c))
        return empi_err_comm(c, MPI_ERR_COMM, "MPI_Comm_create_group: the communicator is an intercommunicator");
    if (g->rank == MPI_UNDEFINED) {
        /* Not a member (MPI_GROUP_EMPTY included): nothing to agree on. */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int *ranks = malloc((size_t)g->size * sizeof *ranks), failed = -1;
    if (!ranks || map_to_parent(c, g, ranks, &failed) != MPI_SUCCESS) {
        free(ranks);
        return empi_err_comm(c, MPI_ERR_NO_MEM, "MPI_Comm_create_group: out of memory");
    }
    if (failed >= 0) {
        free(ranks);
        return empi_err_comm(c, MPI_ERR_GROUP,
                             "MPI_Comm_create_group: group rank %d is not a member of the communicator", failed);
    }
    empi_coll_set_t set = {c, EMPI_COMM_CREATE_GROUP_TAG(tag), g->size, g->rank, ranks};
    uint32_t context_id;
    empi_comm_t *d = NULL;
    empi_lock();
    int rc = empi_comm_agree_context(&set, &context_id);
    if (rc == MPI_SUCCESS)
        rc = empi_comm_build(c, g, context_id, &d);
    empi_unlock();
    free(ranks);
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "MPI_Comm_create_group: %s", rc == MPI_ERR_NO_MEM ? "out of memory"
                                                                                       : "communication with the other members failed");
    *newcomm = d->handle;
    return MPI_SUCCESS;
}
