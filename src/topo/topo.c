/*
 * What every topology kind shares: the block allocation, the kind check of the query calls,
 * building the new communicator a constructor returns, and MPI_Topo_test.
 */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "topo/topo.h"

empi_topo_t *empi_topo_new(int kind, size_t nints)
{
    empi_topo_t *t = calloc(1, sizeof *t + nints * sizeof(int));
    if (t) {
        t->hdr.refcount = 1;
        t->hdr.kind = kind;
    }
    return t;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case MPI_CART:
        return "a Cartesian";
    case MPI_GRAPH:
        return "a graph";
    case MPI_DIST_GRAPH:
        return "a distributed graph";
    default:
        return "a process";
    }
}

int empi_topo_comm_old(MPI_Comm h, const char *fn, empi_comm_t **out)
{
    EMPI_CHECK(empi_comm_check(h, fn, out));
    if (empi_comm_is_inter(*out))
        return empi_err_comm(*out, MPI_ERR_COMM, "%s: comm_old is an intercommunicator; topologies are for "
                             "intracommunicators", fn);
    return MPI_SUCCESS;
}

int empi_topo_check(empi_comm_t *c, int kind, const char *fn, empi_topo_t **out)
{
    empi_topo_t *t = empi_topo_get(c);
    if (t && (kind == 0 || t->hdr.kind == kind)) {
        *out = t;
        return MPI_SUCCESS;
    }
    if (!t && kind == 0)
        return empi_err_comm(c, MPI_ERR_TOPOLOGY, "%s: the communicator has no process topology", fn);
    if (!t)
        return empi_err_comm(c, MPI_ERR_TOPOLOGY, "%s: the communicator has no process topology (%s one is needed)",
                             fn, kind_name(kind));
    return empi_err_comm(c, MPI_ERR_TOPOLOGY, "%s: the communicator has %s topology, not %s one", fn,
                         kind_name(t->hdr.kind), kind_name(kind));
}

/* The collective part of empi_topo_publish (big lock held); never raises. */
static int comm_create(empi_comm_t *parent, int n, const int *ranks, empi_topo_t *t, empi_comm_t **out)
{
    *out = NULL;
    int member = ranks != NULL || parent->rank < n;
    empi_group_t *group = NULL;
    int rc = member && !t ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && member) {
        int *world = malloc((size_t)(n > 0 ? n : 1) * sizeof *world);
        if (world) {
            for (int i = 0; i < n; i++)
                world[i] = parent->world_ranks[ranks ? ranks[i] : i];
            group = empi_group_new(n, world);
            free(world);
        }
        if (!group)
            rc = MPI_ERR_NO_MEM;
    }
    /* Failing processes still take part in the agreement the others are in. */
    empi_coll_set_t set;
    empi_comm_set_all_of(parent, &set, EMPI_COMM_CREATE_TAG);
    uint32_t context_id;
    int agree = empi_comm_agree_context(&set, &context_id);
    if (rc == MPI_SUCCESS)
        rc = agree;
    if (rc == MPI_SUCCESS && group)
        rc = empi_comm_build(parent, group, context_id, out);
    if (group)
        empi_group_release(group);
    if (*out)
        (*out)->topo = &t->hdr;
    else
        free(t);
    return rc;
}

int empi_topo_publish(empi_comm_t *parent, int n, const int *ranks, empi_topo_t *t, MPI_Comm *newcomm,
                      const char *fn)
{
    empi_comm_t *d;
    empi_lock();
    int rc = comm_create(parent, n, ranks, t, &d);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_comm(parent, rc, "%s: %s", fn,
                             rc == MPI_ERR_NO_MEM ? "out of memory" : "communication with the other members failed");
    *newcomm = d ? d->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int empi_topo_copy_out(empi_comm_t *c, const char *fn, const char *what, int *dst, int max, const int *src, int n)
{
    if (max < 0)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: the length given for %s (%d) is negative", fn, what, max);
    if (n > max)
        n = max;
    if (n > 0 && !dst)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: %s is NULL", fn, what);
    for (int i = 0; i < n; i++)
        dst[i] = src[i];
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Topo_test)
int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Topo_test", &c));
    if (!status)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Topo_test: status is NULL");
    empi_topo_t *t = empi_topo_get(c);
    *status = t ? t->hdr.kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
