/*
 * Alltoallw, linear: per-peer datatypes, byte displacements, all messages posted at once.
 * Cost: (p-1) alpha + (sum of own blocks) beta.
 */
#include "coll/alltoall/alltoall_common.h"

EMPI_ALG(empi_alltoallw_linear)
{
    int p = s->comm->size, rank = s->comm->rank;
    const char *sbuf = a->sbuf;
    const MPI_Count *sc = a->scounts;
    const MPI_Aint *sd = a->sdispls;
    empi_datatype_t *const *sdt = a->sdts;
    if (a->in_place)
        EMPI_TRY(empi_a2aw_in_place(s, a, &sbuf, &sc, &sd, &sdt));
    char *rbuf = a->rbuf;
    for (int k = 1; k < p; k++) {
        int src = (rank - k + p) % p;
        EMPI_TRY(empi_sched_recv(s, rbuf + a->rdispls[src], a->rcounts[src], a->rdts[src], src));
    }
    for (int k = 1; k < p; k++) {
        int dst = (rank + k) % p;
        EMPI_TRY(empi_sched_send(s, sbuf + sd[dst], sc[dst], sdt[dst], dst));
    }
    EMPI_TRY(empi_sched_copy(s, sbuf + sd[rank], sc[rank], sdt[rank], rbuf + a->rdispls[rank], a->rcounts[rank],
                             a->rdts[rank]));
    return empi_sched_fence(s);
}
