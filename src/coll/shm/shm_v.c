/* Block descriptors of gatherv and scatterv in shared memory (shm_v.h explains). */
#include <stdlib.h>

#include "coll/shm/shm_v.h"
#include "core/tunables.h"
#include "pt2pt/pt2pt.h"

empi_shm_vdesc_t empi_shm_v_choose(const struct empi_coll_shm *m, MPI_Count bytes, int contig, size_t *used)
{
    empi_shm_vdesc_t d = {(uint64_t)bytes, EMPI_SHM_V_MESSAGE, 0};
    size_t at = (*used + 63) & ~(size_t)63;
    if (bytes == 0)
        d.way = EMPI_SHM_V_NONE;
    else if ((size_t)bytes <= empi_tunables.coll_shm_v_tiny_max && m->crowded)
        d.way = EMPI_SHM_V_TINY;
    else if ((size_t)bytes <= EMPI_SHM_V_INLINE_MAX)
        d.way = EMPI_SHM_V_INLINE;
    else if (bytes <= EMPI_SHM_MEDIUM)
        d.way = EMPI_SHM_V_MEDIUM;
    else if (m->cma && contig && bytes >= empi_shm_v_cma_min(m) && bytes <= EMPI_SHM_V_CMA_MAX)
        d.way = EMPI_SHM_V_CMA;
    else if (bytes <= EMPI_SHM_V_SLOT_MAX && at + (size_t)bytes <= m->slot) {
        d.way = EMPI_SHM_V_SLOT;
        d.offset = (uint32_t)at;
        *used = at + (size_t)bytes;
    }
    return d;
}

void empi_shm_v_write_way(const struct empi_coll_shm *m, empi_shm_vdesc_t *d, MPI_Count bytes, int contig)
{
    if (empi_shm_v_writes(m) && contig && (d->way == EMPI_SHM_V_CMA || d->way == EMPI_SHM_V_MESSAGE) &&
        bytes >= empi_shm_v_cma_min(m))
        d->way = EMPI_SHM_V_WRITE;
}

int empi_shm_v_publish_dests(struct empi_coll_shm *m, uint64_t e, const empi_coll_args_t *a)
{
    if (!empi_shm_all_done(m, e, EMPI_SHM_MEDIUM))
        return 0;
    uint64_t *dest = (uint64_t *)empi_shm_medium(m, e, m->me);
    const empi_datatype_t *dt = a->rdt;
    for (int i = 0; i < m->p; i++) {
        int open = i != m->me && dt->is_contig;
        dest[2 * i] = open ? (uint64_t)(uintptr_t)(empi_coll_off(a->rbuf, a->rdispls[i], dt) + dt->true_lb) : 0;
        dest[2 * i + 1] = open ? (uint64_t)(a->rcounts[i] * dt->size) : 0;
    }
    empi_shm_post(m, e, 2 * e + 1);
    return 1;
}

int empi_shm_v_write(struct empi_coll_shm *m, uint64_t e, int root, empi_shm_vdesc_t *d, const void *buf,
                     const empi_datatype_t *dt)
{
    if (!empi_shm_posted(m, root, e, 2 * e + 1))
        return 0;
    const uint64_t *dest = (const uint64_t *)empi_shm_medium(m, e, root) + 2 * m->me;
    if (dest[0] == 0 || dest[1] < d->bytes) {
        d->way = EMPI_SHM_V_CMA;
        return 1;
    }
    int rc = empi_shm_write(m, root, (const char *)buf + dt->true_lb, (void *)(uintptr_t)dest[0], (size_t)d->bytes);
    d->way = EMPI_SHM_V_WRITTEN;
    d->offset = (uint32_t)rc;
    return 1;
}

int empi_shm_v_free(struct empi_coll_shm *m, uint64_t e, size_t used, int medium, uint32_t *base)
{
    unsigned depth = empi_shm_deep_depth(m, used);
    *base = depth ? (uint32_t)empi_shm_deep_offset(m, e, depth) : 0;
    if (depth)
        return empi_shm_deep_free(m, e, used) && (!medium || empi_shm_all_done(m, e, EMPI_SHM_MEDIUM));
    return empi_shm_all_done(m, e, used ? m->slot : medium ? EMPI_SHM_MEDIUM : 0);
}

/* Where the data of a block described in `owner`'s line lives; NULL when it is not in the segment. */
static char *area(struct empi_coll_shm *m, uint64_t e, int owner, int writer, const empi_shm_vdesc_t *d)
{
    switch (d->way) {
    case EMPI_SHM_V_INLINE:
        return empi_shm_line(m, owner, e)->data + sizeof *d;
    case EMPI_SHM_V_MEDIUM:
        return empi_shm_data(m, e, owner, EMPI_SHM_MEDIUM);
    case EMPI_SHM_V_SLOT:
        return empi_shm_slot(m, (int)(e & 1), writer) + d->offset;
    default:
        return NULL;
    }
}

