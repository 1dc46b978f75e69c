/*
 * Bcast, node-aware hierarchy: the root hands the message to its node's leader (if it is not the
 * leader), the leaders broadcast among themselves, every node broadcasts from its leader (shared
 * memory). Blocking calls; otherwise binomial.
 * Cost: (alpha + n beta) + bcast over the nodes + shared-memory step.
 */
#include "coll/hier/coll_hier.h"

int empi_bcast_hier_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_hier *h;
    if (!empi_hier_ready(a, &h))
        return 0;
    int me = a->comm->rank, root = a->root, rnode = h->node_of[root], rlead = h->leader_of_node[rnode];
    uint32_t ctx = EMPI_COLL_CONTEXT(a->comm);
    int tag = a->tag;
    *rc = MPI_SUCCESS;
    if (rlead != root) {
        if (me == root)
            *rc = empi_send(a->rbuf, a->rcount, a->rdt, rlead, tag, a->comm, ctx);
        else if (me == rlead)
            *rc = empi_recv(a->rbuf, a->rcount, a->rdt, root, tag, a->comm, ctx, MPI_STATUS_IGNORE);
    }
    if (*rc == MPI_SUCCESS && h->leaders) {
        empi_coll_args_t l = *a;
        l.comm = h->leaders;
        l.root = rnode;
        *rc = empi_coll_run_blocking(&l);
    }
    if (*rc == MPI_SUCCESS) {
        empi_coll_args_t b = *a;
        b.comm = h->node;
        b.root = 0;
        *rc = empi_coll_run_blocking(&b);
    }
    return 1;
}

/* Schedule form (nonblocking calls, or when the hierarchy does not apply): the flat algorithm. */
EMPI_ALG(empi_bcast_hier) { return empi_bcast_binomial(s, a); }
