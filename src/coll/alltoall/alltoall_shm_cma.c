/*
 * Alltoall, single copy on one node (CMA): every rank publishes its send buffer's address in the
 * shared segment, reads the block addressed to it straight from every other rank's send buffer
 * into its receive buffer, and copies its own block; a last wait keeps each send buffer untouched
 * until every reader is through. One copy per block instead of the shared buffer's two, and two
 * synchronizations whatever the size. A communicator whose pairs all read each other's memory
 * (agreed at set-up), not in place; otherwise the shared-buffer algorithm. Non-contiguous types
 * are packed on both sides (the reads come from the sender's packed copy).
 * Cost: 2 syncs + (p-1) n read across processes + n local copy per rank.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

/* One piece (the whole message). A failing read is remembered, not returned at once: the others
   wait for this rank's done line, so it goes through every phase and reports at the end. */
static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    uint64_t e = o->e;
    size_t nb = o->nb;
    if (!empi_shm_cma_publish(o))
        return 0;
    if (o->phase == 1) {
        if (!empi_shm_all_posted(m, e, 2 * e + 1))
            return 0;
        /* Rank me reads from me+1, me+2, ...: at any moment the p readers are spread over p
           different senders rather than all reading the same one. */
        for (int k = 1; k < m->p; k++) {
            int r = (m->me + k) % m->p;
            int rc = empi_shm_read(m, r, o->rbuf + nb * (size_t)r, empi_shm_peer_addr(m, e, r, 0) + nb * (size_t)m->me,
                                   nb);
            if (rc != MPI_SUCCESS && o->err == MPI_SUCCESS)
                o->err = rc;
        }
        empi_copy(o->rbuf + nb * (size_t)m->me, o->sbuf + nb * (size_t)m->me, nb);
        empi_shm_set_done(m, e, 0);
        o->phase = 2;
    }
    return empi_shm_cma_finish(o);
}

EMPI_ALG(empi_alltoall_shm_cma)
{
    struct empi_coll_shm *m;
    int p = s->comm->size;
    size_t nb = (size_t)(a->rcount * a->rdt->size);
    if (a->in_place || nb == 0 || p < 2 || !(m = empi_coll_shm_get(s->comm)) || !m->cma)
        return empi_alltoall_shm(s, a);
    empi_bytes_view_t sv, rv;
    EMPI_TRY(empi_bytes_begin(s, &sv, (void *)a->sbuf, a->scount * p, a->sdt, 1));
    EMPI_TRY(empi_bytes_begin(s, &rv, a->rbuf, a->rcount * p, a->rdt, 0));
    empi_shm_op_t o = {.step = step, .m = m, .count = 1, .piece = 1, .esize = nb * (size_t)p, .nb = nb,
                       .sbuf = sv.bytes, .rbuf = rv.bytes};
    EMPI_TRY(empi_shm_build(s, &o));
    return empi_bytes_finish(s, &rv);
}
