/*
 * Alltoall, Bruck: blocks are packed and rotated so slot j holds the block for rank+j; in step k
 * (k = 1, 2, 4, ...) every slot whose index has bit k set goes to rank+k in one message (and the
 * same slots arrive from rank-k); at the end slot j holds the block from rank-j. Any p.
 * Cost: ceil(log2 p) alpha + (p/2) log2 p n beta. For small blocks on many ranks.
 */
#include "coll/alltoall/alltoall_common.h"

EMPI_ALG(empi_alltoall_bruck)
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
    MPI_Count nb = a->rcount * a->rdt->size;
    char *pk = empi_sched_tmp(s, (size_t)(nb * p));
    char *sendb = empi_sched_tmp(s, (size_t)(nb * ((p + 1) / 2)));
    char *recvb = empi_sched_tmp(s, (size_t)(nb * ((p + 1) / 2)));
    if (!pk || !sendb || !recvb)
        return MPI_ERR_NO_MEM;
    for (int j = 0; j < p; j++)
        EMPI_TRY(empi_sched_copy(s, empi_coll_off(sbuf, (MPI_Count)((rank + j) % p) * sc, sdt), sc, sdt, pk + nb * j,
                                 nb, empi_byte_type));
    EMPI_TRY(empi_sched_fence(s));
    for (int k = 1; k < p; k <<= 1) {
        int cnt = 0;
        for (int j = 0; j < p; j++)
            if (j & k)
                EMPI_TRY(empi_sched_copy(s, pk + nb * j, nb, empi_byte_type, sendb + nb * cnt++, nb, empi_byte_type));
        EMPI_TRY(empi_sched_recv(s, recvb, nb * cnt, empi_byte_type, (rank - k + p) % p));
        EMPI_TRY(empi_sched_send(s, sendb, nb * cnt, empi_byte_type, (rank + k) % p));
        EMPI_TRY(empi_sched_fence(s));
        cnt = 0;
        for (int j = 0; j < p; j++)
            if (j & k)
                EMPI_TRY(empi_sched_copy(s, recvb + nb * cnt++, nb, empi_byte_type, pk + nb * j, nb, empi_byte_type));
    }
    for (int j = 0; j < p; j++)
        EMPI_TRY(empi_sched_copy(s, pk + nb * j, nb, empi_byte_type,
                                 empi_coll_off(a->rbuf, (MPI_Count)((rank - j + p) % p) * a->rcount, a->rdt), a->rcount,
                                 a->rdt));
    return empi_sched_fence(s);
}
