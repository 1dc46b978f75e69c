/*
 * A datatype as it lies in a file whose data representation gives the named types other extents
 * (MPI_LONG is 4 bytes in external32, a user representation may widen anything). The standard
 * (MPI 4.1, 14.5.1) has the constructors interpret their arguments as they are, with no scaling:
 * counts and strides in elements scale with the old type's file extent, hvector/hindexed/struct/
 * resized bytes stay. So the construction is replayed with every named type replaced by that many
 * bytes: the image has the file's size, extent and byte runs, and its data are bytes (struct
 * alignment padding, a memory notion, does not appear).
 */
#include <stdlib.h>

#include "datatype/dt_internal.h"

/* The k-th numeric constructor argument: integers then addresses, or the large-count array of a
   large-count constructor, which holds the same arguments in the same order. */
static MPI_Count arg(const empi_dt_contents_t *c, MPI_Count k)
{
    if (c->nl > 0)
        return c->larges[k];
    return k < c->ni ? c->ints[k] : c->addrs[k - c->ni];
}

/* Subarray and darray: their array arguments as the large-count constructors take them. */
static int array_image(const empi_dt_contents_t *c, MPI_Datatype old, MPI_Datatype *out)
{
    int sub = c->combiner == MPI_COMBINER_SUBARRAY, large = c->nl > 0;
    int nd = sub ? c->ints[0] : c->ints[2];
    MPI_Count *v = malloc(3 * (size_t)(nd ? nd : 1) * sizeof *v);
    if (!v)
        return MPI_ERR_NO_MEM;
    int rc;
    if (sub) {
        for (int i = 0; i < 3 * nd; i++)
            v[i] = large ? c->larges[i] : c->ints[1 + i];
        int order = large ? c->ints[1] : c->ints[1 + 3 * nd];
        rc = PMPI_Type_create_subarray_c(nd, v, v + nd, v + 2 * nd, order, old, out);
    } else {
        const int *rest = &c->ints[large ? 3 : 3 + nd];   /* distribs, dargs, psizes, order */
        for (int i = 0; i < nd; i++)
            v[i] = large ? c->larges[i] : c->ints[3 + i];
        rc = PMPI_Type_create_darray_c(c->ints[0], c->ints[1], nd, v, rest, rest + nd, rest + 2 * nd, rest[3 * nd],
                                       old, out);
    }
    free(v);
    return rc;
}

/* Block constructors: (block length, displacement) pairs; element displacements scale with old. */
static int blocks_image(const empi_dt_contents_t *c, const MPI_Datatype *olds, MPI_Datatype *out)
{
    MPI_Count n = arg(c, 0);
    int one_len = c->combiner == MPI_COMBINER_INDEXED_BLOCK || c->combiner == MPI_COMBINER_HINDEXED_BLOCK;
    int in_elements = c->combiner == MPI_COMBINER_INDEXED || c->combiner == MPI_COMBINER_INDEXED_BLOCK;
    MPI_Count *len = malloc((size_t)(n ? n : 1) * sizeof *len), *disp = malloc((size_t)(n ? n : 1) * sizeof *disp);
    MPI_Datatype *types = malloc((size_t)(n ? n : 1) * sizeof *types);
    int rc = MPI_ERR_NO_MEM;
    if (len && disp && types) {
        MPI_Aint lb, extent = 0;
        if (in_elements)
            PMPI_Type_get_extent(olds[0], &lb, &extent);
        for (MPI_Count i = 0; i < n; i++) {
            len[i] = one_len ? arg(c, 1) : arg(c, 1 + i);
            MPI_Count d = one_len ? arg(c, 2 + i) : arg(c, 1 + n + i);
            bool overflow = false;
            disp[i] = in_elements ? empi_dt_mul((MPI_Aint)d, extent, &overflow) : d;
            types[i] = c->combiner == MPI_COMBINER_STRUCT ? olds[i] : olds[0];
            if (overflow) {
                rc = MPI_ERR_TYPE;
                goto out;
            }
        }
        rc = PMPI_Type_create_struct_c(n, len, disp, types, out);
    }
out:
    free(len), free(disp), free(types);
    return rc;
}

static int replay(const empi_dt_contents_t *c, const MPI_Datatype *olds, MPI_Datatype *out)
{
    switch (c->combiner) {
    case MPI_COMBINER_DUP:
        return PMPI_Type_dup(olds[0], out);
    case MPI_COMBINER_RESIZED:
        return PMPI_Type_create_resized(olds[0], (MPI_Aint)arg(c, 0), (MPI_Aint)arg(c, 1), out);
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        return array_image(c, olds[0], out);
    case MPI_COMBINER_CONTIGUOUS:
        return PMPI_Type_contiguous_c(arg(c, 0), olds[0], out);
    case MPI_COMBINER_VECTOR:
        return PMPI_Type_vector_c(arg(c, 0), arg(c, 1), arg(c, 2), olds[0], out);
    case MPI_COMBINER_HVECTOR:
        return PMPI_Type_create_hvector_c(arg(c, 0), arg(c, 1), arg(c, 2), olds[0], out);
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT:
        return blocks_image(c, olds, out);
    default:
        return MPI_ERR_TYPE;
    }
}

static int image_of(const empi_datatype_t *dt, empi_dt_file_extent_fn fn, void *ctx, MPI_Datatype *out)
{
    const empi_dt_contents_t *c = dt->contents;
    if (empi_dt_is_named(dt) || !c || c->combiner == MPI_COMBINER_F90_REAL ||
        c->combiner == MPI_COMBINER_F90_COMPLEX || c->combiner == MPI_COMBINER_F90_INTEGER ||
        c->combiner == MPI_COMBINER_VALUE_INDEX) {
        MPI_Aint extent = 0;
        int rc = fn(ctx, dt, &extent);
        return rc != MPI_SUCCESS ? rc : PMPI_Type_contiguous_c(extent, MPI_BYTE, out);
    }
    MPI_Datatype *olds = calloc((size_t)(c->nd ? c->nd : 1), sizeof *olds);
    if (!olds)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (MPI_Count i = 0; i < c->nd && rc == MPI_SUCCESS; i++)
        rc = image_of(c->type_objs[i], fn, ctx, &olds[i]);
    if (rc == MPI_SUCCESS)
        rc = replay(c, olds, out);
    for (MPI_Count i = 0; i < c->nd; i++)
        if (olds[i] != MPI_DATATYPE_NULL)
            PMPI_Type_free(&olds[i]);
    free(olds);
    return rc;
}

int empi_dt_file_image(const empi_datatype_t *dt, empi_dt_file_extent_fn fn, void *ctx, empi_datatype_t **image)
{
    MPI_Datatype h = MPI_DATATYPE_NULL;
    int rc = image_of(dt, fn, ctx, &h);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(&h);
    if (rc != MPI_SUCCESS) {
        if (h != MPI_DATATYPE_NULL)
            PMPI_Type_free(&h);
        return rc;
    }
    *image = empi_datatype_get(h);   /* the handle's reference becomes the caller's */
    return MPI_SUCCESS;
}

int empi_dt_file_extent(const empi_datatype_t *dt, empi_dt_file_extent_fn fn, void *ctx, MPI_Aint *extent)
{
    empi_datatype_t *image;
    int rc = empi_dt_file_image(dt, fn, ctx, &image);
    if (rc != MPI_SUCCESS)
        return rc;
    *extent = image->extent;
    empi_datatype_release(image);
    return MPI_SUCCESS;
}
