/*
 * Graph and distributed-graph topologies: MPI_Graph_create (full and partial, with repeated edges
 * and self-loops) with Graphdims_get, Graph_get, Graph_neighbors(_count) and Graph_map;
 * MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create, weighted, unweighted and with
 * MPI_WEIGHTS_EMPTY, with Dist_graph_neighbors(_count) compared to the graph built here; the
 * topology surviving Comm_dup.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

/* The test graph: node i's neighbors, distance 1 and 2 on a ring (repeats when p is small). */
static int ring_nbrs(int i, int p, int *out)
{
    out[0] = (i + 1) % p;
    out[1] = (i - 1 + p) % p;
    out[2] = (i + 2) % p;
    out[3] = i; /* a self-loop */
    return 4;
}

static void test_graph(int nnodes)
{
    int p = empi_size(), rank = empi_rank();
    int *index = malloc((size_t)nnodes * sizeof(int) + 4), *edges = malloc((size_t)nnodes * 4 * sizeof(int) + 4);
    for (int i = 0; i < nnodes; i++) {
        ring_nbrs(i, nnodes, edges + 4 * i);
        index[i] = 4 * (i + 1);
    }
    int newrank;
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &newrank));
    CHECK(newrank == (rank < nnodes ? rank : MPI_UNDEFINED), "Graph_map gives %d", newrank);
    MPI_Comm g;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g));
    if (rank >= nnodes) {
        CHECK(g == MPI_COMM_NULL, "rank %d outside a graph of %d nodes got a communicator", rank, nnodes);
    } else {
        int kind, nn, ne, size, grank;
        MPI_Comm_size(g, &size);
        MPI_Comm_rank(g, &grank);
        CHECK(size == nnodes && grank == rank, "graph communicator size %d rank %d", size, grank);
        CHECK_MPI(MPI_Topo_test(g, &kind));
        CHECK(kind == MPI_GRAPH, "Topo_test %d", kind);
        CHECK_MPI(MPI_Graphdims_get(g, &nn, &ne));
        CHECK(nn == nnodes && ne == 4 * nnodes, "Graphdims_get %d %d", nn, ne);
        int *gi = malloc((size_t)nn * sizeof(int)), *ge = malloc((size_t)ne * sizeof(int));
        CHECK_MPI(MPI_Graph_get(g, nn, ne, gi, ge));
        CHECK(!memcmp(gi, index, (size_t)nn * sizeof(int)) && !memcmp(ge, edges, (size_t)ne * sizeof(int)),
              "Graph_get differs from the graph given");
        for (int r = 0; r < nnodes; r++) {
            int n, nb[4], want[4];
            ring_nbrs(r, nnodes, want);
            CHECK_MPI(MPI_Graph_neighbors_count(g, r, &n));
            CHECK(n == 4, "Graph_neighbors_count(%d) = %d", r, n);
            CHECK_MPI(MPI_Graph_neighbors(g, r, 4, nb));
            CHECK(!memcmp(nb, want, sizeof want), "Graph_neighbors(%d) in the wrong order", r);
        }
        /* a duplicate has the same graph */
        MPI_Comm d;
        CHECK_MPI(MPI_Comm_dup(g, &d));
        CHECK_MPI(MPI_Comm_free(&g));
        CHECK_MPI(MPI_Graph_get(d, nn, ne, gi, ge));
        CHECK(!memcmp(ge, edges, (size_t)ne * sizeof(int)), "Graph_get on a duplicate differs");
        CHECK_MPI(MPI_Comm_free(&d));
        free(gi);
        free(ge);
    }
    (void)p;
    free(index);
    free(edges);
}

/* ---------------------------------------------------------------- distributed graphs */

/* Out-edges of i (p processes) with their weights: repeats and a self-loop. */
static int dist_out(int i, int p, int *out, int *w)
{
    int n = 0;
    out[n++] = (i + 1) % p;
    out[n++] = (i + 2) % p;
    out[n++] = i;
    out[n++] = (i + 1) % p;
    if (i % 2)
        n = 0; /* odd ranks send nothing: zero out-degree */
    for (int k = 0; k < n; k++)
        w[k] = 100 * i + k;
    return n;
}

/* In-edges of me, from the highest rank down (an order of the caller's choosing). */
static int dist_in(int me, int p, int *in, int *w)
{
    int n = 0;
    for (int j = p - 1; j >= 0; j--) {
        int o[4], ow[4], m = dist_out(j, p, o, ow);
        for (int k = 0; k < m; k++)
            if (o[k] == me) {
                in[n] = j;
                w[n++] = ow[k];
            }
    }
    return n;
}

typedef struct {
    int peer, weight;
} edge_t;

static int by_edge(const void *a, const void *b)
{
    const edge_t *x = a, *y = b;
    return x->peer != y->peer ? x->peer - y->peer : x->weight - y->weight;
}

/* Same multiset of (peer, weight)? (weights ignored when w == NULL) */
static int same_edges(const int *a, const int *aw, const int *b, const int *bw, int n)
{
    edge_t *x = malloc((size_t)(n + 1) * sizeof *x), *y = malloc((size_t)(n + 1) * sizeof *y);
    for (int i = 0; i < n; i++) {
        x[i] = (edge_t){a[i], aw ? aw[i] : 0};
        y[i] = (edge_t){b[i], bw ? bw[i] : 0};
    }
    qsort(x, (size_t)n, sizeof *x, by_edge);
    qsort(y, (size_t)n, sizeof *y, by_edge);
    int same = !memcmp(x, y, (size_t)n * sizeof *x);
    free(x);
    free(y);
    return same;
}

