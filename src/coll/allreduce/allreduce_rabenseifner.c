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
    EMPI_TRY(empi_build_fold_to_pow2(s, buf, tmp, n, dt, a->op, &newrank));
    if (newrank >= 0) {
        MPI_Count *disp;
        int lo, hi;
        EMPI_TRY(empi_build_halving_reduce_scatter(s, buf, tmp, n, dt, a->op, newrank, rem, &disp, &lo, &hi));
        for (int mask = 1; mask < p2; mask <<= 1) {
            int dst = empi_coll_fold_peer(newrank ^ mask, rem);
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
