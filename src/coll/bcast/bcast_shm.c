/*
 * Bcast, shared memory: the root copies each 64 KiB piece into its slot (inline in its flag line
 * up to 56 bytes) and raises its flag; the others copy out and mark the piece done. Receivers
 * never wait for each other; the root waits only before reusing a slot two pieces later.
 * Cost per piece: 2 copies of the piece + 1 flag transfer. Non-contiguous types are packed.
 * Between two ranks whose point-to-point path moves the message in one copy (CMA), a plain send
 * is half the copying: that pair takes the binomial tree, which is then that one send.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"
#include "pt2pt/pt2pt.h"

static int one_copy_pair(const empi_comm_t *c, size_t bytes)
{
    return c->size == 2 && empi_pt2pt_single_copy(c->world_ranks[1 - c->rank], bytes);
}

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    if (m->me == o->root) {
        if (!empi_shm_all_done(m, o->e, o->len))
            return 0;
        empi_copy(empi_shm_data(m, o->e, m->me, o->len), o->rbuf + o->off0, o->len);
        empi_shm_post(m, o->e, 2 * o->e + 1);
    } else {
        if (!empi_shm_posted(m, o->root, o->e, 2 * o->e + 1))
            return 0;
        empi_copy(o->rbuf + o->off0, empi_shm_data(m, o->e, o->root, o->len), o->len);
    }
    empi_shm_set_done(m, o->e, 0);
    return 1;
}

EMPI_ALG(empi_bcast_shm)
{
    struct empi_coll_shm *m;
    if (a->rcount == 0 || one_copy_pair(s->comm, (size_t)(a->rcount * a->rdt->size)) ||
        !(m = empi_coll_shm_get(s->comm)))
        return empi_bcast_binomial(s, a);
    int root = s->comm->rank == a->root;
    empi_bytes_view_t bv;
    EMPI_TRY(empi_bytes_begin(s, &bv, a->rbuf, a->rcount, a->rdt, root));
    empi_shm_op_t o = {.step = step, .m = m, .root = a->root, .count = bv.len, .esize = 1, .rbuf = bv.bytes,
                       .piece = EMPI_SHM_SLOT};
    EMPI_TRY(empi_shm_build(s, &o));
    return root ? MPI_SUCCESS : empi_bytes_finish(s, &bv);
}

int empi_bcast_shm_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_shm *m;
    if (!a->rdt->is_contig || a->rcount == 0 || one_copy_pair(a->comm, (size_t)(a->rcount * a->rdt->size)) ||
        !(m = empi_coll_shm_get(a->comm)))
        return 0;
    empi_shm_op_t o = {.step = step, .m = m, .root = a->root, .count = a->rcount * a->rdt->size, .esize = 1,
                       .rbuf = (char *)a->rbuf + a->rdt->true_lb, .piece = EMPI_SHM_SLOT};
    *rc = empi_shm_run_direct(a->comm, &o);
    return 1;
}
