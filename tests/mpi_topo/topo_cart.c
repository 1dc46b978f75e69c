/*
 * Cartesian topologies: MPI_Dims_create against hand-computed factorizations; MPI_Cart_create in
 * 1, 2 and 3 dimensions (full and partial grids, periodic and not) with every query checked
 * against row-major arithmetic done here: rank/coords round trips for every rank, shifts by
 * -2..2 with wrap-around or MPI_PROC_NULL; MPI_Cart_sub for every choice of kept dims (members
 * and ranks checked); MPI_Cart_map; zero-dimensional grids; the topology surviving Comm_dup and
 * Comm_idup but not Comm_split.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static void dims_case(int nnodes, int ndims, const int *given, const int *want)
{
    int dims[8];
    memcpy(dims, given, (size_t)ndims * sizeof(int));
    CHECK_MPI(MPI_Dims_create(nnodes, ndims, dims));
    for (int d = 0; d < ndims; d++)
        CHECK(dims[d] == want[d], "Dims_create(%d, %d): dims[%d] = %d, want %d", nnodes, ndims, d, dims[d], want[d]);
}

static void test_dims_create(void)
{
    const int z[8] = {0};
    dims_case(1, 1, z, (int[]){1});
    dims_case(6, 2, z, (int[]){3, 2});
    dims_case(7, 2, z, (int[]){7, 1});
    dims_case(6, 3, z, (int[]){3, 2, 1});
    dims_case(8, 3, z, (int[]){2, 2, 2});
    dims_case(12, 2, z, (int[]){4, 3});
    dims_case(12, 3, z, (int[]){3, 2, 2});
    dims_case(16, 2, z, (int[]){4, 4});
    dims_case(16, 4, z, (int[]){2, 2, 2, 2});
    dims_case(24, 3, z, (int[]){4, 3, 2});
    dims_case(30, 2, z, (int[]){6, 5});
    dims_case(36, 3, z, (int[]){4, 3, 3});
    dims_case(64, 3, z, (int[]){4, 4, 4});
    dims_case(60, 3, z, (int[]){5, 4, 3});
    dims_case(1024, 2, z, (int[]){32, 32});
    dims_case(97, 3, z, (int[]){97, 1, 1});
    dims_case(4, 5, z, (int[]){2, 2, 1, 1, 1});
    /* 720720 = 2^4 3^2 5 7 11 13: closest splits found by exhaustive search; greedy splitting of
       the prime factors gets these wrong, and a naive search takes long */
    dims_case(720720, 4, z, (int[]){33, 30, 28, 26});
    dims_case(720720, 6, z, (int[]){13, 11, 10, 9, 8, 7});
    /* constrained dims keep their values; the free ones still go non-increasing */
    dims_case(6, 3, (int[]){0, 3, 0}, (int[]){2, 3, 1});
    dims_case(24, 3, (int[]){0, 0, 2}, (int[]){4, 3, 2});
    dims_case(24, 3, (int[]){1, 0, 0}, (int[]){1, 6, 4});
    dims_case(12, 2, (int[]){3, 4}, (int[]){3, 4});
    dims_case(1, 0, z, z);
    /* not divisible: erroneous */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int bad[3] = {0, 3, 0};
    CHECK_ERR(MPI_Dims_create(7, 3, bad), MPI_ERR_DIMS);
    int bad2[2] = {2, 2};
    CHECK_ERR(MPI_Dims_create(6, 2, bad2), MPI_ERR_DIMS);
}

/* ---------------------------------------------------------------- grid arithmetic done here */

typedef struct {
    int nd, dims[3], periods[3];
} grid_t;

static void coords_of(const grid_t *g, int rank, int *c)
{
    for (int d = g->nd - 1; d >= 0; d--) {
        c[d] = rank % g->dims[d];
        rank /= g->dims[d];
    }
}

static int rank_of(const grid_t *g, const int *c)
{
    int r = 0;
    for (int d = 0; d < g->nd; d++)
        r = r * g->dims[d] + c[d];
    return r;
}

static int gsize(const grid_t *g)
{
    int n = 1;
    for (int d = 0; d < g->nd; d++)
        n *= g->dims[d];
    return n;
}

/* The rank at my coords moved by disp along d, or MPI_PROC_NULL. */
static int moved(const grid_t *g, const int *mine, int d, int disp)
{
    int c[3];
    memcpy(c, mine, sizeof c);
    c[d] += disp;
    if (c[d] < 0 || c[d] >= g->dims[d]) {
        if (!g->periods[d])
            return MPI_PROC_NULL;
        c[d] = ((c[d] % g->dims[d]) + g->dims[d]) % g->dims[d];
    }
    return rank_of(g, c);
}

