/*
 * The shared back end of the block constructors: indexed, hindexed, (h)indexed_block and struct
 * all describe "block i is blen[i] copies of type[i] at byte displacement disp[i]", so they differ
 * only in argument checking and in what MPI_Type_get_contents returns.
 */
#include <stdlib.h>

#include "core/error.h"
#include "datatype/dt_build.h"

/* Alignment and the resized-bounds flag propagate from old types to the new one. */
void empi_dt_inherit(empi_datatype_t *dt, const empi_datatype_t *old)
{
    if (old->align > dt->align)
        dt->align = old->align;
    if (old->explicit_bounds)
        dt->explicit_bounds = 1;
}

int empi_dt_build_blocks(const char *fname, MPI_Count n, const MPI_Aint *disp, const MPI_Count *blen,
                         empi_datatype_t *const *olds, int is_struct, empi_dt_contents_t *c,
                         MPI_Datatype *newtype)
{
    empi_datatype_t *dt = empi_dt_alloc();
    empi_dt_layout_t **kids = malloc((size_t)(n ? n : 1) * sizeof *kids);
    MPI_Aint *kext = malloc((size_t)(n ? n : 1) * sizeof *kext);
    if (!dt || !kids || !kext || !c) {
        free(kids), free(kext);
        empi_contents_free(c);
        if (dt)
            dt->obj.magic = EMPI_MAGIC_FREED;
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    empi_dt_acc_t acc;
    empi_acc_init(&acc);
    dt->align = 1;
    for (MPI_Count i = 0; i < n; i++) {
        empi_acc_add(&acc, olds[i], disp[i], blen[i]);
        if (blen[i] > 0)   /* an empty block puts nothing in the type map, so no alignment */
            empi_dt_inherit(dt, olds[i]);
        kids[i] = olds[i]->layout;
        kext[i] = olds[i]->extent;
    }
    empi_acc_finish(&acc, dt);
    if (dt->size >= 0 && is_struct && !dt->explicit_bounds && dt->align > 1) {
        /* the standard's epsilon: round the extent up to the strictest member alignment */
        MPI_Aint rem = dt->extent % dt->align;
        bool overflow = false;
        if (rem) {
            dt->ub = empi_dt_add(dt->ub, dt->align - rem, &overflow);
            dt->extent = empi_dt_add(dt->extent, dt->align - rem, &overflow);
        }
        if (overflow)
            dt->size = -1;
    }
    if (dt->size < 0) {   /* refused: no layout for it */
        free(kids), free(kext);
        return empi_dt_publish(fname, dt, NULL, c, newtype);
    }
    empi_dt_layout_t *l = empi_layout_blocks(n, disp, blen, kids, kext);
    free(kids), free(kext);
    if (!l) {
        empi_contents_free(c);
        dt->obj.magic = EMPI_MAGIC_FREED;
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    return empi_dt_publish(fname, dt, l, c, newtype);
}

void empi_contents_set_type(empi_dt_contents_t *c, MPI_Count i, empi_datatype_t *t)
{
    c->types[i] = t->handle;
    c->type_objs[i] = t;
    empi_datatype_retain(t);
}

int empi_dt_check_out(const char *fname, MPI_Datatype *newtype)
{
    if (!newtype)
        return empi_err_noobj(MPI_ERR_ARG, "%s: newtype is NULL", fname);
    return MPI_SUCCESS;
}
