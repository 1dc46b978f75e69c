/* MPI_Type_create_struct(_c) and MPI_Type_get_value_index (pair types from value + index). */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_build.h"

static int create_struct(const char *fname, MPI_Count count, const int *blens_i, const MPI_Count *blens_l,
                         const MPI_Aint *disps_a, const MPI_Count *disps_l, const MPI_Datatype *types,
                         MPI_Datatype *newtype)
{
    if (count < 0)
        return empi_err_noobj(MPI_ERR_COUNT, "%s: count %lld is negative", fname, (long long)count);
    EMPI_CHECK(empi_dt_check_out(fname, newtype));
    if (count > 0 && (!(blens_i || blens_l) || !(disps_a || disps_l) || !types))
        return empi_err_noobj(MPI_ERR_ARG, "%s: an argument array is NULL", fname);
    MPI_Count n = count;
    MPI_Aint *disp = malloc((size_t)(n ? n : 1) * sizeof *disp);
    MPI_Count *blen = malloc((size_t)(n ? n : 1) * sizeof *blen);
    empi_datatype_t **olds = malloc((size_t)(n ? n : 1) * sizeof *olds);
    int large = blens_l != NULL;
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_STRUCT, large ? 0 : n + 1, large ? 0 : n,
                                              large ? 2 * n + 1 : 0, n);
    int rc = MPI_SUCCESS;
    if (!disp || !blen || !olds || !c) {
        rc = empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
        goto out;
    }
    if (large)
        c->larges[0] = n;
    else
        c->ints[0] = (int)n;
    for (MPI_Count i = 0; i < n; i++) {
        blen[i] = large ? blens_l[i] : blens_i[i];
        disp[i] = large ? (MPI_Aint)disps_l[i] : disps_a[i];
        if (blen[i] < 0) {
            rc = empi_err_noobj(MPI_ERR_ARG, "%s: array_of_blocklengths[%lld] = %lld is negative", fname,
                                (long long)i, (long long)blen[i]);
            goto out;
        }
        olds[i] = empi_datatype_get(types[i]);
        if (!olds[i]) {
            rc = empi_err_noobj(MPI_ERR_TYPE, "%s: array_of_types[%lld] is not a valid datatype", fname,
                                (long long)i);
            goto out;
        }
        if (large) {
            c->larges[1 + i] = blen[i];
            c->larges[1 + n + i] = disp[i];
        } else {
            c->ints[1 + i] = (int)blen[i];
            c->addrs[i] = disp[i];
        }
        empi_contents_set_type(c, i, olds[i]);
    }
    rc = empi_dt_build_blocks(fname, n, disp, blen, olds, 1, c, newtype);
    c = NULL;
out:
    empi_contents_free(c);
    free(disp), free(blen), free(olds);
    return rc;
}

EMPI_WEAK_ALIAS(Type_create_struct)
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                            MPI_Datatype *newtype)
{
    return create_struct("MPI_Type_create_struct", count, array_of_blocklengths, NULL,
                         array_of_displacements, NULL, array_of_types, newtype);
}

EMPI_WEAK_ALIAS(Type_create_struct_c)
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                              MPI_Datatype *newtype)
{
    static const MPI_Count none[1];
    return create_struct("MPI_Type_create_struct_c", count, NULL,
                         array_of_blocklengths ? array_of_blocklengths : (count ? NULL : none), NULL,
                         array_of_displacements ? array_of_displacements : (count ? NULL : none),
                         array_of_types, newtype);
}

/*
 * MPI-4.1: the predefined pair type for (value, index) when one exists, MPI_DATATYPE_NULL for any
 * other combination. The Fortran pairs answer only to their Fortran value and index types.
 */
EMPI_WEAK_ALIAS(Type_get_value_index)
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type)
{
    static const char fname[] = "MPI_Type_get_value_index";
    static const struct { MPI_Datatype v, i, pair; } known[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT}, {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT}, {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT}, {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_REAL, MPI_REAL, MPI_2REAL}, {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
    };
    if (!pair_type)
        return empi_err_noobj(MPI_ERR_ARG, "%s: pair_type is NULL", fname);
    empi_datatype_t *v = empi_datatype_get(value_type), *ix = empi_datatype_get(index_type);
    /* a derived type is valid here too: no predefined pair has it */
    if (!v)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: value_type is not a valid datatype", fname);
    if (!ix)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: index_type is not a valid datatype", fname);
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (known[k].v == value_type && known[k].i == index_type) {
            *pair_type = known[k].pair;
            return MPI_SUCCESS;
        }
    *pair_type = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
