/*
 * Cartesian topologies: the grid arithmetic (row-major ranks, shifts), and the calls that make a
 * Cartesian communicator: MPI_Cart_create, MPI_Cart_sub, and MPI_Cart_map which says where
 * MPI_Cart_create would put the caller. Ranks are never reordered (the standard allows identity).
 * A zero-dimensional grid has one process: ndims 0 is valid everywhere.
 */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "topo/topo.h"

int empi_cart_rank_of(const empi_topo_t *t, const int *coords)
{
    int rank = 0;
    for (int d = 0; d < t->ndims; d++) {
        long long c = coords[d], n = t->dims[d];
        if (c < 0 || c >= n) {
            if (!t->periods[d])
                return -1;
            c = ((c % n) + n) % n;
        }
        rank = rank * (int)n + (int)c;
    }
    return rank;
}

void empi_cart_coords_of(const empi_topo_t *t, int rank, int *coords)
{
    for (int d = t->ndims - 1; d >= 0; d--) {
        coords[d] = rank % t->dims[d];
        rank /= t->dims[d];
    }
}

/* Rank at this process's coords moved by disp along dim d, or MPI_PROC_NULL off a fixed edge. */
static int shifted(const empi_topo_t *t, int d, long long disp)
{
    long long c = t->coords[d] + disp, n = t->dims[d];
    if (c < 0 || c >= n) {
        if (!t->periods[d])
            return MPI_PROC_NULL;
        c = ((c % n) + n) % n;
    }
    int stride = 1;
    for (int i = d + 1; i < t->ndims; i++)
        stride *= t->dims[i];
    return empi_cart_rank_of(t, t->coords) + ((int)c - t->coords[d]) * stride;
}

void empi_cart_shift_of(const empi_topo_t *t, int d, int disp, int *source, int *dest)
{
    *source = shifted(t, d, -(long long)disp);
    *dest = shifted(t, d, disp);
}

empi_topo_t *empi_cart_new(int ndims, const int *dims, const int *periods, int rank)
{
    size_t used = 0;
    empi_topo_t *t = empi_topo_new(MPI_CART, (size_t)ndims * 5);
    if (!t)
        return NULL;
    t->ndims = ndims;
    t->dims = empi_topo_take(t, &used, (size_t)ndims);
    t->periods = empi_topo_take(t, &used, (size_t)ndims);
    t->coords = empi_topo_take(t, &used, (size_t)ndims);
    int *nbr = empi_topo_take(t, &used, (size_t)ndims * 2);
    for (int d = 0; d < ndims; d++) {
        t->dims[d] = dims[d];
        t->periods[d] = periods[d] != 0;
    }
    empi_cart_coords_of(t, rank, t->coords);
    /* The standard's neighbor order: per dimension, the -1 then the +1 neighbor of a shift by 1. */
    for (int d = 0; d < ndims; d++)
        empi_cart_shift_of(t, d, 1, &nbr[2 * d], &nbr[2 * d + 1]);
    t->in = t->out = nbr;
    t->nin = t->nout = 2 * ndims;
    return t;
}

/* Validate a grid description; *nprocs := its number of processes. Raises on c. */
static int check_grid(empi_comm_t *c, const char *fn, int ndims, const int *dims, const int *periods,
                      long long *nprocs)
{
    if (ndims < 0)
        return empi_err_comm(c, MPI_ERR_DIMS, "%s: ndims %d is negative", fn, ndims);
    if (ndims > 0 && (!dims || !periods))
        return empi_err_comm(c, MPI_ERR_ARG, "%s: %s is NULL", fn, dims ? "periods" : "dims");
    long long n = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return empi_err_comm(c, MPI_ERR_DIMS, "%s: dims[%d] is %d, not positive", fn, d, dims[d]);
        if (n <= c->size)
            n *= dims[d];
    }
    if (n > c->size)
        return empi_err_comm(c, MPI_ERR_DIMS, "%s: the grid has more processes than the communicator (size %d)", fn,
                             c->size);
    *nprocs = n;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Cart_create)
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm *comm_cart)
{
    static const char fn[] = "MPI_Cart_create";
    empi_comm_t *c;
    EMPI_CHECK(empi_topo_comm_old(comm_old, fn, &c));
    (void)reorder;
    if (!comm_cart)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: comm_cart is NULL", fn);
    long long n;
    EMPI_CHECK(check_grid(c, fn, ndims, dims, periods, &n));
    empi_topo_t *t = c->rank < n ? empi_cart_new(ndims, dims, periods, c->rank) : NULL;
    return empi_topo_publish(c, (int)n, NULL, t, comm_cart, fn);
}

EMPI_WEAK_ALIAS(Cart_map)
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char fn[] = "MPI_Cart_map";
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fn, &c));
    if (!newrank)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: newrank is NULL", fn);
    long long n;
    EMPI_CHECK(check_grid(c, fn, ndims, dims, periods, &n));
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Cart_sub)
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Cart_sub";
    EMPI_TOPO_ENTER(fn, comm, MPI_CART, c, t);
    if (!newcomm)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: newcomm is NULL", fn);
    if (t->ndims > 0 && !remain_dims)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: remain_dims is NULL", fn);
    int nd = t->ndims;
    int *members = malloc((size_t)c->size * sizeof *members);
    int *coords = malloc((size_t)(nd ? nd : 1) * sizeof *coords);
    int *sdims = malloc((size_t)(nd ? nd : 1) * 2 * sizeof *sdims);
    empi_topo_t *sub = NULL;
    int n = 0, me = 0, keep = 0;
    if (members && coords && sdims) {
        /* The processes that share this one's coordinates in the dropped dims, in rank order
           (which is row-major order of the kept dims). */
        for (int r = 0; r < c->size; r++) {
            empi_cart_coords_of(t, r, coords);
            int same = 1;
            for (int d = 0; d < nd && same; d++)
                same = remain_dims[d] || coords[d] == t->coords[d];
            if (!same)
                continue;
            if (r == c->rank)
                me = n;
            members[n++] = r;
        }
        for (int d = 0; d < nd; d++)
            if (remain_dims[d]) {
                sdims[keep] = t->dims[d];
                sdims[nd + keep++] = t->periods[d];
            }
        sub = empi_cart_new(keep, sdims, sdims + nd, me);
    }
    free(coords);
    free(sdims);
    /* out of memory: still take part, as a communicator of one */
    int rc = empi_topo_publish(c, sub ? n : 1, sub ? members : &c->rank, sub, newcomm, fn);
    free(members);
    return rc;
}
