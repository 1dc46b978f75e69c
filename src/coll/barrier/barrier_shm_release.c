/*
 * Barrier, shared-memory fan-in and release: every rank raises its post flag to the epoch; rank 0
 * waits until all flags carry it and then raises its own, which releases the others.
 * Cost: rank 0 reads p - 1 cache lines and the others one, two crossings between cores where the
 * symmetric barrier (barrier_shm.c) takes one and every rank reads p lines.
 * Why: rank 0 leaves first. What it sends in the next collective (a bcast's or scatter's data,
 * the head of a scan) is on its way while the others are still leaving, instead of every rank
 * leaving at once and waiting for it. A benchmark that separates calls by a barrier, as OSU's do,
 * measures the difference: 2 ranks, bcast and scatter of 8 B-512 B 0.5 of the time after the
 * symmetric barrier; 4 ranks on 2 cores, where rank 0 leaves a turn of the scheduler ahead:
 * bcast 0.13, exscan 0.13-0.15, scan 0.25.
 * A barrier called right after a barrier on the communicator has nothing to order and takes the
 * symmetric form, whose one crossing makes a loop of barriers faster (2 ranks: 0.34 against
 * 0.44-0.55 us). Every rank sees the same sequence of collective calls, so all agree on the form.
 */
#include "coll/shm/coll_shm.h"

#define TAG_MASK 0x3fffffff   /* collective tags count modulo 2^30 (empi_coll_next_tag) */

/* The rank that releases the others for the barrier of collective tag `tag`, or -1 when it follows
   another barrier and every rank waits for all flags. */
static int releaser(struct empi_coll_shm *m, int tag)
{
    int after_barrier = ((m->last_barrier_tag + 1) & TAG_MASK) == tag;
    m->last_barrier_tag = tag;
    return after_barrier ? -1 : 0;
}

static int others_posted(struct empi_coll_shm *m, uint64_t e, uint64_t v)
{
    for (int i = 0; i < m->p; i++)
        if (i != m->me && !empi_shm_posted(m, i, e, v))
            return 0;
    return 1;
}

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    uint64_t v = 2 * o->e + 1;
    int releases = m->me == o->root;
    if (o->phase == 0) {
        if (!releases)
            empi_shm_post(m, o->e, v);
        o->phase = 1;
    }
    if (o->root < 0 || releases) {
        if (!others_posted(m, o->e, v))
            return 0;
        if (releases)
            empi_shm_post(m, o->e, v);
    } else if (!empi_shm_posted(m, o->root, o->e, v)) {
        return 0;
    }
    /* Every rank had entered the epoch, hence finished the one before. */
    empi_shm_set_done(m, o->e, 1);
    empi_shm_run_goes_on(m, o->e);
    return 1;
}

static empi_shm_op_t op_for(struct empi_coll_shm *m, int tag)
{
    return (empi_shm_op_t){.step = step, .m = m, .root = releaser(m, tag), .count = 0, .piece = 1, .esize = 1};
}

EMPI_ALG(empi_barrier_shm_release)
{
    struct empi_coll_shm *m = empi_coll_shm_get(s->comm);
    if (!m)
        return empi_barrier_dissemination(s, a);
    empi_shm_op_t o = op_for(m, s->tag);
    return empi_shm_build(s, &o);
}

int empi_barrier_shm_release_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_shm *m = empi_coll_shm_get(a->comm);
    if (!m)
        return 0;
    empi_shm_op_t o = op_for(m, a->tag);
    *rc = empi_shm_run_direct(&o);
    return 1;
}
