/*
 * Scatterv, shared memory, one epoch per call: the root packs every block of at most 2 KiB into
 * its reader's flag line or medium buffer and raises its own flag once; each such reader unpacks
 * its block and leaves. Larger blocks go as point-to-point messages, posted alongside (the root
 * knows which from the counts, each reader from its own). Any datatype: blocks are packed straight
 * into and out of the segment.
 * Cost: small blocks 2 copies each + 1 flag transfer; large ones as scatterv linear.
 */
#include "coll/shm/coll_shm.h"
#include "pt2pt/pt2pt.h"

static MPI_Count block_bytes(const empi_coll_args_t *a, int i)
{
    return a->scounts[i] * a->sdt->size;
}

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    const empi_coll_args_t *a = o->plan;
    uint64_t e = o->e;
    if (m->me == a->root) {
        if (!empi_shm_all_done(m, e, EMPI_SHM_MEDIUM))
            return 0;
        for (int i = 0; i < m->p; i++) {
            MPI_Count nb = block_bytes(a, i);
            if (i != m->me && empi_shm_v_small(nb))
                empi_coll_copy(empi_coll_off(a->sbuf, a->sdispls[i], a->sdt), a->scounts[i], a->sdt,
                               empi_shm_data(m, e, i, (size_t)nb), nb, empi_byte_type);
        }
        empi_shm_post(m, e, 2 * e + 1);
    } else {
        MPI_Count nb = a->rcount * a->rdt->size;
        if (empi_shm_v_small(nb)) {
            if (!empi_shm_posted(m, a->root, e, 2 * e + 1))
                return 0;
            empi_coll_copy(empi_shm_data(m, e, m->me, (size_t)nb), nb, empi_byte_type, a->rbuf, a->rcount, a->rdt);
        }
    }
    empi_shm_set_done(m, e, 0);
    return 1;
}

/* One epoch (count 0 is one piece); `a` must outlive the operation. */
static empi_shm_op_t op_for(struct empi_coll_shm *m, const empi_coll_args_t *a)
{
    return (empi_shm_op_t){.step = step, .m = m, .root = a->root, .piece = 1, .plan = (void *)a};
}

static const char *own_block(const empi_coll_args_t *a)
{
    return empi_coll_off(a->sbuf, a->sdispls[a->root], a->sdt);
}

EMPI_ALG(empi_scatterv_shm)
{
    struct empi_coll_shm *m = empi_coll_shm_get(s->comm);
    empi_coll_args_t *kept = m ? empi_sched_tmp(s, sizeof *kept) : NULL;
    if (!kept)
        return m ? MPI_ERR_NO_MEM : empi_scatterv_linear(s, a);
    *kept = *a;   /* the counts and displacements are the schedule's already */
    int root = a->root;
    if (s->comm->rank != root) {
        if (empi_shm_v_big(a->rcount * a->rdt->size))
            EMPI_TRY(empi_sched_recv(s, a->rbuf, a->rcount, a->rdt, root));
    } else {
        for (int i = 0; i < s->comm->size; i++)
            if (i != root && empi_shm_v_big(block_bytes(a, i)))
                EMPI_TRY(empi_sched_send(s, empi_coll_off(a->sbuf, a->sdispls[i], a->sdt), a->scounts[i], a->sdt, i));
        if (!a->in_place)
            EMPI_TRY(empi_sched_copy(s, own_block(a), a->scounts[root], a->sdt, a->rbuf, a->rcount, a->rdt));
    }
    empi_shm_op_t o = op_for(m, kept);
    return empi_shm_build(s, &o);
}

static int start_send(const empi_coll_args_t *a, int i, empi_request_t **req)
{
    return empi_isend(empi_coll_off(a->sbuf, a->sdispls[i], a->sdt), a->scounts[i], a->sdt, i, a->tag, a->comm,
                      EMPI_COLL_CONTEXT(a->comm), EMPI_MODE_STANDARD, req);
}

int empi_scatterv_shm_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_shm *m = empi_coll_shm_get(a->comm);
    if (!m)
        return 0;
    empi_comm_t *c = a->comm;
    empi_shm_op_t o = op_for(m, a);
    if (c->rank != a->root) {
        *rc = empi_shm_run_direct(&o);
        if (*rc == MPI_SUCCESS && empi_shm_v_big(a->rcount * a->rdt->size))
            *rc = empi_recv(a->rbuf, a->rcount, a->rdt, a->root, a->tag, c, EMPI_COLL_CONTEXT(c), MPI_STATUS_IGNORE);
        return 1;
    }
    if (!a->in_place)
        empi_coll_copy(own_block(a), a->scounts[a->root], a->sdt, a->rbuf, a->rcount, a->rdt);
    *rc = empi_shm_v_root(a, &o, block_bytes, start_send);
    return 1;
}
