/*
 * Derived datatype objects: allocation, reference counting, the bound/size bookkeeping every
 * constructor shares, and the stored constructor arguments.
 *
 * Reference counting: the user's handle holds one reference, every derived type built from a
 * type holds one (so MPI_Type_get_contents can return it), and pt2pt takes one per pending
 * operation. MPI_Type_free drops the user's; the object dies when the last one goes.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_build.h"

static empi_pool_t dt_pool = EMPI_POOL_INITIALIZER(empi_datatype_t, "datatype");

empi_datatype_t *empi_dt_alloc(void)
{
    empi_lock();
    empi_datatype_t *dt = empi_pool_alloc(&dt_pool);
    empi_unlock();
    return dt;
}

int empi_datatype_check(MPI_Datatype h, MPI_Count count, empi_datatype_t **dtp, const char **why)
{
    empi_datatype_t *dt = empi_datatype_get(h);
    *dtp = dt;
    if (!dt) {
        *why = h == MPI_DATATYPE_NULL ? "datatype is MPI_DATATYPE_NULL" : "invalid datatype";
        return MPI_ERR_TYPE;
    }
    if (!dt->committed) {
        *why = "datatype is not committed";
        return MPI_ERR_TYPE;
    }
    if (count < 0) {
        *why = "count is negative";
        return MPI_ERR_COUNT;
    }
    MPI_Count bytes;
    if (EMPI_UNLIKELY(__builtin_mul_overflow(count, dt->size, &bytes))) {
        *why = "count times the type size overflows 64 bits";
        return MPI_ERR_COUNT;
    }
    return MPI_SUCCESS;
}

int empi_dt_oldtype(const char *fname, MPI_Datatype h, empi_datatype_t **out)
{
    empi_datatype_t *dt = empi_datatype_get(h);
    if (!dt)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: oldtype is %s", fname,
                              h == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "not a valid datatype");
    *out = dt;
    return MPI_SUCCESS;
}

void empi_datatype_retain(empi_datatype_t *dt)
{
    if (dt && !dt->predefined)
        __atomic_add_fetch(&dt->obj.refcount, 1, __ATOMIC_RELAXED);
}

void empi_datatype_release(empi_datatype_t *dt)
{
    if (!dt || dt->predefined)
        return;
    if (__atomic_sub_fetch(&dt->obj.refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    empi_contents_free(dt->contents);
    empi_layout_unref(dt->layout);
    empi_lock();
    empi_pool_free(&dt_pool, dt);
    empi_unlock();
}

empi_dt_contents_t *empi_contents_new(int combiner, MPI_Count ni, MPI_Count na, MPI_Count nl,
                                      MPI_Count nd)
{
    /* one allocation for the header and its four arrays, largest alignment first */
    size_t bytes = sizeof(empi_dt_contents_t) + (size_t)na * sizeof(MPI_Aint) +
                   (size_t)nl * sizeof(MPI_Count) + (size_t)nd * (sizeof(MPI_Datatype) + sizeof(void *)) +
                   (size_t)ni * sizeof(int);
    empi_dt_contents_t *c = calloc(1, bytes);
    if (!c)
        return NULL;
    char *p = (char *)(c + 1);
    c->combiner = combiner;
    c->ni = ni, c->na = na, c->nl = nl, c->nd = nd;
    c->addrs = (MPI_Aint *)p, p += (size_t)na * sizeof(MPI_Aint);
    c->larges = (MPI_Count *)p, p += (size_t)nl * sizeof(MPI_Count);
    c->types = (MPI_Datatype *)p, p += (size_t)nd * sizeof(MPI_Datatype);
    c->type_objs = (empi_datatype_t **)p, p += (size_t)nd * sizeof(void *);
    c->ints = (int *)p;
    return c;
}

void empi_contents_free(empi_dt_contents_t *c)
{
    if (!c)
        return;
    for (MPI_Count i = 0; i < c->nd; i++)
        empi_datatype_release(c->type_objs[i]);
    free(c);
}

void empi_dt_copy_shape(empi_datatype_t *dt, const empi_datatype_t *old)
{
    dt->size = old->size;
    dt->lb = old->lb, dt->ub = old->ub, dt->extent = old->extent;
    dt->true_lb = old->true_lb, dt->true_ub = old->true_ub;
    dt->basic = old->basic;
    dt->basic_count = old->basic_count;
    dt->align = old->align;
    dt->explicit_bounds = old->explicit_bounds;
    dt->committed = old->committed;
    empi_layout_ref(old->layout);
}

