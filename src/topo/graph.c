/*
 * General graph topologies (MPI_Graph_create): every process stores the whole graph, given as
 * the standard's index/edges arrays (node i's neighbors are edges[index[i-1] .. index[i])).
 * Self-loops and repeated edges are allowed. A process's neighbors serve both as the sources and
 * as the destinations of the neighborhood collectives.
 */
#include "core/error.h"
#include "core/global.h"
#include "topo/topo.h"

/* Validate the graph; raises on c. */
static int check_graph(empi_comm_t *c, const char *fn, int nnodes, const int *index, const int *edges)
{
    if (nnodes < 0 || nnodes > c->size)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: nnodes %d is not in [0, %d] (the communicator size)", fn, nnodes,
                             c->size);
    if (nnodes == 0)
        return MPI_SUCCESS;
    if (!index)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: index is NULL", fn);
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return empi_err_comm(c, MPI_ERR_ARG, "%s: index[%d] = %d is less than the entry before it", fn, i,
                                 index[i]);
    if (index[nnodes - 1] > 0 && !edges)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: edges is NULL", fn);
    for (int e = 0; e < index[nnodes - 1]; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return empi_err_comm(c, MPI_ERR_RANK, "%s: edges[%d] = %d is not a node of the graph (nnodes %d)", fn, e,
                                 edges[e], nnodes);
    return MPI_SUCCESS;
}

static empi_topo_t *graph_new(int nnodes, const int *index, const int *edges, int rank)
{
    int nedges = index[nnodes - 1];
    size_t used = 0;
    empi_topo_t *t = empi_topo_new(MPI_GRAPH, (size_t)nnodes + (size_t)nedges);
    if (!t)
        return NULL;
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = empi_topo_take(t, &used, (size_t)nnodes);
    t->edges = empi_topo_take(t, &used, (size_t)nedges);
    for (int i = 0; i < nnodes; i++)
        t->index[i] = index[i];
    for (int e = 0; e < nedges; e++)
        t->edges[e] = edges[e];
    int first = rank ? index[rank - 1] : 0;
    t->in = t->out = t->edges + first;
    t->nin = t->nout = index[rank] - first;
    return t;
}

EMPI_WEAK_ALIAS(Graph_create)
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                      MPI_Comm *comm_graph)
{
    static const char fn[] = "MPI_Graph_create";
    empi_comm_t *c;
    EMPI_CHECK(empi_topo_comm_old(comm_old, fn, &c));
    (void)reorder;
    if (!comm_graph)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: comm_graph is NULL", fn);
    EMPI_CHECK(check_graph(c, fn, nnodes, index, edges));
    empi_topo_t *t = c->rank < nnodes ? graph_new(nnodes, index, edges, c->rank) : NULL;
    return empi_topo_publish(c, nnodes, NULL, t, comm_graph, fn);
}

EMPI_WEAK_ALIAS(Graph_map)
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    static const char fn[] = "MPI_Graph_map";
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fn, &c));
    if (!newrank)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: newrank is NULL", fn);
    EMPI_CHECK(check_graph(c, fn, nnodes, index, edges));
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Graphdims_get)
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    EMPI_TOPO_ENTER("MPI_Graphdims_get", comm, MPI_GRAPH, c, t);
    if (!nnodes || !nedges)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Graphdims_get: %s is NULL", nnodes ? "nedges" : "nnodes");
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Graph_get)
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    static const char fn[] = "MPI_Graph_get";
    EMPI_TOPO_ENTER(fn, comm, MPI_GRAPH, c, t);
    EMPI_CHECK(empi_topo_copy_out(c, fn, "index", index, maxindex, t->index, t->nnodes));
    return empi_topo_copy_out(c, fn, "edges", edges, maxedges, t->edges, t->nedges);
}

/* Node `rank`'s neighbor list in t, or raise MPI_ERR_RANK. */
static int node_neighbors(empi_comm_t *c, const empi_topo_t *t, const char *fn, int rank, const int **list, int *n)
{
    if (rank < 0 || rank >= t->nnodes)
        return empi_err_comm(c, MPI_ERR_RANK, "%s: rank %d is not a node of the graph (nnodes %d)", fn, rank,
                             t->nnodes);
    int first = rank ? t->index[rank - 1] : 0;
    *list = t->edges + first;
    *n = t->index[rank] - first;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Graph_neighbors_count)
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char fn[] = "MPI_Graph_neighbors_count";
    EMPI_TOPO_ENTER(fn, comm, MPI_GRAPH, c, t);
    const int *list = NULL;
    int n = 0;
    EMPI_CHECK(node_neighbors(c, t, fn, rank, &list, &n));
    if (!nneighbors)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: nneighbors is NULL", fn);
    *nneighbors = n;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Graph_neighbors)
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char fn[] = "MPI_Graph_neighbors";
    EMPI_TOPO_ENTER(fn, comm, MPI_GRAPH, c, t);
    const int *list = NULL;
    int n = 0;
    EMPI_CHECK(node_neighbors(c, t, fn, rank, &list, &n));
    return empi_topo_copy_out(c, fn, "neighbors", neighbors, maxneighbors, list, n);
}
