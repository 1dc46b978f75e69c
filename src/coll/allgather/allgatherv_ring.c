/*
 * Allgatherv, ring: as the allgather ring, each block at its own count and displacement.
 * Cost: (p-1) alpha + (total - own) beta.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_allgatherv_ring)
{
    int p = s->comm->size, rank = s->comm->rank;
    empi_datatype_t *dt = a->rdt;
    if (!a->in_place)
        EMPI_TRY(empi_sched_copy(s, a->sbuf, a->scount, a->sdt, empi_coll_off(a->rbuf, a->rdispls[rank], dt),
                                 a->rcounts[rank], dt));
    EMPI_TRY(empi_sched_fence(s));
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int k = 0; k < p - 1; k++) {
        int sb = (rank - k + p) % p, rb = (rank - k - 1 + p) % p;
        EMPI_TRY(empi_sched_recv(s, empi_coll_off(a->rbuf, a->rdispls[rb], dt), a->rcounts[rb], dt, left));
        EMPI_TRY(empi_sched_send(s, empi_coll_off(a->rbuf, a->rdispls[sb], dt), a->rcounts[sb], dt, right));
        EMPI_TRY(empi_sched_fence(s));
    }
    return MPI_SUCCESS;
}
