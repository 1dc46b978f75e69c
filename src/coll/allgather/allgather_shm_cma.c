/*
 * Allgather and allgatherv, single copy on one node (CMA): every rank publishes where its block
 * lies, reads every other rank's block straight from there into its receive buffer and copies its
 * own; a last wait keeps each block untouched until every reader is through. One copy per block
 * instead of the shared buffer's two. A communicator whose pairs all read each other's memory
 * (agreed at set-up); otherwise shm. Non-contiguous types are packed.
 * Cost: 2 syncs + (total - own) bytes read across processes + own block copied, per rank.
 */
#include "coll/allgather/allgather_blocks.h"
#include "core/copy.h"

/* One piece (the whole message). A failing read is remembered, not returned at once: the others
   wait for this rank's done line, so it goes through every phase and reports at the end. */
static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    const empi_ag_blocks_t *b = o->plan;
    uint64_t e = o->e;
    int fresh = o->phase == 0;
    if (!empi_shm_cma_publish(o))
        return 0;
    if (fresh) {   /* our own block while the others publish theirs (2 ranks, 8-128 KiB: 0.84-0.93) */
        char *own = o->rbuf + empi_ag_off(o, m->me);
        size_t n = empi_ag_len(o, m->me);
        if (own != o->sbuf)
            empi_copy(own, o->sbuf, b->sbytes < n ? b->sbytes : n);
    }
    if (o->phase == 1) {
        if (!empi_shm_all_posted(m, e, 2 * e + 1))
            return 0;
        /* rank me reads me+1, me+2, ...: the readers spread over different senders */
        for (int k = 1; k < m->p; k++) {
            int r = (m->me + k) % m->p;
            size_t n = empi_ag_len(o, r);
            int rc = n ? empi_shm_read(m, r, o->rbuf + empi_ag_off(o, r), empi_shm_peer_addr(m, e, r, 0), n)
                       : MPI_SUCCESS;
            if (rc != MPI_SUCCESS && o->err == MPI_SUCCESS)
                o->err = rc;
        }
        empi_shm_set_done(m, e, 0);
        o->phase = 2;
    }
    return empi_shm_cma_finish(o);
}

static int build(empi_sched_t *s, const empi_coll_args_t *a, int (*fallback)(empi_sched_t *, const empi_coll_args_t *))
{
    struct empi_coll_shm *m;
    if (empi_ag_largest(a) == 0 || !(m = empi_coll_shm_get(s->comm)) || !m->cma)
        return fallback(s, a);
    empi_shm_op_t o = {.step = step, .m = m, .count = 1, .piece = 1, .esize = 1};
    return empi_ag_build(s, a, &o);
}

EMPI_ALG(empi_allgather_shm_cma)
{
    return build(s, a, empi_allgather_shm);
}

EMPI_ALG(empi_allgatherv_shm_cma)
{
    return build(s, a, empi_allgatherv_shm);
}
