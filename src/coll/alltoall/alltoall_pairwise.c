/*
 * Alltoall, pairwise exchange: in step k = 1..p-1 a rank sends its block for rank+k and receives
 * the block from rank-k, one exchange in flight. Any p; for medium and large blocks.
 * Cost: (p-1) (alpha + n beta).
 */
#include "coll/alltoall/alltoall_common.h"

EMPI_ALG(empi_alltoall_pairwise)
{
    int p = s->comm->size, rank = s->comm->rank;
    const char *sbuf = a->sbuf;
    MPI_Count sc = a->scount;
    empi_datatype_t *sdt = a->sdt;
    if (a->in_place) {
        empi_a2a_packed_t pk;
        EMPI_TRY(empi_a2a_pack(s, a, 0, &pk));
        sbuf = pk.buf;
        sc = a->rcount * a->rdt->size;
        sdt = empi_byte_type;
    }
    EMPI_TRY(empi_sched_copy(s, empi_coll_off(sbuf, rank * sc, sdt), sc, sdt,
                             empi_coll_off(a->rbuf, rank * a->rcount, a->rdt), a->rcount, a->rdt));
    EMPI_TRY(empi_sched_fence(s));
    for (int k = 1; k < p; k++) {
        int dst = (rank + k) % p, src = (rank - k + p) % p;
        EMPI_TRY(empi_sched_recv(s, empi_coll_off(a->rbuf, src * a->rcount, a->rdt), a->rcount, a->rdt, src));
        EMPI_TRY(empi_sched_send(s, empi_coll_off(sbuf, dst * sc, sdt), sc, sdt, dst));
        EMPI_TRY(empi_sched_fence(s));
    }
    return MPI_SUCCESS;
}
