/*
 * MPI_Type_create_darray(_c): the part of a block / cyclic / undistributed global array that process
 * `rank` of a row-major grid of `psizes` owns, as index runs per dimension (empi_dt_build_array).
 */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_build.h"

static int darray(const char *fname, int size, int rank, int ndims, const MPI_Count *gsizes,
                  const int *distribs, const int *dargs, const int *psizes, int order, MPI_Datatype oldtype,
                  MPI_Datatype *newtype, empi_dt_contents_t *c)
{
    empi_datatype_t *old;
    int rc = empi_dt_oldtype(fname, oldtype, &old);
    if (rc == MPI_SUCCESS)
        rc = empi_dt_check_out(fname, newtype);
    if (rc == MPI_SUCCESS && order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        rc = empi_err_noobj(MPI_ERR_ARG, "%s: order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", fname, order);
    long long nprocs = 1;
    for (int d = 0; rc == MPI_SUCCESS && d < ndims; d++) {
        if (gsizes[d] < 1 || psizes[d] < 1)
            rc = empi_err_noobj(MPI_ERR_ARG, "%s: array_of_%s[%d] is not positive", fname,
                                gsizes[d] < 1 ? "gsizes" : "psizes", d);
        else if (distribs[d] != MPI_DISTRIBUTE_NONE && distribs[d] != MPI_DISTRIBUTE_BLOCK &&
                 distribs[d] != MPI_DISTRIBUTE_CYCLIC)
            rc = empi_err_noobj(MPI_ERR_ARG, "%s: array_of_distribs[%d] = %d is not a distribution", fname, d,
                                distribs[d]);
        else if (dargs[d] != MPI_DISTRIBUTE_DFLT_DARG && dargs[d] < 1)
            rc = empi_err_noobj(MPI_ERR_ARG, "%s: array_of_dargs[%d] = %d is not positive", fname, d, dargs[d]);
        else if (distribs[d] == MPI_DISTRIBUTE_BLOCK && dargs[d] != MPI_DISTRIBUTE_DFLT_DARG &&
                 (MPI_Count)dargs[d] * psizes[d] < gsizes[d])
            rc = empi_err_noobj(MPI_ERR_ARG, "%s: block size %d times %d processes does not cover "
                                "array_of_gsizes[%d] = %lld", fname, dargs[d], psizes[d], d, (long long)gsizes[d]);
        nprocs *= psizes[d];
    }
    if (rc == MPI_SUCCESS && nprocs != size)
        rc = empi_err_noobj(MPI_ERR_ARG, "%s: the process grid has %lld processes, size is %d", fname, nprocs, size);
    if (rc == MPI_SUCCESS && (rank < 0 || rank >= size))
        rc = empi_err_noobj(MPI_ERR_RANK, "%s: rank %d is not in [0, %d)", fname, rank, size);
    if (rc != MPI_SUCCESS) {
        empi_contents_free(c);
        return rc;
    }
    empi_dim_runs_t *dims = calloc((size_t)ndims, sizeof *dims);
    if (!dims)
        goto nomem;
    /* row-major process coordinates, whatever the array order */
    int rest = rank;
    for (int d = ndims - 1; d >= 0; d--) {
        int coord = rest % psizes[d];
        rest /= psizes[d];
        MPI_Count g = gsizes[d], p = psizes[d], b;
        switch (distribs[d]) {
        case MPI_DISTRIBUTE_BLOCK:
            b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : dargs[d];
            break;
        case MPI_DISTRIBUTE_CYCLIC:
            b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d];
            break;
        default:   /* not distributed: the whole dimension */
            b = g, p = 1, coord = 0;
            break;
        }
        /* block: at most one run; cyclic: a run every p*b indices; none: b = g, one run */
        MPI_Count step = distribs[d] == MPI_DISTRIBUTE_CYCLIC ? p * b : g;
        MPI_Count n = 0;
        for (MPI_Count s = (MPI_Count)coord * b; s < g; s += step)
            n++;
        dims[d].n = n;
        dims[d].start = malloc((size_t)(n ? n : 1) * sizeof(MPI_Count));
        dims[d].len = malloc((size_t)(n ? n : 1) * sizeof(MPI_Count));
        if (!dims[d].start || !dims[d].len)
            goto nomem;
        MPI_Count j = 0;
        for (MPI_Count s = (MPI_Count)coord * b; j < n; s += step, j++) {
            dims[d].start[j] = s;
            dims[d].len[j] = g - s < b ? g - s : b;
        }
    }
    rc = empi_dt_build_array(fname, ndims, gsizes, dims, order, old, c, newtype);
    c = NULL;
    goto out;
nomem:
    rc = empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
out:
    empi_contents_free(c);
    if (dims)
        for (int d = 0; d < ndims; d++)
            free(dims[d].start), free(dims[d].len);
    free(dims);
    return rc;
}

static int check_arrays(const char *fname, int ndims, const void *g, const int *dist, const int *dargs,
                        const int *ps)
{
    if (ndims < 1)
        return empi_err_noobj(MPI_ERR_ARG, "%s: ndims %d is not positive", fname, ndims);
    if (!g || !dist || !dargs || !ps)
        return empi_err_noobj(MPI_ERR_ARG, "%s: an argument array is NULL", fname);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_create_darray)
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                            int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fname[] = "MPI_Type_create_darray";
    EMPI_CHECK(check_arrays(fname, ndims, array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes));
    MPI_Count *g = malloc((size_t)ndims * sizeof *g);
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_DARRAY, 4 * (MPI_Count)ndims + 4, 0, 0, 1);
    if (!g || !c) {
        free(g);
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    c->ints[0] = size, c->ints[1] = rank, c->ints[2] = ndims;
    for (int d = 0; d < ndims; d++) {
        g[d] = array_of_gsizes[d];
        c->ints[3 + d] = array_of_gsizes[d];
        c->ints[3 + ndims + d] = array_of_distribs[d];
        c->ints[3 + 2 * ndims + d] = array_of_dargs[d];
        c->ints[3 + 3 * ndims + d] = array_of_psizes[d];
    }
    c->ints[3 + 4 * ndims] = order;
    if (empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    int rc = darray(fname, size, rank, ndims, g, array_of_distribs, array_of_dargs, array_of_psizes, order,
                    oldtype, newtype, c);
    free(g);
    return rc;
}

EMPI_WEAK_ALIAS(Type_create_darray_c)
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fname[] = "MPI_Type_create_darray_c";
    EMPI_CHECK(check_arrays(fname, ndims, array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes));
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_DARRAY, 3 * (MPI_Count)ndims + 4, 0, ndims, 1);
    if (!c)
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    c->ints[0] = size, c->ints[1] = rank, c->ints[2] = ndims;
    for (int d = 0; d < ndims; d++) {
        c->larges[d] = array_of_gsizes[d];
        c->ints[3 + d] = array_of_distribs[d];
        c->ints[3 + ndims + d] = array_of_dargs[d];
        c->ints[3 + 2 * ndims + d] = array_of_psizes[d];
    }
    c->ints[3 + 3 * ndims] = order;
    if (empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    return darray(fname, size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes,
                  order, oldtype, newtype, c);
}
