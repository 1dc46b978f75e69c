/*
 * Allreduce, Rabenseifner: reduce-scatter by recursive halving (each round exchanges half of the
 * remaining range with rank ^ 2^k and reduces the half it keeps), then allgather by recursive
 * doubling in the opposite order. Non-powers of two fold the first 2r ranks first as in recursive
 * doubling. Commutative ops only. Best for large messages.
 * Cost: 2 log2 p alpha + 2 (p-1)/p n beta + (p-1)/p n gamma.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_allreduce_rabenseifner)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (n == 0)
        return MPI_SUCCESS;
    if (!a->in_place)
        EMPI_TRY(empi_sched_copy(s, a->sbuf, n, dt, a->rbuf, n, dt));
    if (p == 1)
        return empi_sched_fence(s);
    EMPI_TRY(empi_sched_fence(s));
    int p2 = empi_coll_pow2_floor(p), rem = p - p2, newrank;
    char *buf = a->rbuf, *tmp = empi_sched_tmp_dt(s, n, dt);
    if (!tmp)
        return MPI_ERR_NO_MEM;
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
        /* block b of p2 covers elements [disp(b), disp(b+1)) */
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
        for (int mask = 1; mask < p2; mask <<= 1) {
            int nd = newrank ^ mask, dst = nd < rem ? nd * 2 + 1 : nd + rem;
            int olo = (newrank & mask) ? lo - mask : hi, ohi = olo + mask;
            EMPI_TRY(empi_sched_recv(s, empi_coll_off(buf, disp[olo], dt), disp[ohi] - disp[olo], dt, dst));
            EMPI_TRY(empi_sched_send(s, empi_coll_off(buf, disp[lo], dt), disp[hi] - disp[lo], dt, dst));
            EMPI_TRY(empi_sched_fence(s));
            lo = lo < olo ? lo : olo;
            hi = hi > ohi ? hi : ohi;
        }
    }
    if (rank < 2 * rem) {
        if (rank % 2)
            EMPI_TRY(empi_sched_send(s, buf, n, dt, rank - 1));
        else
            EMPI_TRY(empi_sched_recv(s, buf, n, dt, rank + 1));
        EMPI_TRY(empi_sched_fence(s));
    }
    return MPI_SUCCESS;
}