static void check_queries(MPI_Comm comm, const grid_t *g)
{
    int kind, nd, rank, size;
    CHECK_MPI(MPI_Topo_test(comm, &kind));
    CHECK(kind == MPI_CART, "Topo_test gives %d, want MPI_CART", kind);
    CHECK_MPI(MPI_Cartdim_get(comm, &nd));
    CHECK(nd == g->nd, "Cartdim_get %d want %d", nd, g->nd);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    CHECK(size == gsize(g), "size %d want %d", size, gsize(g));
    int dims[3], periods[3], coords[3], want[3] = {0, 0, 0};
    CHECK_MPI(MPI_Cart_get(comm, 3, dims, periods, coords));
    coords_of(g, rank, want);
    for (int d = 0; d < g->nd; d++) {
        CHECK(dims[d] == g->dims[d] && !!periods[d] == !!g->periods[d], "Cart_get dim %d: %d/%d want %d/%d", d,
              dims[d], periods[d], g->dims[d], g->periods[d]);
        CHECK(coords[d] == want[d], "Cart_get coords[%d] = %d want %d", d, coords[d], want[d]);
    }
    for (int r = 0; r < size; r++) {
        int c[3], back;
        CHECK_MPI(MPI_Cart_coords(comm, r, 3, c));
        coords_of(g, r, want);
        for (int d = 0; d < g->nd; d++)
            CHECK(c[d] == want[d], "Cart_coords(%d)[%d] = %d want %d", r, d, c[d], want[d]);
        CHECK_MPI(MPI_Cart_rank(comm, c, &back));
        CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
        /* periodic dims wrap in Cart_rank */
        for (int d = 0; d < g->nd; d++) {
            if (!g->periods[d])
                continue;
            int w[3];
            memcpy(w, c, sizeof w);
            w[d] += 3 * g->dims[d];
            CHECK_MPI(MPI_Cart_rank(comm, w, &back));
            CHECK(back == r, "Cart_rank wraps +: %d want %d", back, r);
            w[d] = c[d] - 2 * g->dims[d];
            CHECK_MPI(MPI_Cart_rank(comm, w, &back));
            CHECK(back == r, "Cart_rank wraps -: %d want %d", back, r);
        }
    }
    for (int d = 0; d < g->nd; d++)
        for (int disp = -2; disp <= 2; disp++) {
            int src, dst;
            CHECK_MPI(MPI_Cart_shift(comm, d, disp, &src, &dst));
            int wsrc = moved(g, coords, d, -disp), wdst = moved(g, coords, d, disp);
            CHECK(src == wsrc && dst == wdst, "Cart_shift(dim %d, disp %d) at %d: %d,%d want %d,%d", d, disp, rank,
                  src, dst, wsrc, wdst);
        }
}

/* Every subset of kept dims: membership, ranks and the sub-grid's own queries. */
static void check_sub(MPI_Comm comm, const grid_t *g)
{
    int rank, coords[3] = {0, 0, 0};
    MPI_Comm_rank(comm, &rank);
    coords_of(g, rank, coords);
    for (int mask = 0; mask < (1 << g->nd); mask++) {
        int remain[3];
        grid_t s = {0, {0}, {0}};
        int scoords[3];
        for (int d = 0; d < g->nd; d++) {
            remain[d] = (mask >> d) & 1;
            if (remain[d]) {
                s.dims[s.nd] = g->dims[d];
                s.periods[s.nd] = g->periods[d];
                scoords[s.nd++] = coords[d];
            }
        }
        MPI_Comm sub;
        CHECK_MPI(MPI_Cart_sub(comm, remain, &sub));
        CHECK(sub != MPI_COMM_NULL, "Cart_sub gave MPI_COMM_NULL");
        check_queries(sub, &s);
        int srank, want = s.nd ? rank_of(&s, scoords) : 0;
        MPI_Comm_rank(sub, &srank);
        CHECK(srank == want, "Cart_sub mask %d: rank %d want %d", mask, srank, want);
        /* members: the parent ranks that share my coords in the dropped dims */
        int sum = 0, wsum = 0;
        CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, sub));
        for (int r = 0; r < gsize(g); r++) {
            int c[3];
            coords_of(g, r, c);
            int same = 1;
            for (int d = 0; d < g->nd; d++)
                same &= remain[d] || c[d] == coords[d];
            wsum += same ? r : 0;
        }
        CHECK(sum == wsum, "Cart_sub mask %d: members sum to %d want %d", mask, sum, wsum);
        CHECK_MPI(MPI_Comm_free(&sub));
    }
}

