/*
 * Gatherv, linear: the root receives every rank's block at its displacement, all posted at once.
 * Cost: (p-1) alpha + (sum of blocks) beta at the root.
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_gatherv_linear)
{
    int p = s->comm->size, rank = s->comm->rank, root = a->root;
    if (rank != root) {
        EMPI_TRY(empi_sched_send(s, a->sbuf, a->scount, a->sdt, root));
        return empi_sched_fence(s);
    }
    for (int i = 0; i < p; i++) {
        char *slot = empi_coll_off(a->rbuf, a->rdispls[i], a->rdt);
        if (i != root)
            EMPI_TRY(empi_sched_recv(s, slot, a->rcounts[i], a->rdt, i));
        else if (!a->in_place)
            EMPI_TRY(empi_sched_copy(s, a->sbuf, a->scount, a->sdt, slot, a->rcounts[i], a->rdt));
    }
    return empi_sched_fence(s);
}
