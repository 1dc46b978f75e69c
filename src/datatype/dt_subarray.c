/* MPI_Type_create_subarray(_c): one index run per dimension, built by empi_dt_build_array. */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_build.h"

static int subarray(const char *fname, int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                    const MPI_Count *starts, int order, MPI_Datatype oldtype, MPI_Datatype *newtype,
                    empi_dt_contents_t *c)
{
    empi_datatype_t *old;
    int rc = empi_dt_oldtype(fname, oldtype, &old);
    if (rc == MPI_SUCCESS)
        rc = empi_dt_check_out(fname, newtype);
    if (rc == MPI_SUCCESS && order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        rc = empi_err_noobj(MPI_ERR_ARG, "%s: order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", fname, order);
    for (int d = 0; rc == MPI_SUCCESS && d < ndims; d++) {
        if (sizes[d] < 1)
            rc = empi_err_noobj(MPI_ERR_ARG, "%s: array_of_sizes[%d] = %lld is not positive", fname, d,
                                (long long)sizes[d]);
        else if (subsizes[d] < 1 || subsizes[d] > sizes[d])
            rc = empi_err_noobj(MPI_ERR_ARG, "%s: array_of_subsizes[%d] = %lld is not in [1, %lld]", fname, d,
                                (long long)subsizes[d], (long long)sizes[d]);
        else if (starts[d] < 0 || starts[d] > sizes[d] - subsizes[d])
            rc = empi_err_noobj(MPI_ERR_ARG, "%s: array_of_starts[%d] = %lld is not in [0, %lld]", fname, d,
                                (long long)starts[d], (long long)(sizes[d] - subsizes[d]));
    }
    empi_dim_runs_t *dims = rc == MPI_SUCCESS ? malloc((size_t)ndims * sizeof *dims) : NULL;
    if (rc == MPI_SUCCESS && !dims)
        rc = empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    if (rc != MPI_SUCCESS) {
        empi_contents_free(c);
        return rc;
    }
    for (int d = 0; d < ndims; d++) {
        dims[d].n = 1;
        dims[d].start = (MPI_Count *)&starts[d];
        dims[d].len = (MPI_Count *)&subsizes[d];
    }
    rc = empi_dt_build_array(fname, ndims, sizes, dims, order, old, c, newtype);
    free(dims);
    return rc;
}

static int check_ndims(const char *fname, int ndims, const void *a, const void *b, const void *c)
{
    if (ndims < 1)
        return empi_err_noobj(MPI_ERR_ARG, "%s: ndims %d is not positive", fname, ndims);
    if (!a || !b || !c)
        return empi_err_noobj(MPI_ERR_ARG, "%s: an argument array is NULL", fname);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_create_subarray)
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    static const char fname[] = "MPI_Type_create_subarray";
    EMPI_CHECK(check_ndims(fname, ndims, array_of_sizes, array_of_subsizes, array_of_starts));
    MPI_Count *v = malloc((size_t)ndims * 3 * sizeof *v);
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_SUBARRAY, 3 * (MPI_Count)ndims + 2, 0, 0, 1);
    if (!v || !c) {
        free(v);
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    c->ints[0] = ndims;
    for (int d = 0; d < ndims; d++) {
        v[d] = array_of_sizes[d], v[ndims + d] = array_of_subsizes[d], v[2 * ndims + d] = array_of_starts[d];
        c->ints[1 + d] = array_of_sizes[d];
        c->ints[1 + ndims + d] = array_of_subsizes[d];
        c->ints[1 + 2 * ndims + d] = array_of_starts[d];
    }
    c->ints[1 + 3 * ndims] = order;
    if (empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    int rc = subarray(fname, ndims, v, v + ndims, v + 2 * ndims, order, oldtype, newtype, c);
    free(v);
    return rc;
}

EMPI_WEAK_ALIAS(Type_create_subarray_c)
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    static const char fname[] = "MPI_Type_create_subarray_c";
    EMPI_CHECK(check_ndims(fname, ndims, array_of_sizes, array_of_subsizes, array_of_starts));
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_SUBARRAY, 2, 0, 3 * (MPI_Count)ndims, 1);
    if (!c)
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    c->ints[0] = ndims;
    c->ints[1] = order;
    for (int d = 0; d < ndims; d++) {
        c->larges[d] = array_of_sizes[d];
        c->larges[ndims + d] = array_of_subsizes[d];
        c->larges[2 * ndims + d] = array_of_starts[d];
    }
    if (empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    return subarray(fname, ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, oldtype,
                    newtype, c);
}