void empi_shm_v_put(struct empi_coll_shm *m, uint64_t e, int owner, const empi_shm_vdesc_t *d, const void *buf,
                    MPI_Count count, const empi_datatype_t *dt)
{
    char *dst = area(m, e, owner, m->me, d);
    if (dst)
        empi_coll_copy(buf, count, dt, dst, (MPI_Count)d->bytes, empi_byte_type);
    char *line = empi_shm_line(m, owner, e)->data;
    memcpy(line, d, sizeof *d);
    if (d->way == EMPI_SHM_V_CMA) {
        uint64_t at = (uint64_t)(uintptr_t)((const char *)buf + dt->true_lb);
        memcpy(line + sizeof *d, &at, sizeof at);
    }
}

static void note(empi_shm_vplan_t *pl, int rc)
{
    if (pl->err == MPI_SUCCESS)
        pl->err = rc;
}

/* A single-copy block: straight into a contiguous receive buffer, else through a bounce buffer
   (what fits; a longer block is a truncation). */
static void read_block(struct empi_coll_shm *m, uint64_t e, int owner, int writer, empi_shm_vplan_t *pl,
                       const empi_shm_vdesc_t *d, void *buf, MPI_Count count, empi_datatype_t *dt)
{
    uint64_t at;
    memcpy(&at, empi_shm_line(m, owner, e)->data + sizeof *d, sizeof at);
    size_t room = (size_t)(count * dt->size), n = d->bytes < room ? (size_t)d->bytes : room;
    if (d->bytes > room)
        note(pl, MPI_ERR_TRUNCATE);
    if (n == 0)
        return;
    const void *src = (const void *)(uintptr_t)at;
    if (dt->is_contig) {
        note(pl, empi_shm_read(m, writer, (char *)buf + dt->true_lb, src, n));
        return;
    }
    char *bounce = malloc(n);
    if (!bounce) {
        note(pl, MPI_ERR_NO_MEM);
        return;
    }
    int rc = empi_shm_read(m, writer, bounce, src, n);
    if (rc == MPI_SUCCESS)
        empi_coll_copy(bounce, (MPI_Count)n, empi_byte_type, buf, count, dt);
    note(pl, rc);
    free(bounce);
}

static void receive(empi_shm_vplan_t *pl, int writer, void *buf, MPI_Count count, empi_datatype_t *dt)
{
    empi_comm_t *c = pl->a->comm;
    int rc = empi_irecv(buf, count, dt, writer, *pl->tag, c, EMPI_COLL_CONTEXT(c), &pl->reqs[pl->nreqs]);
    if (rc == MPI_SUCCESS)
        pl->nreqs++;
    else
        note(pl, rc);
}

void empi_shm_v_take(struct empi_coll_shm *m, uint64_t e, int owner, int writer, empi_shm_vplan_t *pl, void *buf,
                     MPI_Count count, empi_datatype_t *dt)
{
    empi_shm_vdesc_t d;
    memcpy(&d, empi_shm_line(m, owner, e)->data, sizeof d);
    if (empi_shm_v_by_message(&d)) {
        receive(pl, writer, buf, count, dt);
        return;
    }
    if (d.way == EMPI_SHM_V_CMA) {
        read_block(m, e, owner, writer, pl, &d, buf, count, dt);
        return;
    }
    if (d.way == EMPI_SHM_V_WRITTEN) {
        if (d.offset != MPI_SUCCESS)
            note(pl, (int)d.offset);
        return;
    }
    const char *src = area(m, e, owner, writer, &d);
    if (!src)
        return;
    if ((MPI_Count)d.bytes > count * dt->size)
        note(pl, MPI_ERR_TRUNCATE);
    empi_coll_copy(src, (MPI_Count)d.bytes, empi_byte_type, buf, count, dt);
}

int empi_shm_v_take_ready(struct empi_coll_shm *m, uint64_t e, int owner, int writer, empi_shm_vplan_t *pl,
                          void *buf, MPI_Count count, empi_datatype_t *dt)
{
    if (empi_shm_posted(m, owner, e, 2 * e + 1)) {
        empi_shm_v_take(m, e, owner, writer, pl, buf, count, dt);
        pl->described++;
        return 1;
    }
    /* Whatever way the writer chose, it sends at most one message for this block: taking it
       before the descriptor is read cannot receive a block twice. */
    if (!empi_message_arrived(writer, *pl->tag, EMPI_COLL_CONTEXT(pl->a->comm)))
        return 0;
    receive(pl, writer, buf, count, dt);
    return 1;
}

int empi_shm_v_finish(empi_shm_vplan_t *pl)
{
    for (int i = 0; i < pl->nreqs; i++)
        if (!pl->reqs[i]->complete)
            return 0;
    for (int i = 0; i < pl->nreqs; i++) {
        int rc = empi_wait_release(pl->reqs[i], NULL);
        if (rc != MPI_SUCCESS)
            note(pl, rc);
    }
    pl->nreqs = 0;
    return pl->err == MPI_SUCCESS ? 1 : -pl->err;
}

empi_shm_op_t empi_shm_v_op(struct empi_coll_shm *m, empi_shm_vplan_t *pl, int (*step)(empi_shm_op_t *))
{
    return (empi_shm_op_t){.step = step, .m = m, .root = pl->a->root, .piece = 1, .plan = pl};
}
