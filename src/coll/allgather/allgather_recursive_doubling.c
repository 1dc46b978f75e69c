/*
 * Allgather, recursive doubling: in round k every rank exchanges the 2^k blocks it has with
 * rank ^ 2^k. Power-of-two sizes only.
 * Cost: log2 p alpha + (p-1) n beta.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_allgather_recursive_doubling)
{
    int p = s->comm->size, rank = s->comm->rank;
    MPI_Count rc = a->rcount;
    empi_datatype_t *dt = a->rdt;
    if (!a->in_place)
        EMPI_TRY(empi_sched_copy(s, a->sbuf, a->scount, a->sdt, empi_coll_off(a->rbuf, rank * rc, dt), rc, dt));
    EMPI_TRY(empi_sched_fence(s));
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = rank ^ mask, mine = rank & ~(mask - 1), theirs = peer & ~(mask - 1);
        EMPI_TRY(empi_sched_recv(s, empi_coll_off(a->rbuf, theirs * rc, dt), mask * rc, dt, peer));
        EMPI_TRY(empi_sched_send(s, empi_coll_off(a->rbuf, mine * rc, dt), mask * rc, dt, peer));
        EMPI_TRY(empi_sched_fence(s));
    }
    return MPI_SUCCESS;
}
