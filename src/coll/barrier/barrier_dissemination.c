/*
 * Barrier, dissemination (Hensgen, Finkel, Manber): in round k every rank sends a zero-byte
 * message to rank + 2^k and waits for one from rank - 2^k. Any p.
 * Cost: ceil(log2 p) * alpha.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_barrier_dissemination)
{
    int p = s->comm->size, rank = s->comm->rank, rc = MPI_SUCCESS;
    (void)a;
    for (int k = 1; k < p && rc == MPI_SUCCESS; k <<= 1) {
        rc = empi_sched_recv(s, NULL, 0, empi_byte_type, (rank - k + p) % p);
        if (rc == MPI_SUCCESS)
            rc = empi_sched_send(s, NULL, 0, empi_byte_type, (rank + k) % p);
        if (rc == MPI_SUCCESS)
            rc = empi_sched_fence(s);
    }
    return rc;
}
