/*
 * Gather, single copy on one node (CMA): the root publishes its receive buffer's address in the
 * shared segment and copies its own block; every other rank writes its block straight into its
 * place there and leaves. The root waits until every writer is through. Scatter shm_cma the other
 * way round: the writers copy in parallel, with no handshake per block and no packets to match.
 * A communicator whose pairs all reach each other's memory (agreed at set-up); otherwise shm.
 * Non-contiguous types are packed on both sides.
 * Cost: 1 flag + n written per rank in parallel; the root copies its own block and waits for p-1
 * flags.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    uint64_t e = o->e;
    size_t nb = o->nb;
    if (m->me != o->root) {
        if (!empi_shm_posted(m, o->root, e, 2 * e + 1))
            return 0;
        char *at = (char *)empi_shm_peer_addr(m, e, o->root, 0) + nb * (size_t)m->me;
        int rc = empi_shm_write(m, o->root, o->sbuf, at, nb);
        /* the root must not return a buffer with a hole as a result: it reads this once we are done,
           before it marks the piece done (our post line is free: the root published after every
           rank was done with its last use) */
        empi_shm_post_status(m, e, rc);
        empi_shm_set_done(m, e, 0);
        return rc == MPI_SUCCESS ? 1 : -rc;
    }
    if (o->phase == 0) {
        if (!empi_shm_all_done(m, e, 0))   /* our post line is free again */
            return 0;
        empi_shm_publish(m, e, o->rbuf, NULL);
        if (o->sbuf)
            empi_copy(o->rbuf + nb * (size_t)m->me, o->sbuf, nb);
        o->phase = 1;
    }
    /* Every writer is through; their statuses are read before we mark the piece done, since
       that lets them reuse their post lines. */
    if (!empi_shm_others_done(m, e))
        return 0;
    int err = MPI_SUCCESS;
    for (int r = 0; r < m->p && err == MPI_SUCCESS; r++)
        if (r != m->me)
            err = empi_shm_peer_status(m, e, r);
    empi_shm_set_done(m, e, 1);
    return err == MPI_SUCCESS ? 1 : -err;
}

EMPI_ALG(empi_gather_shm_cma)
{
    struct empi_coll_shm *m;
    int p = s->comm->size, root = s->comm->rank == a->root;
    size_t nb = (size_t)empi_coll_msg_bytes(a);
    if (nb == 0 || p < 2 || !(m = empi_coll_shm_get(s->comm)) || !m->cma)
        return empi_gather_shm(s, a);
    empi_bytes_view_t sv = {0}, rv = {0};
    if (!a->in_place)
        EMPI_TRY(empi_bytes_begin(s, &sv, (void *)a->sbuf, a->scount, a->sdt, 1));
    /* in place, a packed receive buffer must hold the root's own block before the others land */
    if (root)
        EMPI_TRY(empi_bytes_begin(s, &rv, a->rbuf, a->rcount * p, a->rdt, a->in_place));
    empi_shm_op_t o = {.step = step, .m = m, .root = a->root, .count = 1, .piece = 1, .esize = nb, .nb = nb,
                       .sbuf = sv.bytes, .rbuf = rv.bytes};
    EMPI_TRY(empi_shm_build(s, &o));
    return root ? empi_bytes_finish(s, &rv) : MPI_SUCCESS;
}
