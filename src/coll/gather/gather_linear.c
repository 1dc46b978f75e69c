/*
 * Gather, linear: the root posts a receive from every rank into its slot at once; the others send.
 * Cost: (p-1) (alpha + n beta) at the root, where n is one rank's block. Good for large blocks.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_gather_linear)
{
    int p = s->comm->size, rank = s->comm->rank, root = a->root;
    if (rank != root) {
        EMPI_TRY(empi_sched_send(s, a->sbuf, a->scount, a->sdt, root));
        return empi_sched_fence(s);
    }
    for (int i = 0; i < p; i++) {
        char *slot = empi_coll_off(a->rbuf, (MPI_Count)i * a->rcount, a->rdt);
        if (i != root)
            EMPI_TRY(empi_sched_recv(s, slot, a->rcount, a->rdt, i));
        else if (!a->in_place)
            EMPI_TRY(empi_sched_copy(s, a->sbuf, a->scount, a->sdt, slot, a->rcount, a->rdt));
    }
    return empi_sched_fence(s);
}
