/*
 * Allgather, ring: in step k every rank sends block rank-k to the right and receives block
 * rank-k-1 from the left, straight into the receive buffer. Any p, any datatype.
 * Cost: (p-1) alpha + (p-1) n beta. Bandwidth-optimal for large blocks.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_allgather_ring)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count rc = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (!a->in_place)
        EMPI_TRY(empi_sched_copy(s, a->sbuf, a->scount, a->sdt, empi_coll_off(a->rbuf, rank * rc, dt), rc, dt));
    EMPI_TRY(empi_sched_fence(s));
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int k = 0; k < p - 1; k++) {
        int sb = (rank - k + p) % p, rb = (rank - k - 1 + p) % p;
        EMPI_TRY(empi_sched_recv(s, empi_coll_off(a->rbuf, rb * rc, dt), rc, dt, left));
        EMPI_TRY(empi_sched_send(s, empi_coll_off(a->rbuf, sb * rc, dt), rc, dt, right));
        EMPI_TRY(empi_sched_fence(s));
    }
    return MPI_SUCCESS;
}
