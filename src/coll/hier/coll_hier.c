/*
 * Node-aware hierarchy for communicators spanning several hosts: a per-node communicator (whose
 * collectives use the shared-memory algorithms) and a communicator of node leaders (the lowest
 * rank of each node), built once per communicator at the first blocking call that wants them and
 * cached in its collective state.
 *
 * The hierarchical algorithms (blocking calls; nonblocking ones use the flat algorithms) live
 * with their collectives: allreduce/allreduce_hier.c, bcast/bcast_hier.c, reduce/reduce_hier.c,
 * barrier/barrier_hier.c. Reductions reorder ranks by node, so they need a commutative op.
 */
#include <stdlib.h>

#include "coll/hier/coll_hier.h"

void empi_coll_hier_free(struct empi_coll_hier *h)
{
    if (!h)
        return;
    if (h->node)
        empi_comm_release(h->node);
    if (h->leaders)
        empi_comm_release(h->leaders);
    free(h->node_of);
    free(h->leader_of_node);
    free(h);
}

static int make_comm(empi_comm_t *parent, const int *members, int n, uint32_t ctx, empi_comm_t **out)
{
    int *world = malloc((size_t)n * sizeof *world);
    if (!world)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        world[i] = parent->world_ranks[members[i]];
    empi_group_t *g = empi_group_new(n, world);
    free(world);
    if (!g)
        return MPI_ERR_NO_MEM;
    int rc = empi_comm_build(parent, g, ctx, out);
    empi_group_release(g);
    empi_coll_comm_t *cc = rc == MPI_SUCCESS ? empi_coll_comm(*out) : NULL;
    if (cc)
        cc->hier_part = 1;
    return rc;
}

struct empi_coll_hier *empi_coll_hier_get(empi_comm_t *comm)
{
    empi_coll_comm_t *cc = empi_coll_comm(comm);
    if (!cc || cc->single_node || cc->hier_failed)
        return NULL;
    if (cc->hier)
        return cc->hier;
    int p = comm->size, me = comm->rank, ok = 1;
    struct empi_coll_hier *h = calloc(1, sizeof *h);
    int *host = malloc((size_t)p * sizeof *host), *members = malloc((size_t)p * sizeof *members);
    if (h) {
        h->node_of = malloc((size_t)p * sizeof *h->node_of);
        h->leader_of_node = malloc((size_t)p * sizeof *h->leader_of_node);
    }
    if (!h || !host || !members || !h->node_of || !h->leader_of_node)
        ok = 0;
    if (ok) {
        for (int i = 0; i < p; i++)
            host[i] = empi_coll_node_of_world(comm->world_ranks[i]);
        for (int i = 0; i < p; i++) {
            int j = 0;
            while (host[j] != host[i])
                j++;
            if (j == i) {
                h->leader_of_node[h->nnodes] = i;
                h->node_of[i] = h->nnodes++;
            } else {
                h->node_of[i] = h->node_of[j];
            }
        }
    }
    /* two context ids agreed over the whole communicator: node communicators are disjoint, so
       they share one; the leaders' communicator takes the other */
    empi_coll_set_t set;
    empi_comm_set_all_of(comm, &set, empi_coll_next_tag(comm));
    uint32_t ctx_node = 0, ctx_lead = 0;
    int rc = empi_comm_agree_context(&set, &ctx_node);
    if (rc == MPI_SUCCESS)
        rc = empi_comm_agree_context(&set, &ctx_lead);
    if (rc != MPI_SUCCESS)
        ok = 0;
    if (ok) {
        int n = 0;
        for (int i = 0; i < p; i++)
            if (h->node_of[i] == h->node_of[me])
                members[n++] = i;
        if (make_comm(comm, members, n, ctx_node, &h->node) != MPI_SUCCESS)
            ok = 0;
        if (ok && h->leader_of_node[h->node_of[me]] == me &&
            make_comm(comm, h->leader_of_node, h->nnodes, ctx_lead, &h->leaders) != MPI_SUCCESS)
            ok = 0;
    }
    int v = ok;
    empi_comm_set_all_of(comm, &set, empi_coll_next_tag(comm));
    if (empi_coll_set_allreduce_int(&set, &v, 1, EMPI_COLL_INT_AND) != MPI_SUCCESS)
        v = 0;
    free(host);
    free(members);
    if (!v) {
        empi_coll_hier_free(h);
        cc->hier_failed = 1;
        return NULL;
    }
    cc->hier = h;
    return h;
}

int empi_hier_ready(const empi_coll_args_t *a, struct empi_coll_hier **h)
{
    empi_coll_comm_t *cc = empi_coll_comm(a->comm);
    if (!cc || cc->single_node || cc->max_ppn < 2 || (a->op && !a->op->commutative))
        return 0;
    *h = empi_coll_hier_get(a->comm);
    return *h != NULL;
}
