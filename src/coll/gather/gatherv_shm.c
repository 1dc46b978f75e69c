/*
 * Gatherv, shared memory, one epoch per call: a rank whose block is at most 2 KiB packs it into its
 * own flag line or medium buffer, raises its flag and leaves; the root unpacks each such block once
 * its flag is up. Larger blocks go as point-to-point messages, posted alongside (the root knows
 * which from the counts, each sender from its own). Any datatype: blocks are packed straight into
 * and out of the segment.
 * Cost: small blocks 2 copies + 1 flag transfer each; large ones as gatherv linear.
 */
#include "coll/shm/coll_shm.h"
#include "pt2pt/pt2pt.h"

static MPI_Count block_bytes(const empi_coll_args_t *a, int i)
{
    return a->rcounts[i] * a->rdt->size;
}

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    const empi_coll_args_t *a = o->plan;
    uint64_t e = o->e;
    if (m->me != a->root) {
        MPI_Count nb = a->scount * a->sdt->size;
        if (empi_shm_v_small(nb)) {
            if (!empi_shm_all_done(m, e, (size_t)nb))
                return 0;
            empi_coll_copy(a->sbuf, a->scount, a->sdt, empi_shm_data(m, e, m->me, (size_t)nb), nb, empi_byte_type);
            empi_shm_post(m, e, 2 * e + 1);
        }
        empi_shm_set_done(m, e, 0);
        return 1;
    }
    for (int i = 0; i < m->p; i++)
        if (i != m->me && empi_shm_v_small(block_bytes(a, i)) && !empi_shm_posted(m, i, e, 2 * e + 1))
            return 0;
    for (int i = 0; i < m->p; i++) {
        MPI_Count nb = block_bytes(a, i);
        if (i != m->me && empi_shm_v_small(nb))
            empi_coll_copy(empi_shm_data(m, e, i, (size_t)nb), nb, empi_byte_type,
                           empi_coll_off(a->rbuf, a->rdispls[i], a->rdt), a->rcounts[i], a->rdt);
    }
    empi_shm_set_done(m, e, 0);
    return 1;
}

/* One epoch (count 0 is one piece); `a` must outlive the operation. */
static empi_shm_op_t op_for(struct empi_coll_shm *m, const empi_coll_args_t *a)
{
    return (empi_shm_op_t){.step = step, .m = m, .root = a->root, .piece = 1, .plan = (void *)a};
}

static char *own_slot(const empi_coll_args_t *a)
{
    return empi_coll_off(a->rbuf, a->rdispls[a->root], a->rdt);
}

EMPI_ALG(empi_gatherv_shm)
{
    struct empi_coll_shm *m = empi_coll_shm_get(s->comm);
    empi_coll_args_t *kept = m ? empi_sched_tmp(s, sizeof *kept) : NULL;
    if (!kept)
        return m ? MPI_ERR_NO_MEM : empi_gatherv_linear(s, a);
    *kept = *a;   /* the counts and displacements are the schedule's already */
    int root = a->root;
    if (s->comm->rank != root) {
        if (empi_shm_v_big(a->scount * a->sdt->size))
            EMPI_TRY(empi_sched_send(s, a->sbuf, a->scount, a->sdt, root));
    } else {
        for (int i = 0; i < s->comm->size; i++)
            if (i != root && empi_shm_v_big(block_bytes(a, i)))
                EMPI_TRY(empi_sched_recv(s, empi_coll_off(a->rbuf, a->rdispls[i], a->rdt), a->rcounts[i], a->rdt, i));
        if (!a->in_place)
            EMPI_TRY(empi_sched_copy(s, a->sbuf, a->scount, a->sdt, own_slot(a), a->rcounts[root], a->rdt));
    }
    empi_shm_op_t o = op_for(m, kept);
    return empi_shm_build(s, &o);
}

static int start_recv(const empi_coll_args_t *a, int i, empi_request_t **req)
{
    return empi_irecv(empi_coll_off(a->rbuf, a->rdispls[i], a->rdt), a->rcounts[i], a->rdt, i, a->tag, a->comm,
                      EMPI_COLL_CONTEXT(a->comm), req);
}

int empi_gatherv_shm_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_shm *m = empi_coll_shm_get(a->comm);
    if (!m)
        return 0;
    empi_comm_t *c = a->comm;
    empi_shm_op_t o = op_for(m, a);
    if (c->rank != a->root) {
        *rc = empi_shm_run_direct(&o);
        if (*rc == MPI_SUCCESS && empi_shm_v_big(a->scount * a->sdt->size))
            *rc = empi_send(a->sbuf, a->scount, a->sdt, a->root, a->tag, c, EMPI_COLL_CONTEXT(c));
        return 1;
    }
    if (!a->in_place)
        empi_coll_copy(a->sbuf, a->scount, a->sdt, own_slot(a), a->rcounts[a->root], a->rdt);
    *rc = empi_shm_v_root(a, &o, block_bytes, start_recv);
    return 1;
}
