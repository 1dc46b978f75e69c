/*
 * Local queries of a Cartesian communicator: MPI_Cartdim_get, MPI_Cart_get, MPI_Cart_rank,
 * MPI_Cart_coords and MPI_Cart_shift.
 */
#include "core/error.h"
#include "core/global.h"
#include "topo/topo.h"

/* maxdims must hold all ndims entries (the standard sizes the arrays by it). */
static int check_maxdims(empi_comm_t *c, const empi_topo_t *t, const char *fn, int maxdims)
{
    if (maxdims < t->ndims)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: maxdims %d is less than the %d dimensions", fn, maxdims, t->ndims);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Cartdim_get)
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    EMPI_TOPO_ENTER("MPI_Cartdim_get", comm, MPI_CART, c, t);
    if (!ndims)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Cartdim_get: ndims is NULL");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Cart_get)
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char fn[] = "MPI_Cart_get";
    EMPI_TOPO_ENTER(fn, comm, MPI_CART, c, t);
    EMPI_CHECK(check_maxdims(c, t, fn, maxdims));
    if (t->ndims > 0 && (!dims || !periods || !coords))
        return empi_err_comm(c, MPI_ERR_ARG, "%s: %s is NULL", fn, !dims ? "dims" : !periods ? "periods" : "coords");
    for (int d = 0; d < t->ndims; d++) {
        dims[d] = t->dims[d];
        periods[d] = t->periods[d];
        coords[d] = t->coords[d];
    }
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Cart_rank)
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char fn[] = "MPI_Cart_rank";
    EMPI_TOPO_ENTER(fn, comm, MPI_CART, c, t);
    if (!rank || (t->ndims > 0 && !coords))
        return empi_err_comm(c, MPI_ERR_ARG, "%s: %s is NULL", fn, rank ? "coords" : "rank");
    int r = empi_cart_rank_of(t, coords);
    if (r < 0) {
        int d = 0;
        while (t->periods[d] || (coords[d] >= 0 && coords[d] < t->dims[d]))
            d++;
        return empi_err_comm(c, MPI_ERR_ARG, "%s: coords[%d] = %d is outside the non-periodic dimension of size %d",
                             fn, d, coords[d], t->dims[d]);
    }
    *rank = r;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Cart_coords)
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char fn[] = "MPI_Cart_coords";
    EMPI_TOPO_ENTER(fn, comm, MPI_CART, c, t);
    if (rank < 0 || rank >= c->size)
        return empi_err_comm(c, MPI_ERR_RANK, "%s: rank %d is not in the grid (size %d)", fn, rank, c->size);
    EMPI_CHECK(check_maxdims(c, t, fn, maxdims));
    if (t->ndims > 0 && !coords)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: coords is NULL", fn);
    empi_cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Cart_shift)
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char fn[] = "MPI_Cart_shift";
    EMPI_TOPO_ENTER(fn, comm, MPI_CART, c, t);
    if (direction < 0 || direction >= t->ndims)
        return empi_err_comm(c, MPI_ERR_DIMS, "%s: direction %d is not a dimension of the %d-dimensional grid", fn,
                             direction, t->ndims);
    if (!rank_source || !rank_dest)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: %s is NULL", fn, rank_source ? "rank_dest" : "rank_source");
    empi_cart_shift_of(t, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}
