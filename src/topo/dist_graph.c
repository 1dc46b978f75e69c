/*
 * Distributed graph topologies: MPI_Dist_graph_create_adjacent (each process gives its own in-
 * and out-edges), MPI_Dist_graph_create (any process may give any edge; one all-to-all exchange
 * tells every process its edges), and the neighbor queries.
 *
 * Each process keeps only its own edges. Edges between one pair of processes keep a consistent
 * order at both ends: by the rank that gave them, then in the order it gave them, so the k-th
 * message of a neighborhood collective to a process is the k-th it receives from this one.
 * Weights: MPI_UNWEIGHTED (from any of the weight arguments) makes the graph unweighted;
 * MPI_WEIGHTS_EMPTY stands for a weighted empty list.
 */
#include <stdlib.h>

#include "coll/coll.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "topo/topo.h"

static empi_topo_t *dist_new(int indegree, int outdegree, int weighted)
{
    size_t w = weighted ? 2 : 1, used = 0;
    empi_topo_t *t = empi_topo_new(MPI_DIST_GRAPH, w * ((size_t)indegree + (size_t)outdegree));
    if (!t)
        return NULL;
    t->weighted = weighted;
    t->nin = indegree;
    t->nout = outdegree;
    t->in = empi_topo_take(t, &used, (size_t)indegree);
    t->out = empi_topo_take(t, &used, (size_t)outdegree);
    if (weighted) {
        t->inw = empi_topo_take(t, &used, (size_t)indegree);
        t->outw = empi_topo_take(t, &used, (size_t)outdegree);
    }
    return t;
}

/* Check n ranks of c and, if weighted, their weights; raises on c. */
static int check_edges(empi_comm_t *c, const char *fn, const char *what, int n, const int *ranks, const char *wwhat,
                       const int *weights, int weighted)
{
    if (n > 0 && !ranks)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: %s is NULL", fn, what);
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= c->size)
            return empi_err_comm(c, MPI_ERR_RANK, "%s: %s[%d] = %d is not a rank of the communicator (size %d)", fn,
                                 what, i, ranks[i], c->size);
    if (!weighted || n == 0)
        return MPI_SUCCESS;
    if (!weights || weights == MPI_WEIGHTS_EMPTY)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: %s is %s but there are %d edges", fn, wwhat,
                             weights ? "MPI_WEIGHTS_EMPTY" : "NULL", n);
    for (int i = 0; i < n; i++)
        if (weights[i] < 0)
            return empi_err_comm(c, MPI_ERR_ARG, "%s: %s[%d] = %d is negative", fn, wwhat, i, weights[i]);
    return MPI_SUCCESS;
}

static int check_common(empi_comm_t *c, const char *fn, MPI_Info info, MPI_Comm *newcomm)
{
    if (!newcomm)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: comm_dist_graph is NULL", fn);
    if (info != MPI_INFO_NULL && !empi_info_get(info))
        return empi_err_comm(c, MPI_ERR_INFO, "%s: invalid info %p", fn, (void *)info);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Dist_graph_create_adjacent)
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int *sourceweights,
                                    int outdegree, const int destinations[], const int *destweights, MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    empi_comm_t *c;
    EMPI_CHECK(empi_topo_comm_old(comm_old, fn, &c));
    (void)reorder;
    EMPI_CHECK(check_common(c, fn, info, comm_dist_graph));
    if (indegree < 0 || outdegree < 0)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: %s %d is negative", fn, indegree < 0 ? "indegree" : "outdegree",
                             indegree < 0 ? indegree : outdegree);
    int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    EMPI_CHECK(check_edges(c, fn, "sources", indegree, sources, "sourceweights", sourceweights, weighted));
    EMPI_CHECK(check_edges(c, fn, "destinations", outdegree, destinations, "destweights", destweights, weighted));
    empi_topo_t *t = dist_new(indegree, outdegree, weighted);
    for (int i = 0; t && i < indegree; i++) {
        t->in[i] = sources[i];
        if (weighted)
            t->inw[i] = sourceweights[i];
    }
    for (int i = 0; t && i < outdegree; i++) {
        t->out[i] = destinations[i];
        if (weighted)
            t->outw[i] = destweights[i];
    }
    return empi_topo_publish(c, c->size, NULL, t, comm_dist_graph, fn);
}

