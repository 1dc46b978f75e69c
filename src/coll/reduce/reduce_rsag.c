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
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            EMPI_TRY(empi_sched_send(s, buf, n, dt, rank + 1));
            newrank = -1;
        } else {
            EMPI_TRY(empi_sched_recv(s, tmp, n, dt, rank - 1));
            EMPI_TRY(empi_sched_fence(s));
            EMPI_TRY(empi_sched_reduce(s, tmp, buf, n, dt, a->op));
            newrank = rank / 2;
        }
        EMPI_TRY(empi_sched_fence(s));
    } else {
        newrank = rank - rem;
    }
    if (newrank >= 0) {
        MPI_Count *disp = empi_sched_tmp(s, (size_t)(p2 + 1) * sizeof *disp);
        if (!disp)
            return MPI_ERR_NO_MEM;
        for (int b = 0; b <= p2; b++)
            disp[b] = n / p2 * b + (b < n % p2 ? b : n % p2);
        int lo = 0, hi = p2;
        for (int mask = p2 >> 1; mask > 0; mask >>= 1) {
            int nd = newrank ^ mask, dst = nd < rem ? nd * 2 + 1 : nd + rem, mid = (lo + hi) / 2;
            int klo = (newrank & mask) ? mid : lo, khi = (newrank & mask) ? hi : mid;
            int slo = (newrank & mask) ? lo : mid, shi = (newrank & mask) ? mid : hi;
            EMPI_TRY(empi_sched_recv(s, empi_coll_off(tmp, disp[klo], dt), disp[khi] - disp[klo], dt, dst));
            EMPI_TRY(empi_sched_send(s, empi_coll_off(buf, disp[slo], dt), disp[shi] - disp[slo], dt, dst));
            EMPI_TRY(empi_sched_fence(s));
            EMPI_TRY(empi_sched_reduce(s, empi_coll_off(tmp, disp[klo], dt), empi_coll_off(buf, disp[klo], dt),
                                       disp[khi] - disp[klo], dt, a->op));
            lo = klo;
            hi = khi;
        }
        EMPI_TRY(empi_sched_fence(s));
        /* binomial gather of the blocks to newrank 0 */
        for (int mask = 1; mask < p2; mask <<= 1) {
            int nd = newrank ^ mask, dst = nd < rem ? nd * 2 + 1 : nd + rem;
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