static void test_grid(int nd, const int *dims, const int *periods)
{
    int size = empi_size(), rank = empi_rank();
    grid_t g = {nd, {1, 1, 1}, {0, 0, 0}};
    for (int d = 0; d < nd; d++) {
        g.dims[d] = dims[d];
        g.periods[d] = periods[d];
    }
    int newrank;
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, nd, g.dims, g.periods, &newrank));
    CHECK(newrank == (rank < gsize(&g) ? rank : MPI_UNDEFINED), "Cart_map gives %d", newrank);
    MPI_Comm comm;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, nd, g.dims, g.periods, 0, &comm));
    if (rank >= gsize(&g)) {
        CHECK(comm == MPI_COMM_NULL, "rank %d outside a grid of %d got a communicator", rank, gsize(&g));
        return;
    }
    CHECK(comm != MPI_COMM_NULL, "rank %d inside the grid got MPI_COMM_NULL", rank);
    int crank;
    MPI_Comm_rank(comm, &crank);
    CHECK(crank == rank, "reorder = false must keep rank %d (got %d)", rank, crank);
    check_queries(comm, &g);
    check_sub(comm, &g);
    (void)size;
    CHECK_MPI(MPI_Comm_free(&comm));
}

static void test_grids(void)
{
    int p = empi_size();
    int all[3] = {1, 1, 1}, none[3] = {0, 0, 0}, mixed[3] = {1, 0, 1}, mixed2[3] = {0, 1, 0};
    for (int nd = 1; nd <= 3; nd++) {
        int dims[3] = {0, 0, 0};
        CHECK_MPI(MPI_Dims_create(p, nd, dims));
        test_grid(nd, dims, all);
        test_grid(nd, dims, none);
        test_grid(nd, dims, mixed);
        test_grid(nd, dims, mixed2);
    }
    /* grids smaller than the communicator */
    if (p > 1) {
        int d1[1] = {p - 1};
        test_grid(1, d1, all);
        int d2[2] = {1, p / 2};
        test_grid(2, d2, none);
    }
    /* size-1 and size-2 dimensions */
    if (p % 2 == 0) {
        int d3[3] = {2, 1, p / 2};
        test_grid(3, d3, mixed);
    }
}

static void test_zero_dim(void)
{
    MPI_Comm c;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 1, &c));
    if (empi_rank() != 0) {
        CHECK(c == MPI_COMM_NULL, "zero-dimensional grid: rank %d got a communicator", empi_rank());
        return;
    }
    grid_t g = {0, {1, 1, 1}, {0, 0, 0}};
    check_queries(c, &g);
    int r = -1, z[1] = {0};
    CHECK_MPI(MPI_Cart_rank(c, z, &r));
    CHECK(r == 0, "Cart_rank on a zero-dimensional grid: %d", r);
    /* Cart_sub of a zero-dimensional grid is zero-dimensional again */
    MPI_Comm s;
    CHECK_MPI(MPI_Cart_sub(c, z, &s));
    check_queries(s, &g);
    CHECK_MPI(MPI_Comm_free(&s));
    CHECK_MPI(MPI_Comm_free(&c));
}

/* Comm_dup and Comm_idup copy the topology (even after the original is freed); split does not. */
static void test_dup(void)
{
    int p = empi_size(), dims[2] = {0, 0}, periods[2] = {1, 0};
    CHECK_MPI(MPI_Dims_create(p, 2, dims));
    grid_t g = {2, {dims[0], dims[1], 1}, {1, 0, 0}};
    MPI_Comm c, d, i, s;
    MPI_Request req;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    CHECK_MPI(MPI_Comm_dup(c, &d));
    CHECK_MPI(MPI_Comm_idup(c, &i, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_split(c, 0, empi_rank(), &s));
    CHECK_MPI(MPI_Comm_free(&c));
    check_queries(d, &g);
    check_queries(i, &g);
    int kind;
    CHECK_MPI(MPI_Topo_test(s, &kind));
    CHECK(kind == MPI_UNDEFINED, "Comm_split kept the topology (%d)", kind);
    CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &kind));
    CHECK(kind == MPI_UNDEFINED, "MPI_COMM_WORLD has a topology (%d)", kind);
    MPI_Comm dd;
    CHECK_MPI(MPI_Comm_dup(d, &dd));
    CHECK_MPI(MPI_Comm_free(&d));
    check_queries(dd, &g);
    CHECK_MPI(MPI_Comm_free(&dd));
    CHECK_MPI(MPI_Comm_free(&i));
    CHECK_MPI(MPI_Comm_free(&s));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_dims_create();
    test_grids();
    test_zero_dim();
    test_dup();
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
