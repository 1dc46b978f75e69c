/*
 * Scan, linear chain: rank r waits for the prefix of ranks 0..r-1 from r-1, combines its own
 * data on the right and passes the result to r+1. Any op.
 * Cost: (p-1) (alpha + n beta + n gamma) end to end; one message per rank.
 * Blocking calls on a few contiguous bytes skip the schedule (empi_scan_linear_fast): at two
 * ranks the call is one eager send, and building a schedule cost as much as sending it.
 */
#include "coll/coll_algs.h"

int empi_scan_linear_fast(const empi_coll_args_t *a, int *rc)
{
    empi_comm_t *c = a->comm;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    int tag = a->tag;
    if (!empi_coll_fast_chain(a))
        return 0;
    *rc = MPI_SUCCESS;
    if (n == 0)
        return 1;
    if (!a->in_place)
        empi_coll_copy(a->sbuf, n, dt, a->rbuf, n, dt);
    if (c->rank > 0) {
        _Alignas(16) char prefix[EMPI_COLL_FAST_CHAIN_BYTES];
        char *tmp = prefix - dt->true_lb;
        *rc = empi_recv(tmp, n, dt, c->rank - 1, tag, c, EMPI_COLL_CONTEXT(c), MPI_STATUS_IGNORE);
        if (*rc == MPI_SUCCESS)
            *rc = empi_op_apply(a->op, tmp, a->rbuf, n, dt);
    }
    /* passed on even after an error here, as the schedule does, so the ranks after us finish */
    if (c->rank < c->size - 1) {
        int sent = empi_send(a->rbuf, n, dt, c->rank + 1, tag, c, EMPI_COLL_CONTEXT(c));
        if (*rc == MPI_SUCCESS)
            *rc = sent;
    }
    return 1;
}

EMPI_ALG(empi_scan_linear)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (n == 0)
        return MPI_SUCCESS;
    if (rank > 0 && !a->in_place && a->op->commutative) {
        /* the prefix lands in rbuf and our input folds into it: no scratch buffer, no copy */
        EMPI_TRY(empi_sched_recv(s, a->rbuf, n, dt, rank - 1));
        EMPI_TRY(empi_sched_fence(s));
        EMPI_TRY(empi_sched_reduce(s, a->sbuf, a->rbuf, n, dt, a->op));
    } else if (!a->in_place) {
        EMPI_TRY(empi_sched_copy(s, a->sbuf, n, dt, a->rbuf, n, dt));
    }
    if (rank > 0 && (a->in_place || !a->op->commutative)) {
        char *tmp = empi_sched_tmp_dt(s, n, dt);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        EMPI_TRY(empi_sched_recv(s, tmp, n, dt, rank - 1));
        EMPI_TRY(empi_sched_fence(s));
        EMPI_TRY(empi_sched_reduce(s, tmp, a->rbuf, n, dt, a->op));
    }
    if (rank < p - 1)
        EMPI_TRY(empi_sched_send(s, a->rbuf, n, dt, rank + 1));
    return empi_sched_fence(s);
}
