/*
 * Exscan, linear chain: rank r receives the prefix of ranks 0..r-1 from r-1 (its result, straight
 * into the receive buffer), adds its own data on the right and passes that on to r+1. Any op.
 * Cost: (p-1) (alpha + n beta + n gamma) end to end.
 * Blocking calls on a few contiguous bytes skip the schedule, as scan's chain does.
 */
#include "coll/coll_algs.h"

int empi_exscan_linear_fast(const empi_coll_args_t *a, int *rc)
{
    empi_comm_t *c = a->comm;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    int tag = a->tag;
    if (!empi_coll_fast_chain(a))
        return 0;
    *rc = MPI_SUCCESS;
    if (n == 0 || c->size == 1)
        return 1;
    const void *in = a->in_place ? a->rbuf : a->sbuf;
    if (c->rank == 0) {
        *rc = empi_send(in, n, dt, 1, tag, c, EMPI_COLL_CONTEXT(c));
        return 1;
    }
    /* as the schedule: our input is set aside before our result lands in rbuf (in place, rbuf
       holds that input), and what we pass on is built in the copy */
    int last = c->rank == c->size - 1;
    _Alignas(16) char next[EMPI_COLL_FAST_CHAIN_BYTES];
    char *mine = next - dt->true_lb;
    if (!last)
        empi_coll_copy(in, n, dt, mine, n, dt);
    *rc = empi_recv(a->rbuf, n, dt, c->rank - 1, tag, c, EMPI_COLL_CONTEXT(c), MPI_STATUS_IGNORE);
    /* passed on even after an error here, as the schedule does, so the ranks after us finish */
    if (!last) {
        if (*rc == MPI_SUCCESS)
            *rc = empi_op_apply(a->op, a->rbuf, mine, n, dt);
        int sent = empi_send(mine, n, dt, c->rank + 1, tag, c, EMPI_COLL_CONTEXT(c));
        if (*rc == MPI_SUCCESS)
            *rc = sent;
    }
    return 1;
}

EMPI_ALG(empi_exscan_linear)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (n == 0 || p == 1)
        return MPI_SUCCESS;
    const void *in = a->in_place ? a->rbuf : a->sbuf;
    if (rank == 0) {
        EMPI_TRY(empi_sched_send(s, in, n, dt, 1));
        return empi_sched_fence(s);
    }
    /* Our result is exactly what rank - 1 sends, so it lands in rbuf; what we pass on is built
       in one scratch buffer, our input copied there first (in place, rbuf holds it until the
       receive, which the copy precedes: a round's operations are issued in order). */
    char *next = NULL;
    if (rank < p - 1) {
        if (!(next = empi_sched_tmp_dt(s, n, dt)))
            return MPI_ERR_NO_MEM;
        EMPI_TRY(empi_sched_copy(s, in, n, dt, next, n, dt));
    }
    EMPI_TRY(empi_sched_recv(s, a->rbuf, n, dt, rank - 1));
    EMPI_TRY(empi_sched_fence(s));
    if (next) {
        EMPI_TRY(empi_sched_reduce(s, a->rbuf, next, n, dt, a->op));
        EMPI_TRY(empi_sched_send(s, next, n, dt, rank + 1));
    }
    return empi_sched_fence(s);
}
