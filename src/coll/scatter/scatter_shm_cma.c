/*
 * Scatter, single copy on one node (CMA): the root publishes its send buffer's address in the
 * shared segment and copies its own block; every other rank reads its block straight from there
 * into its receive buffer and leaves. The root waits until every reader is through, since its
 * buffer goes back to the user when it returns. No handshake per block, no packets to match, and
 * the readers copy in parallel (the pt2pt rendezvous of `linear` costs an RTS, a COOP and a FIN per
 * block, all handled by a root that ranks outnumbering cores keep off its core).
 * A communicator whose pairs all read each other's memory (agreed at set-up); otherwise shm.
 * Non-contiguous types are packed on both sides.
 * Cost: 1 flag + n read per rank in parallel; the root copies its own block and waits for p-1 flags.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

/* One piece (the whole message); also bcast shm_cma's (all = 1). */
int empi_shm_root_read_step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    uint64_t e = o->e;
    size_t nb = o->nb;
    if (m->me != o->root) {
        if (!empi_shm_posted(m, o->root, e, 2 * e + 1))
            return 0;
        size_t at = o->all ? 0 : nb * (size_t)m->me;   /* all: a bcast, every rank reads the same */
        int rc = empi_shm_read(m, o->root, o->rbuf, empi_shm_peer_addr(m, e, o->root, 0) + at, nb);
        empi_shm_set_done(m, e, 0);
        return rc == MPI_SUCCESS ? 1 : -rc;
    }
    if (o->phase == 0) {
        if (!empi_shm_all_done(m, e, 0))   /* our post line is free again */
            return 0;
        empi_shm_publish(m, e, o->sbuf, NULL);
        if (o->rbuf)
            empi_copy(o->rbuf, o->sbuf + nb * (size_t)m->me, nb);
        empi_shm_set_done(m, e, 0);
        o->phase = 1;
    }
    return empi_shm_all_reached(m, e);
}

EMPI_ALG(empi_scatter_shm_cma)
{
    struct empi_coll_shm *m;
    int p = s->comm->size, root = s->comm->rank == a->root;
    size_t nb = (size_t)empi_coll_msg_bytes(a);
    if (nb == 0 || p < 2 || !(m = empi_coll_shm_get(s->comm)) || !m->cma)
        return empi_scatter_shm(s, a);
    empi_bytes_view_t sv = {0}, rv = {0};
    if (root)
        EMPI_TRY(empi_bytes_begin(s, &sv, (void *)a->sbuf, a->scount * p, a->sdt, 1));
    if (!a->in_place)
        EMPI_TRY(empi_bytes_begin(s, &rv, a->rbuf, a->rcount, a->rdt, 0));
    empi_shm_op_t o = {.step = empi_shm_root_read_step, .m = m, .root = a->root, .count = 1, .piece = 1, .esize = nb,
                       .nb = nb, .sbuf = sv.bytes, .rbuf = rv.bytes};
    EMPI_TRY(empi_shm_build(s, &o));
    return a->in_place ? MPI_SUCCESS : empi_bytes_finish(s, &rv);
}
