/*
 * Allgather, Bruck: blocks are kept packed in a scratch buffer in order rank, rank+1, ...; in
 * step k (k = 1, 2, 4, ...) a rank sends its first min(k, p-k) blocks to rank-k and appends the
 * ones arriving from rank+k; a final rotation puts them in place. Any p.
 * Cost: ceil(log2 p) alpha + (p-1) n beta (+ a local copy). Best for small blocks.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_allgather_bruck)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count rc = a->rcount;
    empi_datatype_t *dt = a->rdt;
    MPI_Count nb = rc * dt->size;
    char *pk = empi_sched_tmp(s, (size_t)(nb * p));
    if (!pk)
        return MPI_ERR_NO_MEM;
    if (a->in_place)
        EMPI_TRY(empi_sched_copy(s, empi_coll_off(a->rbuf, rank * rc, dt), rc, dt, pk, nb, empi_byte_type));
    else
        EMPI_TRY(empi_sched_copy(s, a->sbuf, a->scount, a->sdt, pk, nb, empi_byte_type));
    EMPI_TRY(empi_sched_fence(s));
    for (int k = 1; k < p; k <<= 1) {
        int cnt = k < p - k ? k : p - k;
        EMPI_TRY(empi_sched_recv(s, pk + nb * k, nb * cnt, empi_byte_type, (rank + k) % p));
        EMPI_TRY(empi_sched_send(s, pk, nb * cnt, empi_byte_type, (rank - k + p) % p));
        EMPI_TRY(empi_sched_fence(s));
    }
    for (int j = 0; j < p; j++) {
        int owner = (rank + j) % p;
        if (j == 0 && a->in_place)
            continue;
        EMPI_TRY(empi_sched_copy(s, pk + nb * j, nb, empi_byte_type, empi_coll_off(a->rbuf, owner * rc, dt), rc, dt));
    }
    return empi_sched_fence(s);
}