int empi_dt_clone(const empi_datatype_t *old, MPI_Datatype *out)
{
    const empi_dt_contents_t *oc = old->contents;
    empi_datatype_t *dt = empi_dt_alloc();
    empi_dt_contents_t *c = empi_contents_new(oc->combiner, oc->ni, oc->na, oc->nl, oc->nd);
    if (!dt || !c) {
        empi_contents_free(c);
        if (dt)
            dt->obj.magic = EMPI_MAGIC_FREED;
        return MPI_ERR_NO_MEM;
    }
    memcpy(c->ints, oc->ints, (size_t)oc->ni * sizeof *c->ints);
    memcpy(c->addrs, oc->addrs, (size_t)oc->na * sizeof *c->addrs);
    memcpy(c->larges, oc->larges, (size_t)oc->nl * sizeof *c->larges);
    for (MPI_Count i = 0; i < oc->nd; i++)
        empi_contents_set_type(c, i, oc->type_objs[i]);
    empi_dt_copy_shape(dt, old);
    return empi_dt_publish("MPI_Type_get_contents", dt, old->layout, c, out);
}

void empi_acc_init(empi_dt_acc_t *a)
{
    memset(a, 0, sizeof *a);
}

void empi_acc_add(empi_dt_acc_t *a, const empi_datatype_t *old, MPI_Aint disp, MPI_Count count)
{
    if (count <= 0)
        return;
    bool *ovf = &a->overflow;
    MPI_Aint span = empi_dt_mul((MPI_Aint)(count - 1), old->extent, ovf);
    MPI_Aint below = span < 0 ? span : 0, above = span > 0 ? span : 0;
    MPI_Aint lb = empi_dt_add(empi_dt_add(disp, old->lb, ovf), below, ovf);
    MPI_Aint ub = empi_dt_add(empi_dt_add(disp, old->ub, ovf), above, ovf);
    MPI_Aint tlb = empi_dt_add(empi_dt_add(disp, old->true_lb, ovf), below, ovf);
    MPI_Aint tub = empi_dt_add(empi_dt_add(disp, old->true_ub, ovf), above, ovf);
    empi_dt_widen(&a->any, &a->lb, &a->ub, lb, ub);
    /* The standard's lb is the least lb marker when there is one, whatever data lies below it;
       likewise ub (MPI 4.1, 5.1.8). */
    if (old->explicit_bounds)
        empi_dt_widen(&a->any_marked, &a->mlb, &a->mub, lb, ub);
    /* true bounds describe data: a member without any does not widen them */
    if (old->size > 0)
        empi_dt_widen(&a->any_data, &a->tlb, &a->tub, tlb, tub);
    a->size = empi_dt_add(a->size, empi_dt_mul(count, old->size, ovf), ovf);
    a->basic_count = empi_dt_add(a->basic_count, empi_dt_mul(count, old->basic_count, ovf), ovf);
    if (!a->basic_set) {
        a->basic = old->basic;
        a->basic_set = true;
    } else if (a->basic != old->basic) {
        a->basic = EMPI_BASIC_NONE;
    }
}

void empi_acc_finish(const empi_dt_acc_t *a, empi_datatype_t *dt)
{
    dt->lb = a->any_marked ? a->mlb : a->lb;
    dt->ub = a->any_marked ? a->mub : a->ub;
    bool overflow = a->overflow || __builtin_sub_overflow(dt->ub, dt->lb, &dt->extent);
    dt->size = overflow ? -1 : a->size;
    /* no data at all: the true bounds collapse onto lb */
    dt->true_lb = a->any_data ? a->tlb : a->lb;
    dt->true_ub = a->any_data ? a->tub : a->lb;
    dt->basic = a->basic_set ? a->basic : EMPI_BASIC_NONE;
    dt->basic_count = a->basic_count;
}

int empi_dt_too_large(const char *fname)
{
    return empi_err_noobj(MPI_ERR_ARG, "%s: the new datatype's size or bounds do not fit in 64 bits", fname);
}

int empi_dt_publish(const char *fname, empi_datatype_t *dt, empi_dt_layout_t *layout,
                    empi_dt_contents_t *contents, MPI_Datatype *newtype)
{
    if (dt->size < 0) {
        empi_layout_unref(layout);
        empi_contents_free(contents);
        dt->obj.magic = EMPI_MAGIC_FREED;
        return empi_dt_too_large(fname);
    }
    dt->obj.magic = EMPI_MAGIC_DATATYPE;
    dt->obj.refcount = 1;
    dt->handle = (MPI_Datatype)dt;
    dt->layout = layout;
    dt->contents = contents;
    if (dt->align < 1)
        dt->align = 1;
    /* zero-copy when count elements are one run starting at true_lb */
    MPI_Aint d;
    MPI_Count len;
    if (dt->size == 0)
        dt->is_contig = 1;
    else
        dt->is_contig = dt->size == dt->extent && empi_layout_is_one_run(layout, &d, &len) &&
                        len == dt->size && d == dt->true_lb;
    *newtype = dt->handle;
    return MPI_SUCCESS;
}

void empi_datatype_finalize(void)
{
}
