/*
 * Scatter, linear: the root posts a send of every rank's block at once; the others receive.
 * Cost: (p-1) (alpha + n beta) at the root.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_scatter_linear)
{
    int p = s->comm->size, rank = s->comm->rank, root = a->root;
    if (rank != root) {
        EMPI_TRY(empi_sched_recv(s, a->rbuf, a->rcount, a->rdt, root));
        return empi_sched_fence(s);
    }
    for (int i = 0; i < p; i++) {
        const char *slot = empi_coll_off(a->sbuf, (MPI_Count)i * a->scount, a->sdt);
        if (i != root)
            EMPI_TRY(empi_sched_send(s, slot, a->scount, a->sdt, i));
        else if (!a->in_place)
            EMPI_TRY(empi_sched_copy(s, slot, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt));
    }
    return empi_sched_fence(s);
}
