/*
 * Scatterv, shared memory, one epoch per call (coll/shm/shm_v.h): the root packs each block into
 * its reader's flag line or medium buffer (up to 2 KiB) or into its own slot (up to 32 KiB, one
 * after another while they fit), writes each reader's descriptor and raises the flag in the
 * reader's line, so that a small block, its descriptor and its flag travel in one line; the
 * other blocks go as messages, or, where single copy works and the send type is contiguous, are
 * read by their reader straight from the root's buffer (the root waits for that). When ranks
 * outnumber cores, small blocks (up to EMPI_COLL_SHM_V_TINY_MAX, default none) go as messages, and
 * a root with nothing else to describe raises no flag, so it does not wait for a free line. Each
 * reader follows its descriptor (unpacks, reads, or receives the message), or receives a small
 * message that came first, and leaves. Any datatype, any counts (a reader's count may be an upper bound).
 * Cost: per block in the segment 2 copies + 1 flag transfer; read from the root 1 copy; the rest as
 * scatterv linear.
 */
#include <stdlib.h>

#include "coll/shm/shm_v.h"
#include "pt2pt/pt2pt.h"

static const char *block(const empi_coll_args_t *a, int i)
{
    return empi_coll_off(a->sbuf, a->sdispls[i], a->sdt);
}

/* The root's blocks in rank order: where each goes is fixed by their sizes, in every pass. */
typedef struct {
    size_t used;
    int i;
} walk_t;

static int next_block(const struct empi_coll_shm *m, const empi_coll_args_t *a, walk_t *w, empi_shm_vdesc_t *d)
{
    for (w->i++; w->i < m->p && w->i == a->root; w->i++)
        ;
    if (w->i >= m->p)
        return 0;
    *d = empi_shm_v_choose(m, a->scounts[w->i] * a->sdt->size, a->sdt->is_contig, &w->used);
    return 1;
}

static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    empi_shm_vplan_t *pl = o->plan;
    const empi_coll_args_t *a = pl->a;
    uint64_t e = o->e;
    empi_shm_vdesc_t d;
    if (m->me == a->root) {
        if (o->phase == 0) {
            walk_t w = {0, -1};
            int described = 0, medium = 0, read_here = 0;
            while (next_block(m, a, &w, &d)) {
                described |= d.way != EMPI_SHM_V_TINY;
                medium |= d.way == EMPI_SHM_V_MEDIUM;
            }
            uint32_t base;
            if (described && !empi_shm_v_free(m, e, w.used, medium, &base))
                return 0;
            w = (walk_t){0, -1};
            /* with no descriptor every block is a message on its way: nothing to post */
            while (described && next_block(m, a, &w, &d)) {
                if (d.way == EMPI_SHM_V_SLOT)
                    d.offset += base;
                empi_shm_v_put(m, e, w.i, &d, block(a, w.i), a->scounts[w.i], a->sdt);
                empi_shm_post_to(m, w.i, e, 2 * e + 1);
                read_here |= d.way == EMPI_SHM_V_CMA;
            }
            empi_shm_set_done(m, e, 0);
            if (!read_here)
                return 1;
            o->phase = 1;
        }
        return empi_shm_all_reached(m, e);   /* readers copy from our buffer until they are done */
    }
    if (o->phase == 0) {
        pl->err = MPI_SUCCESS;
        pl->nreqs = 0;
        if (!empi_shm_v_take_ready(m, e, m->me, a->root, pl, a->rbuf, a->rcount, a->rdt))
            return 0;
        empi_shm_set_done(m, e, 0);
        o->phase = 1;
    }
    return empi_shm_v_finish(pl);
}

EMPI_ALG(empi_scatterv_shm)
{
    struct empi_coll_shm *m = empi_coll_shm_get(s->comm);
    if (!m)
        return empi_scatterv_linear(s, a);
    int root = a->root;
    empi_coll_args_t *kept = empi_sched_tmp(s, sizeof *kept);
    empi_shm_vplan_t *pl = empi_sched_tmp(s, sizeof *pl);
    empi_request_t **reqs = empi_sched_tmp(s, sizeof *reqs);
    if (!kept || !pl || !reqs)
        return MPI_ERR_NO_MEM;
    *kept = *a;   /* the counts and displacements are the schedule's already */
    *pl = (empi_shm_vplan_t){.a = kept, .tag = &s->tag, .reqs = reqs};
    if (s->comm->rank == root) {
        walk_t w = {0, -1};
        empi_shm_vdesc_t d;
        while (next_block(m, a, &w, &d))
            if (empi_shm_v_by_message(&d))
                EMPI_TRY(empi_sched_send(s, block(a, w.i), a->scounts[w.i], a->sdt, w.i));
        if (!a->in_place)
            EMPI_TRY(empi_sched_copy(s, block(a, root), a->scounts[root], a->sdt, a->rbuf, a->rcount, a->rdt));
    }
    empi_shm_op_t o = empi_shm_v_op(m, pl, step);
    return empi_shm_build(s, &o);
}

/* The root's messages, started before its epoch so that they move while it packs the rest. */
static int send_messages(const struct empi_coll_shm *m, const empi_coll_args_t *a, empi_request_t **reqs, int *n)
{
    walk_t w = {0, -1};
    empi_shm_vdesc_t d;
    empi_comm_t *c = a->comm;
    while (next_block(m, a, &w, &d)) {
        if (!empi_shm_v_by_message(&d))
            continue;
        int rc = empi_isend(block(a, w.i), a->scounts[w.i], a->sdt, w.i, a->tag, c, EMPI_COLL_CONTEXT(c),
                            EMPI_MODE_STANDARD, &reqs[*n]);
        if (rc != MPI_SUCCESS)
            return rc;
        (*n)++;
    }
    return MPI_SUCCESS;
}

int empi_scatterv_shm_fast(const empi_coll_args_t *a, int *rc)
{
    struct empi_coll_shm *m = empi_coll_shm_get(a->comm);
    if (!m)
        return 0;
    empi_comm_t *c = a->comm;
    int root = c->rank == a->root, n = 0;
    empi_request_t *few[16], **reqs = few;
    if (root && c->size > 16 && !(reqs = malloc((size_t)c->size * sizeof *reqs)))
        return 0;   /* the schedule's way, which holds them in its own memory */
    empi_shm_vplan_t pl = {.a = a, .tag = &a->tag, .reqs = reqs};
    empi_shm_op_t o = empi_shm_v_op(m, &pl, step);
    int sent = root ? send_messages(m, a, reqs, &n) : MPI_SUCCESS;
    /* the epoch runs even after a failed send, so that the others' epochs stay in step */
    *rc = empi_shm_run_direct(&o);
    if (root && !a->in_place)
        empi_coll_copy(block(a, a->root), a->scounts[a->root], a->sdt, a->rbuf, a->rcount, a->rdt);
    int waited = empi_waitall_release(n, reqs);
    if (*rc == MPI_SUCCESS)
        *rc = sent != MPI_SUCCESS ? sent : waited;
    if (reqs != few)
        free(reqs);
    return 1;
}
