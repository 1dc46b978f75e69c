/*
 * Misuse of the topology calls and neighborhood collectives fails with an error class, never a
 * crash or hang. A call on a communicator without the topology it needs is MPI_ERR_TOPOLOGY;
 * where the standard names no class, any of the plausible ones is accepted (ARG, DIMS, RANK...)
 * so the test holds on any implementation.
 */
#include <stdarg.h>
#include <stdio.h>

#include "empi_test.h"

/* rc must be an error whose class is one of the n given. */
static void check_one_of(const char *what, int rc, int n, ...)
{
    CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    int cls;
    MPI_Error_class(rc, &cls);
    va_list ap;
    va_start(ap, n);
    int ok = 0;
    for (int i = 0; i < n; i++)
        ok |= va_arg(ap, int) == cls;
    va_end(ap);
    CHECK(ok, "%s failed with class %d, not one of the expected", what, cls);
}

#define EXPECT_ANY(call, ...) check_one_of(#call, (call), __VA_ARGS__)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p = empi_size(), me = empi_rank();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* new communicators inherit MPI_ERRORS_RETURN from MPI_COMM_WORLD */
    int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], r, s, d, n;
    CHECK_MPI(MPI_Dims_create(p, 2, dims));
    MPI_Comm cart, graph, dist;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    int index[1] = {1}, edges[1] = {0};
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &graph));
    int peer = (me + 1) % p, prev = (me - 1 + p) % p;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, MPI_UNWEIGHTED, 1, &peer, MPI_UNWEIGHTED,
                                             MPI_INFO_NULL, 0, &dist));
    MPI_Comm out;

    /* the wrong kind of topology, or none */
    CHECK_ERR(MPI_Cart_get(MPI_COMM_WORLD, 2, dims, periods, coords), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Cartdim_get(dist, &n), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Cart_shift(dist, 0, 1, &s, &d), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Cart_rank(MPI_COMM_WORLD, coords, &r), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Cart_coords(dist, 0, 2, coords), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Cart_sub(dist, periods, &out), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Graphdims_get(cart, &n, &r), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Graph_neighbors_count(cart, 0, &n), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Graph_neighbors(dist, 0, 1, &n), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Graph_get(MPI_COMM_WORLD, 1, 1, index, edges), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Dist_graph_neighbors_count(cart, &n, &r, &s), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Dist_graph_neighbors(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED),
              MPI_ERR_TOPOLOGY);
    int buf[64];
    CHECK_ERR(MPI_Neighbor_allgather(buf, 1, MPI_INT, buf + 32, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
    MPI_Request req;
    CHECK_ERR(MPI_Ineighbor_alltoall(buf, 1, MPI_INT, buf + 32, 1, MPI_INT, MPI_COMM_WORLD, &req), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Neighbor_alltoall_init(buf, 1, MPI_INT, buf + 32, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
              MPI_ERR_TOPOLOGY);

    /* bad dimensions */
    int bad[2] = {0, 3};
    CHECK_ERR(MPI_Dims_create(3 * p + 1, 2, bad), MPI_ERR_DIMS);
    int neg[2] = {-1, 0};
    EXPECT_ANY(MPI_Dims_create(p, 2, neg), 2, MPI_ERR_DIMS, MPI_ERR_ARG);
    EXPECT_ANY(MPI_Dims_create(p, -1, dims), 2, MPI_ERR_DIMS, MPI_ERR_ARG);
    int zero[2] = {0, 1};
    EXPECT_ANY(MPI_Cart_create(MPI_COMM_WORLD, 2, zero, periods, 0, &out), 2, MPI_ERR_DIMS, MPI_ERR_ARG);
    int big[2] = {p + 1, 1};
    EXPECT_ANY(MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &out), 3, MPI_ERR_DIMS, MPI_ERR_ARG,
               MPI_ERR_TOPOLOGY);
    EXPECT_ANY(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &out), 2, MPI_ERR_DIMS, MPI_ERR_ARG);
    EXPECT_ANY(MPI_Cart_shift(cart, 2, 1, &s, &d), 2, MPI_ERR_DIMS, MPI_ERR_ARG);
    EXPECT_ANY(MPI_Cart_shift(cart, -1, 1, &s, &d), 2, MPI_ERR_DIMS, MPI_ERR_ARG);

    /* bad ranks and coordinates */
    EXPECT_ANY(MPI_Cart_coords(cart, p, 2, coords), 2, MPI_ERR_RANK, MPI_ERR_ARG);
    EXPECT_ANY(MPI_Cart_coords(cart, -1, 2, coords), 2, MPI_ERR_RANK, MPI_ERR_ARG);
    int off[2] = {dims[0], 0};
    EXPECT_ANY(MPI_Cart_rank(cart, off, &r), 2, MPI_ERR_ARG, MPI_ERR_RANK);
    off[0] = -1;
    EXPECT_ANY(MPI_Cart_rank(cart, off, &r), 2, MPI_ERR_ARG, MPI_ERR_RANK);
    if (graph != MPI_COMM_NULL)
        EXPECT_ANY(MPI_Graph_neighbors_count(graph, 1, &n), 2, MPI_ERR_RANK, MPI_ERR_ARG);
    int far[1] = {p};
    EXPECT_ANY(MPI_Graph_create(MPI_COMM_WORLD, 1, index, far, 0, &out), 2, MPI_ERR_RANK, MPI_ERR_ARG);
    EXPECT_ANY(MPI_Graph_create(MPI_COMM_WORLD, p + 1, index, edges, 0, &out), 2, MPI_ERR_ARG, MPI_ERR_RANK);
    int down[2] = {1, 0};
    if (p >= 2)
        EXPECT_ANY(MPI_Graph_create(MPI_COMM_WORLD, 2, down, edges, 0, &out), 1, MPI_ERR_ARG);
    EXPECT_ANY(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, far, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                              MPI_INFO_NULL, 0, &out),
               2, MPI_ERR_RANK, MPI_ERR_ARG);
    int negw[1] = {-5};
    EXPECT_ANY(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &peer, negw, 1, &peer, negw, MPI_INFO_NULL, 0, &out),
               1, MPI_ERR_ARG);
    int negdeg[1] = {-1};
    EXPECT_ANY(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, negdeg, &peer, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &out),
               1, MPI_ERR_ARG);

    /* bad arguments of neighborhood collectives */
    CHECK_ERR(MPI_Neighbor_allgather(buf, -1, MPI_INT, buf + 32, 1, MPI_INT, dist), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Neighbor_alltoall(buf, 1, MPI_DATATYPE_NULL, buf + 32, 1, MPI_INT, cart), MPI_ERR_TYPE);
    int cnt[1] = {-2}, dsp[1] = {0};
    CHECK_ERR(MPI_Neighbor_alltoallv(buf, cnt, dsp, MPI_INT, buf + 32, cnt, dsp, MPI_INT, dist), MPI_ERR_COUNT);
    MPI_Datatype types[1] = {MPI_DATATYPE_NULL};
    MPI_Aint wd[1] = {0};
    int one[1] = {1};
    CHECK_ERR(MPI_Neighbor_alltoallw(buf, one, wd, types, buf + 32, one, wd, types, dist), MPI_ERR_TYPE);

    /* topologies are for intracommunicators: an intercommunicator (two halves) is MPI_ERR_COMM */
    if (p >= 2) {
        MPI_Comm half, inter, out;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
        CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - me % 2, 77, &inter));
        int one_dim[1] = {1}, no_period[1] = {0}, gi[1] = {0}, ge[1] = {0}, src[1] = {0};
        CHECK_ERR(MPI_Cart_create(inter, 1, one_dim, no_period, 0, &out), MPI_ERR_COMM);
        CHECK_ERR(MPI_Graph_create(inter, 1, gi, ge, 0, &out), MPI_ERR_COMM);
        CHECK_ERR(MPI_Dist_graph_create_adjacent(inter, 0, src, MPI_UNWEIGHTED, 0, src, MPI_UNWEIGHTED,
                                                 MPI_INFO_NULL, 0, &out), MPI_ERR_COMM);
        CHECK_ERR(MPI_Dist_graph_create(inter, 0, src, src, src, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &out),
                  MPI_ERR_COMM);
        CHECK_MPI(MPI_Comm_free(&inter));
        CHECK_MPI(MPI_Comm_free(&half));
    }

    /* nothing above left a communication half done: the topologies still work */
    int x = me, y = -1;
    CHECK_MPI(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, dist));
    CHECK(y == (me - 1 + p) % p, "neighbor_allgather after errors: %d", y);

    CHECK_MPI(MPI_Comm_free(&cart));
    if (graph != MPI_COMM_NULL)
        CHECK_MPI(MPI_Comm_free(&graph));
    CHECK_MPI(MPI_Comm_free(&dist));
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
