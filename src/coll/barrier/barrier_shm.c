/*
 * Barrier, shared-memory flags: every rank raises its post flag to the epoch and waits until all
 * flags carry it. Cost: one cache-line write + p cache-line reads (no alpha: no messages).
 */
#include "coll/shm/coll_shm.h"

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    if (o->phase == 0) {
        empi_shm_post(m, o->e, 2 * o->e + 1);
        o->phase = 1;
    }
    if (!empi_shm_all_posted(m, o->e, 2 * o->e + 1))
        return 0;
    empi_shm_set_done(m, o->e, 1);
    empi_shm_run_goes_on(m, o->e);
    return 1;
}

EMPI_ALG(empi_barrier_shm)
{
    struct empi_coll_shm *m = empi_coll_shm_get(s->comm);
    if (!m)
        return empi_barrier_dissemination(s, a);
    empi_shm_op_t o = {.step = step, .m = m, .count = 0, .piece = 1, .esize = 1};
    return empi_shm_build(s, &o);
}

int empi_barrier_shm_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_shm *m = empi_coll_shm_get(a->comm);
    if (!m)
        return 0;
    empi_shm_op_t o = {.step = step, .m = m, .count = 0, .piece = 1, .esize = 1};
    *rc = empi_shm_run_direct(&o);
    return 1;
}
