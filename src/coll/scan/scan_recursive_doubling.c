/*
 * Scan, recursive doubling: every rank keeps a partial over a block of ranks; in round k it
 * exchanges the partial with rank ^ 2^k; data from the lower rank is combined on the left, and
 * a lower partner's data also enters the result. Any op, any p.
 * Cost: ceil(log2 p) (alpha + n beta + 2 n gamma).
 */
#include "coll/coll_algs.h"

int empi_scan_rd_build(empi_sched_t *s, const empi_coll_args_t *a, int exclusive);

int empi_scan_rd_build(empi_sched_t *s, const empi_coll_args_t *a, int exclusive)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (n == 0)
        return MPI_SUCCESS;
    const void *in = a->in_place ? a->rbuf : a->sbuf;
    char *partial = empi_sched_tmp_dt(s, n, dt), *other = empi_sched_tmp_dt(s, n, dt);
    if (!partial || !other)
        return MPI_ERR_NO_MEM;
    EMPI_TRY(empi_sched_copy(s, in, n, dt, partial, n, dt));
    if (!exclusive && !a->in_place)
        EMPI_TRY(empi_sched_copy(s, in, n, dt, a->rbuf, n, dt));
    EMPI_TRY(empi_sched_fence(s));
    int have = !exclusive;
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= p)
            continue;
        EMPI_TRY(empi_sched_recv(s, other, n, dt, peer));
        EMPI_TRY(empi_sched_send(s, partial, n, dt, peer));
        EMPI_TRY(empi_sched_fence(s));
        if (peer < rank) {
            if (have) {
                EMPI_TRY(empi_sched_reduce(s, other, a->rbuf, n, dt, a->op));
            } else {
                EMPI_TRY(empi_sched_copy(s, other, n, dt, a->rbuf, n, dt));
                have = 1;
            }
            EMPI_TRY(empi_sched_reduce(s, other, partial, n, dt, a->op));
        } else {
            EMPI_TRY(empi_sched_reduce(s, partial, other, n, dt, a->op));
            char *t = partial;
            partial = other;
            other = t;
        }
    }
    return empi_sched_fence(s);
}

EMPI_ALG(empi_scan_recursive_doubling)
{
    return empi_scan_rd_build(s, a, 0);
}
