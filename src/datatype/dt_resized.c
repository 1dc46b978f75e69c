/* MPI_Type_create_resized(_c) and MPI_Type_dup: new bounds or a new handle over the same layout. */
#include <string.h>

#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_build.h"

static int resized(const char *fname, MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                   MPI_Datatype *newtype, int large)
{
    empi_datatype_t *old;
    EMPI_CHECK(empi_dt_oldtype(fname, oldtype, &old));
    EMPI_CHECK(empi_dt_check_out(fname, newtype));
    empi_datatype_t *dt = empi_dt_alloc();
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_RESIZED, 0, large ? 0 : 2, large ? 2 : 0, 1);
    if (!dt || !c) {
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    if (large)
        c->larges[0] = lb, c->larges[1] = extent;
    else
        c->addrs[0] = lb, c->addrs[1] = extent;
    empi_contents_set_type(c, 0, old);
    /* same data, new bounds: only lb/ub/extent change (true bounds describe the data) */
    dt->size = old->size;
    dt->true_lb = old->true_lb;
    dt->true_ub = old->true_ub;
    dt->basic = old->basic;
    dt->basic_count = old->basic_count;
    dt->lb = lb;
    dt->extent = extent;
    if (__builtin_add_overflow(lb, extent, &dt->ub))
        dt->size = -1;   /* refused by empi_dt_publish */
    dt->align = old->align;
    dt->explicit_bounds = 1;
    empi_layout_ref(old->layout);
    return empi_dt_publish(fname, dt, old->layout, c, newtype);
}

EMPI_WEAK_ALIAS(Type_create_resized)
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized", oldtype, lb, extent, newtype, 0);
}

EMPI_WEAK_ALIAS(Type_create_resized_c)
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized_c", oldtype, (MPI_Aint)lb, (MPI_Aint)extent, newtype, 1);
}

EMPI_WEAK_ALIAS(Type_dup)
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fname[] = "MPI_Type_dup";
    empi_datatype_t *old;
    EMPI_CHECK(empi_dt_oldtype(fname, oldtype, &old));
    EMPI_CHECK(empi_dt_check_out(fname, newtype));
    empi_datatype_t *dt = empi_dt_alloc();
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_DUP, 0, 0, 0, 1);
    if (!dt || !c) {
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    empi_contents_set_type(c, 0, old);
    empi_dt_copy_shape(dt, old);   /* committed too: the standard wants oldtype's committed state */
    int rc = empi_dt_publish(fname, dt, old->layout, c, newtype);
    if (rc == MPI_SUCCESS)
        rc = empi_dt_copy_attrs(fname, old, dt);
    if (rc != MPI_SUCCESS)
        *newtype = MPI_DATATYPE_NULL;
    return rc;
}
