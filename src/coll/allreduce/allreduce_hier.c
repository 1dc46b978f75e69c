/*
 * Allreduce, node-aware hierarchy (several hosts): reduce to each node's leader (shared memory),
 * allreduce among the leaders (the flat algorithm the table picks for one rank per node), bcast
 * on each node (shared memory). Blocking calls with a commutative op; otherwise, and for the
 * nonblocking forms, recursive doubling.
 * Cost: 2 shared-memory steps + allreduce over the nodes (log2 N alpha + ... for N nodes).
 */
#include <stdlib.h>

#include "coll/hier/coll_hier.h"

int empi_allreduce_hier_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_hier *h;
    if (!empi_hier_ready(a, &h))
        return 0;
    empi_coll_args_t r = *a;
    r.coll = EMPI_COLL_REDUCE;
    r.comm = h->node;
    r.root = 0;
    if (h->node->rank != 0 && a->in_place) {
        r.in_place = 0;     /* in place is for the root only: the data in rbuf is the send buffer */
        r.sbuf = a->rbuf;
    }
    *rc = empi_coll_run_blocking(&r);
    if (*rc == MPI_SUCCESS && h->leaders) {
        empi_coll_args_t l = *a;
        l.comm = h->leaders;
        l.in_place = 1;
        l.sbuf = NULL;
        *rc = empi_coll_run_blocking(&l);
    }
    if (*rc == MPI_SUCCESS) {
        empi_coll_args_t b = {.coll = EMPI_COLL_BCAST, .comm = h->node, .root = 0, .rbuf = a->rbuf,
                              .rcount = a->rcount, .rdt = a->rdt};
        *rc = empi_coll_run_blocking(&b);
    }
    return 1;
}

/* Schedule form (nonblocking calls, or when the hierarchy does not apply): the flat algorithm. */
EMPI_ALG(empi_allreduce_hier) { return empi_allreduce_recursive_doubling(s, a); }
