/*
 * Alltoallv, pairwise exchange: step k sends to rank+k and receives from rank-k.
 * Cost: (p-1) alpha + (sum of own blocks) beta.
 */
#include "coll/alltoall/alltoall_common.h"

EMPI_ALG(empi_alltoallv_pairwise)
{
    int p = s->comm->size, rank = s->comm->rank;
    const char *sbuf = a->sbuf;
    const MPI_Count *sc = a->scounts;
    const MPI_Aint *sd = a->sdispls;
    empi_datatype_t *sdt = a->sdt;
    if (a->in_place)
        EMPI_TRY(empi_a2av_in_place(s, a, &sbuf, &sc, &sd, &sdt));
    EMPI_TRY(empi_sched_copy(s, empi_coll_off(sbuf, sd[rank], sdt), sc[rank], sdt,
                             empi_coll_off(a->rbuf, a->rdispls[rank], a->rdt), a->rcounts[rank], a->rdt));
    EMPI_TRY(empi_sched_fence(s));
    for (int k = 1; k < p; k++) {
        int dst = (rank + k) % p, src = (rank - k + p) % p;
        EMPI_TRY(empi_sched_recv(s, empi_coll_off(a->rbuf, a->rdispls[src], a->rdt), a->rcounts[src], a->rdt, src));
        EMPI_TRY(empi_sched_send(s, empi_coll_off(sbuf, sd[dst], sdt), sc[dst], sdt, dst));
        EMPI_TRY(empi_sched_fence(s));
    }
    return MPI_SUCCESS;
}
