/*
 * MPI_Comm_split and MPI_Comm_split_type. Every member publishes (color, key); each then picks its
 * color's members ordered by (key, parent rank). All the new communicators of one split share a
 * single context id agreed over the whole parent: they are disjoint, so no process sees the id
 * twice, and one agreement costs the same however many colors there are.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/intercomm.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"

typedef empi_split_record_t split_record_t;

static int by_key_then_rank(const void *a, const void *b)
{
    const split_record_t *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->parent_rank > y->parent_rank) - (x->parent_rank < y->parent_rank);
}

empi_group_t *empi_split_group(const empi_split_record_t *all, int n, int color, const int *world_of)
{
    split_record_t *mine = malloc((size_t)(n ? n : 1) * sizeof *mine);
    int *world = malloc((size_t)(n ? n : 1) * sizeof *world);
    empi_group_t *group = NULL;
    if (mine && world) {
        int count = 0;
        for (int i = 0; i < n; i++)
            if (all[i].color == color)
                mine[count++] = all[i];
        qsort(mine, (size_t)count, sizeof *mine, by_key_then_rank);
        for (int i = 0; i < count; i++)
            world[i] = world_of[mine[i].parent_rank];
        group = empi_group_new(count, world);
    }
    free(mine);
    free(world);
    return group;
}

/*
 * The collective part shared by both calls. `null_if_whole`: everyone gets MPI_COMM_NULL when all
 * members chose one color (MPI_COMM_TYPE_HW_UNGUIDED must return a strict subset or nothing).
 */
static int split(empi_comm_t *c, int color, int key, int null_if_whole, empi_comm_t **out)
{
    int n = c->size;
    split_record_t mine = {color, key, c->rank};
    split_record_t *all = malloc((size_t)n * sizeof *all);
    if (!all)
        return MPI_ERR_NO_MEM;   /* before the exchange: the job cannot go on consistently anyway */
    empi_coll_set_t set;
    empi_comm_set_all_of(c, &set, EMPI_COMM_CREATE_TAG);
    int rc = empi_coll_set_allgather(&set, &mine, sizeof mine, all);
    uint32_t context_id = 0;
    if (rc == MPI_SUCCESS)
        rc = empi_comm_agree_context(&set, &context_id);
    *out = NULL;
    if (rc == MPI_SUCCESS && null_if_whole) {
        int whole = 1;
        for (int i = 0; i < n; i++)
            whole &= all[i].color == all[0].color;
        if (whole)
            color = MPI_UNDEFINED;
    }
    if (rc == MPI_SUCCESS && color != MPI_UNDEFINED) {
        empi_group_t *group = empi_split_group(all, n, color, c->world_ranks);
        if (!group)
            rc = MPI_ERR_NO_MEM;
        else {
            rc = empi_comm_build(c, group, context_id, out);
            empi_group_release(group);
        }
    }
    free(all);
    return rc;
}

EMPI_WEAK_ALIAS(Comm_split)
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_split", &c));
    if (!newcomm)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_split: newcomm is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_split: color %d is negative and not MPI_UNDEFINED", color);
    empi_comm_t *d = NULL;
    empi_lock();
    int rc = empi_comm_is_inter(c) ? empi_intercomm_split(c, color, key, &d) : split(c, color, key, 0, &d);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "MPI_Comm_split: %s", rc == MPI_ERR_NO_MEM ? "out of memory"
                                                                               : "communication with the other members failed");
    *newcomm = d ? d->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* The only hardware resource type we can name is the node's shared memory; others give NULL. */
static int hw_guided_color(empi_info_t *hints, int me)
{
    const char *value = empi_info_lookup(hints, "mpi_hw_resource_type");
    return value && strcmp(value, "mpi_shared_memory") == 0 ? empi_boot_node_of(me) : MPI_UNDEFINED;
}

/* The color a split type gives this process, and whether a whole-parent result must become NULL. */
static int split_type_color(int split_type, empi_info_t *hints, int *null_if_whole)
{
    int me = empi_g.boot.rank; /* (an intercommunicator's world_ranks are its remote group's) */
    const char *value;
    *null_if_whole = 0;
    switch (split_type) {
    case MPI_COMM_TYPE_SHARED:
        return empi_boot_node_of(me);
    case MPI_COMM_TYPE_HW_GUIDED:
        return hw_guided_color(hints, me);
    case MPI_COMM_TYPE_HW_UNGUIDED:
        *null_if_whole = 1;
        return empi_boot_node_of(me);
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
        /* guided by a process set name, or (MPI 4.1) by a hardware resource type as HW_GUIDED */
        value = empi_info_lookup(hints, "mpi_pset_name");
        if (!value)
            return hw_guided_color(hints, me);
        if (strcmp(value, "mpi://WORLD") == 0)
            return 0;
        if (strcmp(value, "mpi://SELF") == 0)
            return me;
        return MPI_UNDEFINED;
    default:
        return MPI_UNDEFINED;
    }
}

EMPI_WEAK_ALIAS(Comm_split_type)
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_split_type", &c));
    if (!newcomm)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_split_type: newcomm is NULL");
    if (split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_COMM_TYPE_HW_GUIDED &&
        split_type != MPI_COMM_TYPE_HW_UNGUIDED && split_type != MPI_COMM_TYPE_RESOURCE_GUIDED)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_split_type: split_type %d is not a known MPI_COMM_TYPE_*",
                             split_type);
    empi_info_t *hints = NULL;
    if (info != MPI_INFO_NULL && !(hints = empi_info_get(info)))
        return empi_err_comm(c, MPI_ERR_INFO, "MPI_Comm_split_type: invalid info %p", (void *)info);
    int null_if_whole = 0;
    empi_lock();
    int color = split_type_color(split_type, hints, &null_if_whole);
    empi_comm_t *d = NULL;
    /* an intercommunicator splits like MPI_Comm_split: each color pairs with the same remote color */
    int rc = empi_comm_is_inter(c) ? empi_intercomm_split(c, color, key, &d) : split(c, color, key, null_if_whole, &d);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "MPI_Comm_split_type: %s", rc == MPI_ERR_NO_MEM ? "out of memory"
                                                                                     : "communication with the other members failed");
    /* MPI 4.0: an unguided split names the resource type it split by in the info object */
    if (d && split_type == MPI_COMM_TYPE_HW_UNGUIDED && hints)
        empi_info_set(hints, "mpi_hw_resource_type", "mpi_shared_memory");
    *newcomm = d ? d->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
