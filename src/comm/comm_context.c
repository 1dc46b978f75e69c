/*
 * Context ids: every member of a new communicator must use the same id, and no process may use one
 * id for two live communicators. Ids are never reused, so "unused here" means "never handed out by
 * this process", which a single atomic counter `next_context` tracks: everything below it is taken.
 *
 * Agreement, repeated until it succeeds:
 *   1. each participant takes a fresh proposal P = fetch_add(next, 2), which nothing else here
 *      can take;
 *   2. R = max of the proposals over the participants;
 *   3. each claims [R, R + width): it is ours if R == P, or if its ids above our own block
 *      [P, P + width) are at or above next (nobody here has them) and we can move next past
 *      R + width before another thread hands them out (R may start inside our block when the
 *      participants' counters differ by less than a width: without counting our block as ours
 *      that claim failed on every retry, the gap never closing);
 *   4. AND of the claims: all succeeded -> R is the id; else retry (R is abandoned everywhere).
 * Concurrent creations on other parents (other threads) only ever move `next` up, so they cannot
 * both claim one R in a process: the second sees next > R. Each retry proposes above every
 * failed R's owner's counter, so the maximum climbs and the loop ends.
 */
#include <stdatomic.h>

#include "comm/intercomm.h"

/* 0 and 2 are MPI_COMM_WORLD and MPI_COMM_SELF (their collective contexts are 1 and 3). */
static _Atomic uint32_t next_context = 4;

uint32_t empi_comm_context_propose(uint32_t width)
{
    return atomic_fetch_add(&next_context, width);
}

int empi_comm_context_claim(uint32_t proposal, uint32_t agreed, uint32_t width)
{
    if (agreed == proposal)
        return 1;
    uint32_t first_foreign = agreed > proposal + width ? agreed : proposal + width;
    uint32_t cur = atomic_load(&next_context);
    while (cur <= first_foreign)
        if (atomic_compare_exchange_weak(&next_context, &cur, agreed + width))
            return 1;
    return 0;
}

int empi_comm_agree_context(const empi_coll_set_t *set, uint32_t *context_id)
{
    return empi_comm_agree_context_n(set, NULL, 2, context_id);
}

/* Same protocol with `width` ids per proposal; a bridge extends both reductions to the other group. */
int empi_comm_agree_context_n(const empi_coll_set_t *set, const empi_coll_bridge_t *bridge, int width,
                              uint32_t *context_id)
{
    for (;;) {
        uint32_t proposal = empi_comm_context_propose((uint32_t)width);
        int vals[1] = {(int)proposal};
        int rc = empi_coll_bridge_allreduce_int(set, bridge, vals, 1, EMPI_COLL_INT_MAX);
        if (rc != MPI_SUCCESS)
            return rc;
        uint32_t agreed = (uint32_t)vals[0];
        int ok[1] = {empi_comm_context_claim(proposal, agreed, (uint32_t)width)};
        rc = empi_coll_bridge_allreduce_int(set, bridge, ok, 1, EMPI_COLL_INT_AND);
        if (rc != MPI_SUCCESS)
            return rc;
        if (ok[0]) {
            *context_id = agreed;
            return MPI_SUCCESS;
        }
    }
}
