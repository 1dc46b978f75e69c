/*
 * Queries and small calls on datatypes: size, extent, true extent, names, addresses,
 * handle/integer conversion, MPI_Type_match_size and the MPI_Type_create_f90_* family.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "comm/comm.h"
#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_build.h"

static int get_type(const char *fname, MPI_Datatype h, empi_datatype_t **dt)
{
    *dt = empi_datatype_get(h);
    if (!*dt)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: datatype is %s", fname,
                              h == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "not a valid datatype");
    return MPI_SUCCESS;
}

#define OUT_CHECK(fname, p)                                                         \
    do {                                                                            \
        if (!(p))                                                                   \
            return empi_err_noobj(MPI_ERR_ARG, "%s: %s is NULL", fname, #p);        \
    } while (0)

EMPI_WEAK_ALIAS(Type_size)
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    empi_datatype_t *dt;
    EMPI_CHECK(get_type("MPI_Type_size", datatype, &dt));
    OUT_CHECK("MPI_Type_size", size);
    *size = empi_int_or_undefined(dt->size);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_size_c)
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    empi_datatype_t *dt;
    EMPI_CHECK(get_type("MPI_Type_size_c", datatype, &dt));
    OUT_CHECK("MPI_Type_size_c", size);
    *size = dt->size;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_size_x)
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    empi_datatype_t *dt;
    EMPI_CHECK(get_type("MPI_Type_size_x", datatype, &dt));
    OUT_CHECK("MPI_Type_size_x", size);
    *size = dt->size;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_extent)
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    empi_datatype_t *dt;
    EMPI_CHECK(get_type("MPI_Type_get_extent", datatype, &dt));
    OUT_CHECK("MPI_Type_get_extent", lb);
    OUT_CHECK("MPI_Type_get_extent", extent);
    *lb = dt->lb;
    *extent = dt->extent;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_extent_c)
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    empi_datatype_t *dt;
    EMPI_CHECK(get_type("MPI_Type_get_extent_c", datatype, &dt));
    OUT_CHECK("MPI_Type_get_extent_c", lb);
    OUT_CHECK("MPI_Type_get_extent_c", extent);
    *lb = dt->lb;
    *extent = dt->extent;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_extent_x)
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    empi_datatype_t *dt;
    EMPI_CHECK(get_type("MPI_Type_get_extent_x", datatype, &dt));
    OUT_CHECK("MPI_Type_get_extent_x", lb);
    OUT_CHECK("MPI_Type_get_extent_x", extent);
    *lb = dt->lb;
    *extent = dt->extent;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_true_extent)
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    empi_datatype_t *dt;
    EMPI_CHECK(get_type("MPI_Type_get_true_extent", datatype, &dt));
    OUT_CHECK("MPI_Type_get_true_extent", true_lb);
    OUT_CHECK("MPI_Type_get_true_extent", true_extent);
    *true_lb = dt->true_lb;
    *true_extent = dt->true_ub - dt->true_lb;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_true_extent_c)
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    empi_datatype_t *dt;
    EMPI_CHECK(get_type("MPI_Type_get_true_extent_c", datatype, &dt));
    OUT_CHECK("MPI_Type_get_true_extent_c", true_lb);
    OUT_CHECK("MPI_Type_get_true_extent_c", true_extent);
    *true_lb = dt->true_lb;
    *true_extent = dt->true_ub - dt->true_lb;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_true_extent_x)
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    empi_datatype_t *dt;
    EMPI_CHECK(get_type("MPI_Type_get_true_extent_x", datatype, &dt));
    OUT_CHECK("MPI_Type_get_true_extent_x", true_lb);
    OUT_CHECK("MPI_Type_get_true_extent_x", true_extent);
    *true_lb = dt->true_lb;
    *true_extent = dt->true_ub - dt->true_lb;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_set_name)
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    empi_datatype_t *dt;
    EMPI_CHECK(get_type("MPI_Type_set_name", datatype, &dt));
    OUT_CHECK("MPI_Type_set_name", type_name);
    empi_lock();
    /* longer names are truncated, as the standard allows */
    snprintf(dt->name, sizeof dt->name, "%s", type_name);
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_name)
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    empi_datatype_t *dt;
    if (datatype == MPI_DATATYPE_NULL)
        return empi_name_of_null("MPI_Type_get_name", "MPI_DATATYPE_NULL", type_name, resultlen);
    EMPI_CHECK(get_type("MPI_Type_get_name", datatype, &dt));
    OUT_CHECK("MPI_Type_get_name", type_name);
    OUT_CHECK("MPI_Type_get_name", resultlen);
    empi_lock();
    size_t n = strnlen(dt->name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(type_name, dt->name, n);
    type_name[n] = '\0';
    empi_unlock();
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Get_address)
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    OUT_CHECK("MPI_Get_address", address);
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Aint_add)
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

EMPI_WEAK_ALIAS(Aint_diff)
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

EMPI_WEAK_ALIAS(Type_toint)
int PMPI_Type_toint(MPI_Datatype datatype)
{
    return empi_handle_toint(datatype);
}

