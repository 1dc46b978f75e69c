/*
 * Reduce, node-aware hierarchy: reduce to each node's leader (shared memory), reduce among the
 * leaders to the root's leader, which forwards to the root if it is not the root itself.
 * Blocking calls with a commutative op; otherwise binomial.
 * Cost: shared-memory step + reduce over the nodes (+ alpha + n beta to forward).
 */
#include <stdlib.h>

#include "coll/hier/coll_hier.h"

int empi_reduce_hier_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_hier *h;
    if (!empi_hier_ready(a, &h))
        return 0;
    int me = a->comm->rank, root = a->root, rnode = h->node_of[root], rlead = h->leader_of_node[rnode];
    empi_datatype_t *dt = a->rdt;
    /* leaders need a buffer for the node result unless they are the root */
    void *buf = a->rbuf, *tmp = NULL;
    if (h->node->rank == 0 && me != root) {
        MPI_Aint lo, span = empi_dt_span(a->rcount, dt, &lo);
        tmp = malloc(span > 0 ? (size_t)span : 1);
        if (!tmp) {
            *rc = MPI_ERR_NO_MEM;
            return 1;
        }
        buf = (char *)tmp - lo;
    }
    empi_coll_args_t r = *a;
    r.comm = h->node;
    r.root = 0;
    r.rbuf = buf;
    if (a->in_place && h->node->rank != 0) {
        r.in_place = 0;     /* the root, not its node's leader: its data in rbuf is the send buffer */
        r.sbuf = a->rbuf;
    }
    *rc = empi_coll_run_blocking(&r);
    if (*rc == MPI_SUCCESS && h->leaders) {
        empi_coll_args_t l = *a;
        l.comm = h->leaders;
        l.root = rnode;
        l.in_place = h->leaders->rank == rnode;
        l.sbuf = l.in_place ? NULL : buf;
        l.rbuf = buf;
        *rc = empi_coll_run_blocking(&l);
    }
    if (*rc == MPI_SUCCESS && rlead != root) {
        uint32_t ctx = EMPI_COLL_CONTEXT(a->comm);
        if (me == rlead)
            *rc = empi_send(buf, a->rcount, dt, root, a->tag, a->comm, ctx);
        else if (me == root)
            *rc = empi_recv(a->rbuf, a->rcount, dt, rlead, a->tag, a->comm, ctx, MPI_STATUS_IGNORE);
    }
    free(tmp);
    return 1;
}

/* Schedule form (nonblocking calls, or when the hierarchy does not apply): the flat algorithm. */
EMPI_ALG(empi_reduce_hier) { return empi_reduce_binomial(s, a); }