/* ---------------------------------------------------------------- MPI_Dist_graph_create */

/* One edge as its two ends learn it: the far end and the weight; is_out tells which end. */
typedef struct {
    int is_out, peer, weight;
} edge_rec_t;

typedef struct {
    int p;
    int *scount, *rcount;       /* records per process */
    MPI_Count *sc, *rc;         /* the same in ints of the exchange */
    MPI_Aint *sd, *rd;
    edge_rec_t *sbuf, *rbuf;
    int nrecv;
} exchange_t;

static void exchange_free(exchange_t *x)
{
    free(x->scount);
    free(x->rcount);
    free(x->sc);
    free(x->rc);
    free(x->sd);
    free(x->rd);
    free(x->sbuf);
    free(x->rbuf);
}

/* Records for the two ends of every given edge, grouped by the process they go to. */
static int pack(exchange_t *x, int n, const int *sources, const int *degrees, const int *dests, const int *weights,
                int weighted, long long total)
{
    int p = x->p;
    x->scount = calloc((size_t)p, sizeof(int));
    x->rcount = calloc((size_t)p, sizeof(int));
    x->sc = malloc((size_t)p * sizeof *x->sc);
    x->rc = malloc((size_t)p * sizeof *x->rc);
    x->sd = malloc((size_t)p * sizeof *x->sd);
    x->rd = malloc((size_t)p * sizeof *x->rd);
    x->sbuf = malloc((size_t)(total > 0 ? 2 * total : 1) * sizeof *x->sbuf);
    if (!x->scount || !x->rcount || !x->sc || !x->rc || !x->sd || !x->rd || !x->sbuf)
        return MPI_ERR_NO_MEM;
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            x->scount[sources[i]]++;
            x->scount[dests[e]]++;
        }
    MPI_Aint off = 0;
    for (int r = 0; r < p; r++) {
        x->sd[r] = off * 3;
        off += x->scount[r];
    }
    /* place records by advancing per-process cursors (sd counted in ints: 3 per record) */
    MPI_Aint *cur = x->rd;   /* borrowed until the receive side is computed */
    for (int r = 0; r < p; r++)
        cur[r] = x->sd[r] / 3;
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            int w = weighted ? weights[e] : 0;
            x->sbuf[cur[sources[i]]++] = (edge_rec_t){1, dests[e], w};
            x->sbuf[cur[dests[e]]++] = (edge_rec_t){0, sources[i], w};
        }
    return MPI_SUCCESS;
}

/* The all-to-all exchange of the records (collective over c, big lock held). */
static int exchange(empi_comm_t *c, exchange_t *x)
{
    empi_datatype_t *int_dt = empi_datatype_get(MPI_INT);
    empi_coll_args_t a = {.coll = EMPI_COLL_ALLTOALL, .sbuf = x->scount, .rbuf = x->rcount, .scount = 1, .rcount = 1,
                          .sdt = int_dt, .rdt = int_dt, .comm = c};
    int rc = empi_coll_run_blocking(&a);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint off = 0;
    for (int r = 0; r < x->p; r++) {
        x->sc[r] = 3 * (MPI_Count)x->scount[r];
        x->rc[r] = 3 * (MPI_Count)x->rcount[r];
        x->rd[r] = 3 * off;
        off += x->rcount[r];
    }
    x->nrecv = (int)off;
    x->rbuf = malloc((size_t)(off > 0 ? off : 1) * sizeof *x->rbuf);
    if (!x->rbuf)
        return MPI_ERR_NO_MEM;
    empi_coll_args_t v = {.coll = EMPI_COLL_ALLTOALLV, .sbuf = x->sbuf, .rbuf = x->rbuf, .scounts = x->sc,
                          .rcounts = x->rc, .sdispls = x->sd, .rdispls = x->rd, .sdt = int_dt, .rdt = int_dt,
                          .comm = c};
    return empi_coll_run_blocking(&v);
}

