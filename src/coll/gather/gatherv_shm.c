/*
 * Gatherv, shared memory, one epoch per call (coll/shm/shm_v.h): every rank but the root packs its
 * block into its own flag line, medium buffer or slot (up to 32 KiB), or sends it as a message
 * when larger, raises its flag with the block's descriptor and leaves; when ranks outnumber cores
 * a small block (up to EMPI_COLL_SHM_V_TINY_MAX, default none) goes as a message with no flag, so
 * that its sender does not wait for a free line. The root takes the blocks in rank order as each
 * flag or small message arrives: it unpacks each block or receives its message. Where single copy
 * works, a larger contiguous block is not packed: with 3 ranks or more the root publishes where
 * each block goes in its receive buffer and the senders write their blocks there at once (where
 * the root's type is contiguous and has room; 4 ranks on 2 cores, 64 KiB-1 MiB: 0.37-0.89 of the
 * root reading them in turn), else the root reads the block from its sender, which waits for that.
 * Any datatype, any counts (the root's receive counts may be upper bounds).
 * Cost: per block in the segment 2 copies + 1 flag transfer; written or read single copy 1 copy + 1
 * flag; the rest as gatherv linear.
 */
#include <stdlib.h>

#include "coll/shm/shm_v.h"
#include "pt2pt/pt2pt.h"

/* What this non-root rank's block does (the same computation in its step); *used: of its slot. */
static empi_shm_vdesc_t my_block(const struct empi_coll_shm *m, const empi_coll_args_t *a, size_t *used)
{
    *used = 0;
    MPI_Count bytes = a->scount * a->sdt->size;
    empi_shm_vdesc_t d = empi_shm_v_choose(m, bytes, a->sdt->is_contig, used);
    empi_shm_v_write_way(m, &d, bytes, a->sdt->is_contig);
    return d;
}

/* This non-root rank's block goes as a point-to-point message. */
static int sends_message(const struct empi_coll_shm *m, const empi_coll_args_t *a)
{
    size_t used;
    empi_shm_vdesc_t d = my_block(m, a, &used);
    return empi_shm_v_by_message(&d);
}

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    empi_shm_vplan_t *pl = o->plan;
    const empi_coll_args_t *a = pl->a;
    uint64_t e = o->e;
    if (m->me != a->root) {
        if (o->phase == 0) {
            size_t used;
            uint32_t base;
            empi_shm_vdesc_t d = my_block(m, a, &used);
            if (d.way == EMPI_SHM_V_TINY) {
                empi_shm_set_done(m, e, 0);   /* its message is all the root needs */
                return 1;
            }
            if (!empi_shm_v_free(m, e, used, d.way == EMPI_SHM_V_MEDIUM, &base) ||
                (d.way == EMPI_SHM_V_WRITE && !empi_shm_v_write(m, e, a->root, &d, a->sbuf, a->sdt)))
                return 0;
            if (d.way == EMPI_SHM_V_SLOT)
                d.offset += base;
            empi_shm_v_put(m, e, m->me, &d, a->sbuf, a->scount, a->sdt);
            empi_shm_post(m, e, 2 * e + 1);
            empi_shm_set_done(m, e, 0);
            if (d.way != EMPI_SHM_V_CMA)
                return 1;
            o->phase = 1;
        }
        return empi_shm_all_reached(m, e);   /* the root reads our buffer until it is done */
    }
    if (o->phase == 0) {
        if (empi_shm_v_writes(m) && !empi_shm_v_publish_dests(m, e, a))
            return 0;
        *pl = (empi_shm_vplan_t){.a = pl->a, .tag = pl->tag, .reqs = pl->reqs};
        o->phase = 1;
    }
    if (o->phase == 1) {
        for (; pl->next < m->p; pl->next++) {
            int i = pl->next;
            if (i != m->me && !empi_shm_v_take_ready(m, e, i, i, pl, empi_coll_off(a->rbuf, a->rdispls[i], a->rdt),
                                                     a->rcounts[i], a->rdt))
                return 0;
        }
        /* a rank that posted this epoch has finished the one before */
        empi_shm_set_done(m, e, pl->described == m->p - 1);
        o->phase = 2;
    }
    return empi_shm_v_finish(pl);
}

static char *own_slot(const empi_coll_args_t *a)
{
    return empi_coll_off(a->rbuf, a->rdispls[a->root], a->rdt);
}

EMPI_ALG(empi_gatherv_shm)
{
    struct empi_coll_shm *m = empi_coll_shm_get(s->comm);
    if (!m)
        return empi_gatherv_linear(s, a);
    int p = s->comm->size, root = a->root;
    empi_coll_args_t *kept = empi_sched_tmp(s, sizeof *kept);
    empi_shm_vplan_t *pl = empi_sched_tmp(s, sizeof *pl);
    empi_request_t **reqs = empi_sched_tmp(s, (size_t)p * sizeof *reqs);
    if (!kept || !pl || !reqs)
        return MPI_ERR_NO_MEM;
    *kept = *a;   /* the counts and displacements are the schedule's already */
    *pl = (empi_shm_vplan_t){.a = kept, .tag = &s->tag, .reqs = reqs};
    if (s->comm->rank != root) {
        if (sends_message(m, a))
            EMPI_TRY(empi_sched_send(s, a->sbuf, a->scount, a->sdt, root));
    } else if (!a->in_place) {
        EMPI_TRY(empi_sched_copy(s, a->sbuf, a->scount, a->sdt, own_slot(a), a->rcounts[root], a->rdt));
    }
    empi_shm_op_t o = empi_shm_v_op(m, pl, step);
    return empi_shm_build(s, &o);
}

int empi_gatherv_shm_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_shm *m = empi_coll_shm_get(a->comm);
    if (!m)
        return 0;
    empi_comm_t *c = a->comm;
    int root = c->rank == a->root;
    empi_request_t *few[16], **reqs = few;
    if (root && c->size > 16 && !(reqs = malloc((size_t)c->size * sizeof *reqs)))
        return 0;   /* the schedule's way, which holds them in its own memory */
    empi_shm_vplan_t pl = {.a = a, .tag = &a->tag, .reqs = reqs};
    empi_shm_op_t o = empi_shm_v_op(m, &pl, step);
    if (root && !a->in_place)
        empi_coll_copy(a->sbuf, a->scount, a->sdt, own_slot(a), a->rcounts[a->root], a->rdt);
    *rc = empi_shm_run_direct(&o);
    if (!root && sends_message(m, a)) {
        int sent = empi_send(a->sbuf, a->scount, a->sdt, a->root, a->tag, c, EMPI_COLL_CONTEXT(c));
        if (*rc == MPI_SUCCESS)
            *rc = sent;
    }
    if (reqs != few)
        free(reqs);
    return 1;
}
