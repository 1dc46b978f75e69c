/*
 * Bcast, single copy on one node (CMA): scatter shm_cma with one block that every rank reads. The
 * root publishes its buffer's address; every other rank reads the whole buffer straight from there
 * and leaves; the root waits until every reader is through. A communicator whose pairs all read
 * each other's memory (agreed at set-up); otherwise shm. Non-contiguous types are packed.
 * With 2 ranks and from 64 KiB the copy is shared: the reader publishes its buffer too and reads
 * one half while the root writes the other half into it, so both cores copy at once.
 * Cost: 1 flag + n read per rank in parallel; the root waits for p-1 flags. A pair: 2 flags, n/2
 * copied by each.
 */
#include "coll/shm/coll_shm.h"

/* A pair shares the copy from this size; below, the reader's extra handshake costs more than half
   the copy saves (2 ranks paced by barriers, 16 KiB: 2.1 against 1.7 us; 64 KiB 3.1 against 3.7). */
#define PAIR_MIN (64 * 1024)

/* Where a pair splits the buffer, and which side the reader copies: the first part when rank 0 is
   the root, else the second. When the root alternates (IMB moves it at every call), each rank then
   reads the part it wrote in the call before, which is still in its cache (64 KiB-1 MiB back to
   back with a moving root: 0.3-0.4 of always the first part). */
static size_t half_of(size_t nb)
{
    size_t half = (nb / 2 + 63) & ~(size_t)63;
    return half < nb ? half : nb;
}

static int pair_step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    uint64_t e = o->e;
    int peer = 1 - m->me, root = m->me == o->root;
    size_t nb = o->nb, half = half_of(nb);
    size_t read_at = o->root == 0 ? 0 : half, read_len = o->root == 0 ? half : nb - half;
    size_t write_at = o->root == 0 ? half : 0, write_len = nb - read_len;
    if (o->phase == 0) {
        if (!empi_shm_cma_publish(o))   /* the root its source, the reader its destination */
            return 0;
        o->phase = 1;
    }
    if (o->phase == 1) {
        if (!empi_shm_posted(m, peer, e, 2 * e + 1))
            return 0;
        if (root) {
            char *dst = (char *)empi_shm_peer_addr(m, e, peer, 1) + write_at;
            o->err = write_len ? empi_shm_write(m, peer, o->sbuf + write_at, dst, write_len) : MPI_SUCCESS;
            empi_shm_post_status_to(m, peer, e, o->err);   /* the reader's part is not all it needs */
        } else {
            const char *src = empi_shm_peer_addr(m, e, peer, 0) + read_at;
            o->err = empi_shm_read(m, peer, o->rbuf + read_at, src, read_len);
        }
        empi_shm_set_done(m, e, 0);
        o->phase = 2;
    }
    /* the root: the reader is through our buffer; the reader: the root's part is in */
    if (!empi_shm_all_reached(m, e))
        return 0;
    if (!root && o->err == MPI_SUCCESS)
        o->err = empi_shm_peer_status(m, e, m->me);
    return o->err == MPI_SUCCESS ? 1 : -o->err;
}

EMPI_ALG(empi_bcast_shm_cma)
{
    struct empi_coll_shm *m;
    size_t nb = (size_t)empi_coll_msg_bytes(a);
    if (nb == 0 || s->comm->size < 2 || !(m = empi_coll_shm_get(s->comm)) || !m->cma)
        return empi_bcast_shm(s, a);
    int root = s->comm->rank == a->root;
    empi_bytes_view_t v;
    EMPI_TRY(empi_bytes_begin(s, &v, a->rbuf, a->rcount, a->rdt, root));
    int pair = s->comm->size == 2 && nb >= PAIR_MIN;
    empi_shm_op_t o = {.step = pair ? pair_step : empi_shm_root_read_step, .m = m, .root = a->root, .count = 1,
                       .piece = 1, .esize = nb, .nb = nb, .all = 1, .sbuf = root ? v.bytes : NULL,
                       .rbuf = root ? NULL : v.bytes};
    EMPI_TRY(empi_shm_build(s, &o));
    return root ? MPI_SUCCESS : empi_bytes_finish(s, &v);
}
