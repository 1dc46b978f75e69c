/*
 * Barrier, node-aware hierarchy: node barrier (shared-memory flags), barrier among the leaders,
 * node barrier. Blocking calls; otherwise dissemination.
 * Cost: 2 shared-memory flag rounds + ceil(log2 N) alpha over N nodes.
 */
#include "coll/hier/coll_hier.h"

int empi_barrier_hier_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_hier *h;
    if (!empi_hier_ready(a, &h))
        return 0;
    empi_coll_args_t b = {.coll = EMPI_COLL_BARRIER, .comm = h->node};
    *rc = empi_coll_run_blocking(&b);
    if (*rc == MPI_SUCCESS && h->leaders) {
        empi_coll_args_t l = {.coll = EMPI_COLL_BARRIER, .comm = h->leaders};
        *rc = empi_coll_run_blocking(&l);
    }
    if (*rc == MPI_SUCCESS)
        *rc = empi_coll_run_blocking(&b);
    return 1;
}

/* Schedule form (nonblocking calls, or when the hierarchy does not apply): the flat algorithm. */
EMPI_ALG(empi_barrier_hier) { return empi_barrier_dissemination(s, a); }
