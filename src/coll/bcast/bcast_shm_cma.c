/*
 * Bcast, single copy on one node (CMA): scatter shm_cma with one block that every rank reads. The
 * root publishes its buffer's address; every other rank reads the whole buffer straight from there
 * and leaves; the root waits until every reader is through. A communicator whose pairs all read
 * each other's memory (agreed at set-up); otherwise shm. Non-contiguous types are packed.
 * Cost: 1 flag + n read per rank in parallel; the root waits for p-1 flags.
 */
#include "coll/shm/coll_shm.h"

EMPI_ALG(empi_bcast_shm_cma)
{
    struct empi_coll_shm *m;
    size_t nb = (size_t)empi_coll_msg_bytes(a);
    if (nb == 0 || s->comm->size < 2 || !(m = empi_coll_shm_get(s->comm)) || !m->cma)
        return empi_bcast_shm(s, a);
    int root = s->comm->rank == a->root;
    empi_bytes_view_t v;
    EMPI_TRY(empi_bytes_begin(s, &v, a->rbuf, a->rcount, a->rdt, root));
    empi_shm_op_t o = {.step = empi_shm_root_read_step, .m = m, .root = a->root, .count = 1, .piece = 1, .esize = nb,
                       .nb = nb, .all = 1, .sbuf = root ? v.bytes : NULL, .rbuf = root ? NULL : v.bytes};
    EMPI_TRY(empi_shm_build(s, &o));
    return root ? MPI_SUCCESS : empi_bytes_finish(s, &v);
}