/* Compare the communicator's neighbors with the test graph; `ordered`: lists in the given order. */
static void check_dist(MPI_Comm c, int weighted, int ordered, const char *what)
{
    int me = empi_rank(), p = empi_size();
    int in[64], inw[64], out[4], outw[4];
    int nin = dist_in(me, p, in, inw), nout = dist_out(me, p, out, outw);
    int kind, gin, gout, gw;
    CHECK_MPI(MPI_Topo_test(c, &kind));
    CHECK(kind == MPI_DIST_GRAPH, "%s: Topo_test %d", what, kind);
    CHECK_MPI(MPI_Dist_graph_neighbors_count(c, &gin, &gout, &gw));
    CHECK(gin == nin && gout == nout, "%s: degrees %d/%d want %d/%d", what, gin, gout, nin, nout);
    CHECK(!!gw == weighted, "%s: weighted %d want %d", what, gw, weighted);
    int s[64], sw[64], d[4], dw[4];
    CHECK_MPI(MPI_Dist_graph_neighbors(c, 64, s, weighted ? sw : MPI_UNWEIGHTED, 4, d,
                                       weighted ? dw : MPI_UNWEIGHTED));
    if (ordered) {
        CHECK(!memcmp(s, in, (size_t)nin * sizeof(int)) && !memcmp(d, out, (size_t)nout * sizeof(int)),
              "%s: neighbors not in the order given", what);
        CHECK(!weighted ||
                  (!memcmp(sw, inw, (size_t)nin * sizeof(int)) && !memcmp(dw, outw, (size_t)nout * sizeof(int))),
              "%s: weights not in the order given", what);
    } else {
        CHECK(same_edges(s, weighted ? sw : NULL, in, weighted ? inw : NULL, nin), "%s: wrong in-edges", what);
        CHECK(same_edges(d, weighted ? dw : NULL, out, weighted ? outw : NULL, nout), "%s: wrong out-edges", what);
    }
    /* MPI_UNWEIGHTED asks for no weights even of a weighted graph; the other array is still filled */
    int s2[64], dw2[4] = {-1, -1, -1, -1};
    CHECK_MPI(MPI_Dist_graph_neighbors(c, 64, s2, MPI_UNWEIGHTED, 4, d, weighted ? dw2 : MPI_UNWEIGHTED));
    CHECK(!memcmp(s2, s, (size_t)nin * sizeof(int)) && (!weighted || !memcmp(dw2, dw, (size_t)nout * sizeof(int))),
          "%s: neighbors with the source weights not asked for", what);
}

static void test_dist_graph(void)
{
    int me = empi_rank(), p = empi_size();
    int in[64], inw[64], out[4], outw[4];
    int nin = dist_in(me, p, in, inw), nout = dist_out(me, p, out, outw);
    MPI_Comm c, d;

    /* adjacent, weighted; an empty list passes MPI_WEIGHTS_EMPTY */
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, nin ? inw : MPI_WEIGHTS_EMPTY, nout, out,
                                             nout ? outw : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &c));
    check_dist(c, 1, 1, "adjacent weighted");
    CHECK_MPI(MPI_Comm_dup(c, &d));
    CHECK_MPI(MPI_Comm_free(&c));
    check_dist(d, 1, 1, "dup of adjacent weighted");
    CHECK_MPI(MPI_Comm_free(&d));

    /* adjacent, unweighted */
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, MPI_UNWEIGHTED, nout, out, MPI_UNWEIGHTED,
                                             MPI_INFO_NULL, 1, &c));
    check_dist(c, 0, 1, "adjacent unweighted");
    CHECK_MPI(MPI_Comm_free(&c));

    /* general: every process gives its own out-edges, weighted */
    int src = me, deg = nout;
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, out, nout ? outw : MPI_WEIGHTS_EMPTY,
                                    MPI_INFO_NULL, 0, &c));
    check_dist(c, 1, 0, "create, own out-edges");
    CHECK_MPI(MPI_Comm_free(&c));

    /* general: every process gives its in-edges (edges it does not start), weighted */
    int *srcs = malloc(64 * sizeof(int)), *degs = malloc(64 * sizeof(int)), *dsts = malloc(64 * sizeof(int));
    for (int i = 0; i < nin; i++) {
        srcs[i] = in[i];
        degs[i] = 1;
        dsts[i] = me;
    }
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, nin, srcs, degs, dsts, nin ? inw : MPI_WEIGHTS_EMPTY,
                                    MPI_INFO_NULL, 0, &c));
    check_dist(c, 1, 0, "create, own in-edges");
    CHECK_MPI(MPI_Comm_free(&c));

    /* general: the last process gives the whole graph, unweighted; the others give nothing */
    int n = 0, e = 0;
    if (me == p - 1)
        for (int i = 0; i < p; i++) {
            int o[4], ow[4], m = dist_out(i, p, o, ow);
            srcs[n] = i;
            degs[n++] = m;
            for (int k = 0; k < m; k++)
                dsts[e++] = o[k];
        }
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    check_dist(c, 0, 0, "create by one process");
    CHECK_MPI(MPI_Comm_free(&c));
    free(srcs);
    free(degs);
    free(dsts);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p = empi_size();
    test_graph(p);
    if (p > 1)
        test_graph(p - 1);
    test_graph(1);
    /* zero nodes: everyone gets MPI_COMM_NULL */
    MPI_Comm g;
    int dummy[1] = {0};
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, 0, dummy, dummy, 0, &g));
    CHECK(g == MPI_COMM_NULL, "an empty graph gave a communicator");
    test_dist_graph();
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
