/*
 * Process topologies (MPI-4.1 chapter 8, "Virtual Topologies for MPI Processes"): the Cartesian,
 * graph and distributed-graph structure a communicator may carry.
 *
 * A topology is one immutable malloc'd block: the empi_topo_t header followed by its int arrays.
 * The communicator layer counts references to it (comm/comm.h, empi_comm_topo_t), so duplicates
 * share it and the last release frees it with a single free(). Every kind also stores this
 * process's neighborhood in the order the neighborhood collectives use (src/coll/neighbor/), so
 * they read one pair of lists whatever the kind.
 */
#ifndef EMPI_TOPO_H
#define EMPI_TOPO_H

#include "comm/comm.h"

typedef struct empi_topo {
    empi_comm_topo_t hdr;
    /* Neighborhood: receive from in[0..nin), send to out[0..nout); MPI_PROC_NULL keeps its slot. */
    int nin, nout;
    int *in, *out;
    /* MPI_CART: dims, periods (0/1) and this process's coords, each of ndims entries */
    int ndims;
    int *dims, *periods, *coords;
    /* MPI_GRAPH: the whole graph as given to MPI_Graph_create */
    int nnodes, nedges;
    int *index, *edges;
    /* MPI_DIST_GRAPH: weights of in[] and out[] when weighted */
    int weighted;
    int *inw, *outw;
    int data[];
} empi_topo_t;

static inline empi_topo_t *empi_topo_get(const empi_comm_t *c)
{
    return (empi_topo_t *)c->topo;
}

/* A zeroed topology of `kind` with room for nints ints in data[]; NULL when out of memory. */
empi_topo_t *empi_topo_new(int kind, size_t nints);

/* The next n ints of t->data (builders carve their arrays in order; *used counts what is taken). */
static inline int *empi_topo_take(empi_topo_t *t, size_t *used, size_t n)
{
    int *p = t->data + *used;
    *used += n;
    return p;
}

/*
 * The topology of comm when it is of `kind` (0: any kind); otherwise raises MPI_ERR_TOPOLOGY on
 * comm naming fn and returns that code.
 */
int empi_topo_check(empi_comm_t *c, int kind, const char *fn, empi_topo_t **out);

/* comm_old of a topology constructor: a valid intracommunicator (MPI 4.1 8.1: topologies cannot be
   added to intercommunicators), else the raised MPI_ERR_COMM. */
int empi_topo_comm_old(MPI_Comm h, const char *fn, empi_comm_t **out);

/* Start of a query call: c and t := comm and its topology of `kind`, or return the raised error. */
#define EMPI_TOPO_ENTER(fn, comm, kind, c, t)         \
    empi_comm_t *c;                                   \
    empi_topo_t *t;                                   \
    EMPI_CHECK(empi_comm_check(comm, fn, &c));        \
    EMPI_CHECK(empi_topo_check(c, kind, fn, &t))

/* Query output: copy min(max, n) ints of src to dst (max negative, or dst NULL when needed: raise
   MPI_ERR_ARG on c naming fn and the array `what`). */
int empi_topo_copy_out(empi_comm_t *c, const char *fn, const char *what, int *dst, int max, const int *src, int n);

/*
 * The end of every constructor, collective over all of parent: the communicator of parent ranks
 * ranks[0..n) (ranks NULL: the first n) carrying topology t (taken over) goes to *newcomm;
 * processes not listed get MPI_COMM_NULL and pass t = NULL. Several disjoint rank lists may be
 * built by one call (as MPI_Cart_sub does): they share one agreed context id. A listed process
 * whose t could not be allocated passes NULL: it still takes part, then reports out of memory.
 * Raises on parent on failure.
 */
int empi_topo_publish(empi_comm_t *parent, int n, const int *ranks, empi_topo_t *t, MPI_Comm *newcomm,
                      const char *fn);

/* Cartesian helpers (cart.c): rank of coords (periodic dims wrap; -1 if outside a fixed dim), and
   coords of rank, for the grid of t. */
int empi_cart_rank_of(const empi_topo_t *t, const int *coords);
void empi_cart_coords_of(const empi_topo_t *t, int rank, int *coords);
/* MPI_Cart_shift's answer for this process of t. */
void empi_cart_shift_of(const empi_topo_t *t, int d, int disp, int *source, int *dest);

/* A Cartesian topology of ndims dims for the process at `rank` of the grid (cart.c). */
empi_topo_t *empi_cart_new(int ndims, const int *dims, const int *periods, int rank);

#endif
