/*
 * Bcast, shared memory: the root copies each 64 KiB piece into its slot (inline in its flag line
 * up to 56 bytes) and raises its flag; the others copy out and mark the piece done. Receivers
 * never wait for each other; the root waits only before reusing a slot two pieces later, or a deep
 * position (pieces of 2-32 KiB, coll_shm.h) 8-64 pieces later.
 * Cost per piece: 2 copies of the piece + 1 flag transfer. Non-contiguous types are packed.
 * Between two ranks that read each other's memory (CMA), a large message goes as one send, which
 * is then one copy: the binomial tree of two.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

/* From here one send beat the shared buffer in both phases of this machine we measured (below it
   the pipelined shared buffer won in one of them): docs/PERFORMANCE.md, run D2 and the note on
   CMA collectives after it. */
#define PAIR_SEND_MIN (256 * 1024)

static int one_copy_pair(const struct empi_coll_shm *m, MPI_Count bytes)
{
    return m->p == 2 && m->cma && bytes >= PAIR_SEND_MIN;
}

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    if (m->me == o->root) {
        if (!empi_shm_deep_free(m, o->e, o->len))
            return 0;
        empi_copy(empi_shm_deep_data(m, o->e, m->me, o->len), o->rbuf + o->off0, o->len);
        empi_shm_post(m, o->e, 2 * o->e + 1);
    } else {
        if (!empi_shm_posted(m, o->root, o->e, 2 * o->e + 1))
            return 0;
        empi_copy(o->rbuf + o->off0, empi_shm_deep_data(m, o->e, o->root, o->len), o->len);
    }
    empi_shm_set_done(m, o->e, 0);
    return 1;
}

EMPI_ALG(empi_bcast_shm)
{
    struct empi_coll_shm *m;
    if (a->rcount * a->rdt->size == 0 || !(m = empi_coll_shm_get(s->comm)) || one_copy_pair(m, a->rcount * a->rdt->size))
        return empi_bcast_binomial(s, a);
    int root = s->comm->rank == a->root;
    empi_bytes_view_t bv;
    EMPI_TRY(empi_bytes_begin(s, &bv, a->rbuf, a->rcount, a->rdt, root));
    empi_shm_op_t o = {.step = step, .m = m, .root = a->root, .count = bv.len, .esize = 1, .rbuf = bv.bytes,
                       .piece = (MPI_Count)m->slot};
    EMPI_TRY(empi_shm_build(s, &o));
    return root ? MPI_SUCCESS : empi_bytes_finish(s, &bv);
}

int empi_bcast_shm_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_shm *m;
    if (!a->rdt->is_contig || a->rcount * a->rdt->size == 0 || !(m = empi_coll_shm_get(a->comm)) ||
        one_copy_pair(m, a->rcount * a->rdt->size))
        return 0;
    empi_shm_op_t o = {.step = step, .m = m, .root = a->root, .count = a->rcount * a->rdt->size, .esize = 1,
                       .rbuf = (char *)a->rbuf + a->rdt->true_lb, .piece = (MPI_Count)m->slot};
    *rc = empi_shm_run_direct(&o);
    return 1;
}