EMPI_WEAK_ALIAS(Type_fromint)
MPI_Datatype PMPI_Type_fromint(int datatype)
{
    void *h = empi_handle_fromint(datatype);
    return h ? (MPI_Datatype)h : MPI_DATATYPE_NULL;
}

EMPI_WEAK_ALIAS(Type_match_size)
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char fname[] = "MPI_Type_match_size";
    OUT_CHECK(fname, datatype);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
        t = size == 1 ? MPI_INTEGER1 : size == 2 ? MPI_INTEGER2 : size == 4 ? MPI_INTEGER4
          : size == 8 ? MPI_INTEGER8 : size == 16 ? MPI_INTEGER16 : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_REAL:
        t = size == 2 ? MPI_REAL2 : size == 4 ? MPI_REAL4 : size == 8 ? MPI_REAL8
          : size == 16 ? MPI_REAL16 : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_COMPLEX:
        t = size == 4 ? MPI_COMPLEX4 : size == 8 ? MPI_COMPLEX8 : size == 16 ? MPI_COMPLEX16
          : size == 32 ? MPI_COMPLEX32 : MPI_DATATYPE_NULL;
        break;
    default:
        return empi_err_noobj(MPI_ERR_ARG, "%s: typeclass %d is not an MPI_TYPECLASS_ value", fname, typeclass);
    }
    if (t == MPI_DATATYPE_NULL)
        return empi_err_noobj(MPI_ERR_ARG, "%s: no type of class %d has size %d", fname, typeclass, size);
    *datatype = t;
    return MPI_SUCCESS;
}

/*
 * MPI_Type_create_f90_*: the standard makes these return types that decode as
 * MPI_COMBINER_F90_* with the (p, r) asked for, and "predefined-like" (never freed, the same
 * handle for the same arguments), so each distinct request is built once and cached.
 */
typedef struct {
    int combiner, p, r;
    MPI_Datatype handle;
} f90_entry_t;
static f90_entry_t f90_cache[64];
static int f90_used;

static int f90_type(const char *fname, int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *newtype)
{
    OUT_CHECK(fname, newtype);
    /* held throughout: two threads asking for the same type must get the same handle */
    empi_lock();
    for (int i = 0; i < f90_used; i++)
        if (f90_cache[i].combiner == combiner && f90_cache[i].p == p && f90_cache[i].r == r) {
            *newtype = f90_cache[i].handle;
            empi_unlock();
            return MPI_SUCCESS;
        }
    empi_datatype_t *old = empi_datatype_get(base), *dt = empi_dt_alloc();
    int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    empi_dt_contents_t *c = empi_contents_new(combiner, ni, 0, 0, 0);
    if (!dt || !c || f90_used == (int)(sizeof f90_cache / sizeof f90_cache[0])) {
        empi_contents_free(c);
        empi_unlock();
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    if (ni == 1)
        c->ints[0] = r;
    else
        c->ints[0] = p, c->ints[1] = r;
    *dt = *old;   /* same shape as the named type of that size */
    dt->predefined = 0;
    dt->committed = 1;
    dt->attrs = NULL;
    empi_layout_ref(old->layout);
    empi_dt_publish(fname, dt, old->layout, c, newtype);
    empi_datatype_retain(dt);   /* the cache's reference: these are never destroyed */
    f90_cache[f90_used++] = (f90_entry_t){combiner, p, r, *newtype};
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_create_f90_integer)
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    MPI_Datatype base = r <= 2 ? MPI_INTEGER1 : r <= 4 ? MPI_INTEGER2 : r <= 9 ? MPI_INTEGER4
                      : r <= 18 ? MPI_INTEGER8 : r <= 38 ? MPI_INTEGER16 : MPI_DATATYPE_NULL;
    if (base == MPI_DATATYPE_NULL)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_create_f90_integer: no integer kind has range %d", r);
    return f90_type("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, 0, r, base, newtype);
}

/* IEEE binary32/64/128 precisions and ranges; MPI_UNDEFINED means "no requirement". */
static int real_kind(int p, int r)
{
    if (p == MPI_UNDEFINED)
        p = 0;
    if (r == MPI_UNDEFINED)
        r = 0;
    if (p <= 6 && r <= 37)
        return 4;
    if (p <= 15 && r <= 307)
        return 8;
    if (p <= 33 && r <= 4931)
        return 16;
    return 0;
}

EMPI_WEAK_ALIAS(Type_create_f90_real)
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    int k = real_kind(p, r);
    if (!k)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_create_f90_real: no real kind has p=%d r=%d", p, r);
    MPI_Datatype base = k == 4 ? MPI_REAL4 : k == 8 ? MPI_REAL8 : MPI_REAL16;
    return f90_type("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, base, newtype);
}

EMPI_WEAK_ALIAS(Type_create_f90_complex)
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    int k = real_kind(p, r);
    if (!k)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_create_f90_complex: no complex kind has p=%d r=%d", p, r);
    MPI_Datatype base = k == 4 ? MPI_COMPLEX8 : k == 8 ? MPI_COMPLEX16 : MPI_COMPLEX32;
    return f90_type("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, base, newtype);
}