/* This process's topology from the records it received (in order of the rank that sent them). */
static empi_topo_t *unpack(const exchange_t *x, int weighted)
{
    int nin = 0, nout = 0;
    for (int i = 0; i < x->nrecv; i++)
        x->rbuf[i].is_out ? nout++ : nin++;
    empi_topo_t *t = dist_new(nin, nout, weighted);
    if (!t)
        return NULL;
    nin = nout = 0;
    for (int i = 0; i < x->nrecv; i++) {
        const edge_rec_t *e = &x->rbuf[i];
        if (e->is_out) {
            if (weighted)
                t->outw[nout] = e->weight;
            t->out[nout++] = e->peer;
        } else {
            if (weighted)
                t->inw[nin] = e->weight;
            t->in[nin++] = e->peer;
        }
    }
    return t;
}

EMPI_WEAK_ALIAS(Dist_graph_create)
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int *weights, MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create";
    empi_comm_t *c;
    EMPI_CHECK(empi_topo_comm_old(comm_old, fn, &c));
    (void)reorder;
    EMPI_CHECK(check_common(c, fn, info, comm_dist_graph));
    if (n < 0)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: n %d is negative", fn, n);
    if (n > 0 && !degrees)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: degrees is NULL", fn);
    long long total = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return empi_err_comm(c, MPI_ERR_ARG, "%s: degrees[%d] = %d is negative", fn, i, degrees[i]);
        total += degrees[i];
    }
    if (total > 0x7fffffff / 6)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: too many edges (%lld)", fn, total);
    int weighted = weights != MPI_UNWEIGHTED;
    EMPI_CHECK(check_edges(c, fn, "sources", n, sources, "weights", NULL, 0));
    EMPI_CHECK(check_edges(c, fn, "destinations", (int)total, destinations, "weights", weights, weighted));

    exchange_t x = {.p = c->size};
    empi_topo_t *t = NULL;
    empi_lock();
    int rc = pack(&x, n, sources, degrees, destinations, weights, weighted, total);
    if (rc == MPI_SUCCESS)
        rc = exchange(c, &x);
    if (rc == MPI_SUCCESS)
        t = unpack(&x, weighted);   /* NULL: out of memory, reported by empi_topo_publish */
    empi_unlock();
    exchange_free(&x);
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "%s: %s", fn, rc == MPI_ERR_NO_MEM ? "out of memory" : "the edge exchange failed");
    return empi_topo_publish(c, c->size, NULL, t, comm_dist_graph, fn);
}

/* ---------------------------------------------------------------- queries */

EMPI_WEAK_ALIAS(Dist_graph_neighbors_count)
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    static const char fn[] = "MPI_Dist_graph_neighbors_count";
    EMPI_TOPO_ENTER(fn, comm, MPI_DIST_GRAPH, c, t);
    if (!indegree || !outdegree || !weighted)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: %s is NULL", fn,
                             !indegree ? "indegree" : !outdegree ? "outdegree" : "weighted");
    *indegree = t->nin;
    *outdegree = t->nout;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Dist_graph_neighbors)
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int *sourceweights, int maxoutdegree,
                              int destinations[], int *destweights)
{
    static const char fn[] = "MPI_Dist_graph_neighbors";
    EMPI_TOPO_ENTER(fn, comm, MPI_DIST_GRAPH, c, t);
    EMPI_CHECK(empi_topo_copy_out(c, fn, "sources", sources, maxindegree, t->in, t->nin));
    EMPI_CHECK(empi_topo_copy_out(c, fn, "destinations", destinations, maxoutdegree, t->out, t->nout));
    /* MPI_UNWEIGHTED for a weights argument asks for no weights there, weighted graph or not */
    if (!t->weighted)
        return MPI_SUCCESS;
    if (sourceweights != MPI_UNWEIGHTED && sourceweights != MPI_WEIGHTS_EMPTY)
        EMPI_CHECK(empi_topo_copy_out(c, fn, "sourceweights", sourceweights, maxindegree, t->inw, t->nin));
    if (destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY)
        EMPI_CHECK(empi_topo_copy_out(c, fn, "destweights", destweights, maxoutdegree, t->outw, t->nout));
    return MPI_SUCCESS;
}
