/*
 * Alltoall, linear: every send and receive posted at once, the transport sorts them out.
 * Cost: (p-1) alpha + (p-1) n beta, with all messages in flight together.
 */
#include "coll/alltoall/alltoall_common.h"

EMPI_ALG(empi_alltoall_linear)
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
    for (int k = 1; k < p; k++) {
        int src = (rank - k + p) % p;
        EMPI_TRY(empi_sched_recv(s, empi_coll_off(a->rbuf, src * a->rcount, a->rdt), a->rcount, a->rdt, src));
    }
    for (int k = 1; k < p; k++) {
        int dst = (rank + k) % p;
        EMPI_TRY(empi_sched_send(s, empi_coll_off(sbuf, dst * sc, sdt), sc, sdt, dst));
    }
    EMPI_TRY(empi_sched_copy(s, empi_coll_off(sbuf, rank * sc, sdt), sc, sdt,
                             empi_coll_off(a->rbuf, rank * a->rcount, a->rdt), a->rcount, a->rdt));
    return empi_sched_fence(s);
}
