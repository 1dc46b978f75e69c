/*
 * Reduce, reduce-scatter + gather (Rabenseifner): recursive-halving reduce-scatter leaves every
 * rank of the power-of-two group with 1/p of the result, a binomial gather collects the pieces at
 * one rank, which hands the result to the root. Commutative ops only; for large messages.
 * Cost: 2 log2 p alpha + 2 (p-1)/p n beta + (p-1)/p n gamma (+ n beta to forward to the root).
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_reduce_rsag)
{
    int p = s->comm->size, rank = s->comm->rank, root = a->root;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (n == 0)
        return MPI_SUCCESS;
    const void *in = a->in_place ? a->rbuf : a->sbuf;
    char *buf = rank == root ? a->rbuf : empi_sched_tmp_dt(s, n, dt);
    char *tmp = empi_sched_tmp_dt(s, n, dt);
    if (!buf || !tmp)
        return MPI_ERR_NO_MEM;
    if (in != buf)
        EMPI_TRY(empi_sched_copy(s, in, n, dt, buf, n, dt));
    if (p == 1)
        return empi_sched_fence(s);
    EMPI_TRY(empi_sched_fence(s));
    int p2 = empi_coll_pow2_floor(p), rem = p - p2, newrank, holder = rem > 0 ? 1 : 0;
    EMPI_TRY(empi_build_fold_to_pow2(s, buf, tmp, n, dt, a->op, &newrank));
    if (newrank >= 0) {
        MPI_Count *disp;
        int lo, hi;
        EMPI_TRY(empi_build_halving_reduce_scatter(s, buf, tmp, n, dt, a->op, newrank, rem, &disp, &lo, &hi));
        /* binomial gather of the blocks to newrank 0 */
        for (int mask = 1; mask < p2; mask <<= 1) {
            int dst = empi_coll_fold_peer(newrank ^ mask, rem);
            if (newrank & mask) {
                EMPI_TRY(empi_sched_send(s, empi_coll_off(buf, disp[lo], dt), disp[hi] - disp[lo], dt, dst));
                EMPI_TRY(empi_sched_fence(s));
                break;
            }
            EMPI_TRY(empi_sched_recv(s, empi_coll_off(buf, disp[hi], dt), disp[hi + mask] - disp[hi], dt, dst));
            EMPI_TRY(empi_sched_fence(s));
            hi += mask;
        }
    }
    if (rank == holder && holder != root)
        EMPI_TRY(empi_sched_send(s, buf, n, dt, root));
    if (rank == root && holder != root)
        EMPI_TRY(empi_sched_recv(s, a->rbuf, n, dt, holder));
    return empi_sched_fence(s);
}
