/*
 * Allreduce, ring: the vector is cut into p chunks; p-1 steps of ring reduce-scatter (send chunk
 * rank-k to the right, reduce chunk rank-k-1 arriving from the left) leave chunk rank+1 complete,
 * then p-1 steps of ring allgather circulate the complete chunks. Commutative ops only.
 * Not in place, the input is never copied to the output as a whole: every chunk of the output is
 * either received and folded with the input's chunk where it lands, or received complete, so the
 * first send goes straight from the input and no chunk-sized scratch buffer is needed.
 * Cost: 2 (p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma. Bandwidth-optimal; many steps.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_allreduce_ring)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count n = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (n == 0)
        return MPI_SUCCESS;
    if (p == 1)
        return a->in_place ? MPI_SUCCESS : empi_sched_copy(s, a->sbuf, n, dt, a->rbuf, n, dt);
    MPI_Count *disp = empi_sched_tmp(s, (size_t)(p + 1) * sizeof *disp);
    if (!disp)
        return MPI_ERR_NO_MEM;
    for (int b = 0; b <= p; b++)
        disp[b] = n / p * b + (b < n % p ? b : n % p);
    char *buf = a->rbuf, *tmp = NULL;
    if (a->in_place && !(tmp = empi_sched_tmp_dt(s, disp[1] - disp[0], dt)))
        return MPI_ERR_NO_MEM;
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int k = 0; k < p - 1; k++) {
        int sb = (rank - k + p) % p, rb = (rank - k - 1 + p) % p;
        MPI_Count rn = disp[rb + 1] - disp[rb];
        char *into = empi_coll_off(buf, disp[rb], dt);
        const char *from = k == 0 && !a->in_place ? a->sbuf : buf;
        EMPI_TRY(empi_sched_recv(s, tmp ? tmp : into, rn, dt, left));
        EMPI_TRY(empi_sched_send(s, empi_coll_off(from, disp[sb], dt), disp[sb + 1] - disp[sb], dt, right));
        EMPI_TRY(empi_sched_fence(s));
        EMPI_TRY(empi_sched_reduce(s, tmp ? tmp : empi_coll_off(a->sbuf, disp[rb], dt), into, rn, dt, a->op));
    }
    EMPI_TRY(empi_sched_fence(s));
    for (int k = 0; k < p - 1; k++) {
        int sb = (rank + 1 - k + p) % p, rb = (rank - k + p) % p;
        EMPI_TRY(empi_sched_recv(s, empi_coll_off(buf, disp[rb], dt), disp[rb + 1] - disp[rb], dt, left));
        EMPI_TRY(empi_sched_send(s, empi_coll_off(buf, disp[sb], dt), disp[sb + 1] - disp[sb], dt, right));
        EMPI_TRY(empi_sched_fence(s));
    }
    return MPI_SUCCESS;
}
