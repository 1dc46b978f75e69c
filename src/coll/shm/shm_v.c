/* Block descriptors of gatherv and scatterv in shared memory (shm_v.h explains). */
#include "coll/shm/shm_v.h"
#include "pt2pt/pt2pt.h"

empi_shm_vdesc_t empi_shm_v_choose(const struct empi_coll_shm *m, MPI_Count bytes, size_t *used)
{
    empi_shm_vdesc_t d = {(uint64_t)bytes, EMPI_SHM_V_MESSAGE, 0};
    size_t at = (*used + 63) & ~(size_t)63;
    if (bytes == 0)
        d.way = EMPI_SHM_V_NONE;
    else if ((size_t)bytes <= EMPI_SHM_V_INLINE_MAX)
        d.way = EMPI_SHM_V_INLINE;
    else if (bytes <= EMPI_SHM_MEDIUM)
        d.way = EMPI_SHM_V_MEDIUM;
    else if (bytes <= EMPI_SHM_V_SLOT_MAX && at + (size_t)bytes <= m->slot) {
        d.way = EMPI_SHM_V_SLOT;
        d.offset = (uint32_t)at;
        *used = at + (size_t)bytes;
    }
    return d;
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
    memcpy(empi_shm_line(m, owner, e)->data, d, sizeof *d);
}

static void note(empi_shm_vplan_t *pl, int rc)
{
    if (pl->err == MPI_SUCCESS)
        pl->err = rc;
}

void empi_shm_v_take(struct empi_coll_shm *m, uint64_t e, int owner, int writer, empi_shm_vplan_t *pl, void *buf,
                     MPI_Count count, empi_datatype_t *dt)
{
    empi_shm_vdesc_t d;
    memcpy(&d, empi_shm_line(m, owner, e)->data, sizeof d);
    if (d.way == EMPI_SHM_V_MESSAGE) {
        empi_comm_t *c = pl->a->comm;
        int rc = empi_irecv(buf, count, dt, writer, *pl->tag, c, EMPI_COLL_CONTEXT(c), &pl->reqs[pl->nreqs]);
        if (rc == MPI_SUCCESS)
            pl->nreqs++;
        else
            note(pl, rc);
        return;
    }
    const char *src = area(m, e, owner, writer, &d);
    if (!src)
        return;
    if ((MPI_Count)d.bytes > count * dt->size)
        note(pl, MPI_ERR_TRUNCATE);
    empi_coll_copy(src, (MPI_Count)d.bytes, empi_byte_type, buf, count, dt);
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
