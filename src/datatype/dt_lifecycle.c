/*
 * MPI_Type_commit, MPI_Type_free and attribute hand-over. The compact layout is built by the
 * constructors themselves (dt_layout.c normalizes it as each type is made), so commit only has to
 * mark the type usable for communication.
 */
#include "core/attr.h"
#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_build.h"

int empi_dt_copy_attrs(const char *fname, empi_datatype_t *old, empi_datatype_t *dt)
{
    if (!old->attrs)
        return MPI_SUCCESS;
    empi_lock();
    int rc = empi_attr_copy_all(EMPI_ATTR_TYPE, old->handle, old->attrs, dt->handle, &dt->attrs);
    empi_unlock();
    if (rc != MPI_SUCCESS) {
        empi_datatype_release(dt);
        return empi_err_noobj(rc, "%s: an attribute copy callback failed", fname);
    }
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_commit)
int PMPI_Type_commit(MPI_Datatype *datatype)
{
    if (!datatype)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_commit: datatype is NULL");
    empi_datatype_t *dt = empi_datatype_get(*datatype);
    if (!dt)
        return empi_err_noobj(MPI_ERR_TYPE, "MPI_Type_commit: datatype is not a valid datatype");
    dt->committed = 1;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_free)
int PMPI_Type_free(MPI_Datatype *datatype)
{
    if (!datatype)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_free: datatype is NULL");
    empi_datatype_t *dt = empi_datatype_get(*datatype);
    if (!dt)
        return empi_err_noobj(MPI_ERR_TYPE, "MPI_Type_free: datatype is not a valid datatype");
    if (empi_dt_is_named(dt))
        return empi_err_noobj(MPI_ERR_TYPE, "MPI_Type_free: %s is a predefined datatype",
                              dt->predefined ? dt->name : "a type of MPI_Type_create_f90_*");
    if (dt->attrs) {
        empi_lock();
        int rc = empi_attr_delete_all(EMPI_ATTR_TYPE, dt->handle, &dt->attrs);
        empi_unlock();
        if (rc != MPI_SUCCESS)
            return empi_err_noobj(rc, "MPI_Type_free: an attribute delete callback failed");
    }
    /* pending operations, derived types and handles returned by MPI_Type_get_contents hold their
       own references and keep the object alive */
    empi_datatype_release(dt);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
