/*
 * MPI_Type_indexed, MPI_Type_create_hindexed, MPI_Type_create_indexed_block,
 * MPI_Type_create_hindexed_block and their large-count forms. Arguments are normalized to byte
 * displacements and block lengths, then built by empi_dt_build_blocks.
 */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_build.h"

typedef struct {
    const char *fname;
    MPI_Count count;
    /* exactly one of each pair is set, according to the binding */
    const int *blens_i;
    const MPI_Count *blens_l;
    MPI_Count blocklen;        /* for the _block forms (blens_* both NULL) */
    const int *disps_i;        /* in extents of oldtype */
    const MPI_Aint *disps_a;   /* in bytes */
    const MPI_Count *disps_l;  /* extents (indexed*_c) or bytes (hindexed*_c): see disp_bytes */
    int disp_bytes;
} idx_args_t;

static int build(const idx_args_t *a, MPI_Datatype oldtype, MPI_Datatype *newtype, empi_dt_contents_t *c)
{
    empi_datatype_t *old;
    if (a->count < 0) {
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_COUNT, "%s: count %lld is negative", a->fname, (long long)a->count);
    }
    int rc = empi_dt_oldtype(a->fname, oldtype, &old);
    if (rc == MPI_SUCCESS)
        rc = empi_dt_check_out(a->fname, newtype);
    if (rc == MPI_SUCCESS && a->count > 0 && !a->disps_i && !a->disps_a && !a->disps_l)
        rc = empi_err_noobj(MPI_ERR_ARG, "%s: array_of_displacements is NULL", a->fname);
    if (rc == MPI_SUCCESS && a->count > 0 && !a->blens_i && !a->blens_l && a->blocklen < 0)
        rc = empi_err_noobj(MPI_ERR_ARG, "%s: blocklength %lld is negative", a->fname,
                            (long long)a->blocklen);
    if (rc != MPI_SUCCESS) {
        empi_contents_free(c);
        return rc;
    }
    MPI_Count n = a->count;
    MPI_Aint *disp = malloc((size_t)(n ? n : 1) * sizeof *disp);
    MPI_Count *blen = malloc((size_t)(n ? n : 1) * sizeof *blen);
    empi_datatype_t **olds = malloc((size_t)(n ? n : 1) * sizeof *olds);
    if (!disp || !blen || !olds) {
        free(disp), free(blen), free(olds);
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", a->fname);
    }
    bool overflow = false;
    for (MPI_Count i = 0; i < n; i++) {
        blen[i] = a->blens_i ? a->blens_i[i] : a->blens_l ? a->blens_l[i] : a->blocklen;
        if (blen[i] < 0) {
            long long bad = blen[i];
            free(disp), free(blen), free(olds);
            empi_contents_free(c);
            return empi_err_noobj(MPI_ERR_ARG, "%s: array_of_blocklengths[%lld] = %lld is negative",
                                  a->fname, (long long)i, bad);
        }
        if (a->disps_i)
            disp[i] = empi_dt_mul(a->disps_i[i], old->extent, &overflow);
        else if (a->disps_a)
            disp[i] = a->disps_a[i];
        else
            disp[i] = a->disp_bytes ? (MPI_Aint)a->disps_l[i]
                                    : empi_dt_mul((MPI_Aint)a->disps_l[i], old->extent, &overflow);
        olds[i] = old;
    }
    if (overflow) {
        free(disp), free(blen), free(olds);
        empi_contents_free(c);
        return empi_dt_too_large(a->fname);
    }
    rc = empi_dt_build_blocks(a->fname, n, disp, blen, olds, 0, c, newtype);
    free(disp), free(blen), free(olds);
    return rc;
}

EMPI_WEAK_ALIAS(Type_indexed)
int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    idx_args_t a = {.fname = "MPI_Type_indexed", .count = count, .blens_i = array_of_blocklengths,
                    .disps_i = array_of_displacements};
    empi_dt_contents_t *c = NULL;
    if (count == 0 || (count > 0 && array_of_blocklengths && array_of_displacements)) {
        c = empi_contents_new(MPI_COMBINER_INDEXED, 2 * (MPI_Count)count + 1, 0, 0, 1);
        if (c) {
            c->ints[0] = count;
            for (int i = 0; i < count; i++) {
                c->ints[1 + i] = array_of_blocklengths[i];
                c->ints[1 + count + i] = array_of_displacements[i];
            }
        }
    }
    if (c && empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    if (count > 0 && !array_of_blocklengths) {
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_indexed: array_of_blocklengths is NULL");
    }
    return build(&a, oldtype, newtype, c);
}

EMPI_WEAK_ALIAS(Type_indexed_c)
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    idx_args_t a = {.fname = "MPI_Type_indexed_c", .count = count, .blens_l = array_of_blocklengths,
                    .disps_l = array_of_displacements};
    empi_dt_contents_t *c = NULL;
    if (count == 0 || (count > 0 && array_of_blocklengths && array_of_displacements)) {
        c = empi_contents_new(MPI_COMBINER_INDEXED, 0, 0, 2 * count + 1, 1);
        if (c) {
            c->larges[0] = count;
            for (MPI_Count i = 0; i < count; i++) {
                c->larges[1 + i] = array_of_blocklengths[i];
                c->larges[1 + count + i] = array_of_displacements[i];
            }
        }
    }
    if (c && empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    if (count > 0 && !array_of_blocklengths) {
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_indexed_c: array_of_blocklengths is NULL");
    }
    return build(&a, oldtype, newtype, c);
}

EMPI_WEAK_ALIAS(Type_create_hindexed)
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    idx_args_t a = {.fname = "MPI_Type_create_hindexed", .count = count,
                    .blens_i = array_of_blocklengths, .disps_a = array_of_displacements};
    empi_dt_contents_t *c = NULL;
    if (count == 0 || (count > 0 && array_of_blocklengths && array_of_displacements)) {
        c = empi_contents_new(MPI_COMBINER_HINDEXED, (MPI_Count)count + 1, count, 0, 1);
        if (c) {
            c->ints[0] = count;
            for (int i = 0; i < count; i++) {
                c->ints[1 + i] = array_of_blocklengths[i];
                c->addrs[i] = array_of_displacements[i];
            }
        }
    }
    if (c && empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    if (count > 0 && !array_of_blocklengths) {
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_create_hindexed: array_of_blocklengths is NULL");
    }
    return build(&a, oldtype, newtype, c);
}

EMPI_WEAK_ALIAS(Type_create_hindexed_c)
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    idx_args_t a = {.fname = "MPI_Type_create_hindexed_c", .count = count,
                    .blens_l = array_of_blocklengths, .disps_l = array_of_displacements,
                    .disp_bytes = 1};
    empi_dt_contents_t *c = NULL;
    if (count == 0 || (count > 0 && array_of_blocklengths && array_of_displacements)) {
        c = empi_contents_new(MPI_COMBINER_HINDEXED, 0, 0, 2 * count + 1, 1);
        if (c) {
            c->larges[0] = count;
            for (MPI_Count i = 0; i < count; i++) {
                c->larges[1 + i] = array_of_blocklengths[i];
                c->larges[1 + count + i] = array_of_displacements[i];
            }
        }
    }
    if (c && empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    if (count > 0 && !array_of_blocklengths) {
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_create_hindexed_c: array_of_blocklengths is NULL");
    }
    return build(&a, oldtype, newtype, c);
}

EMPI_WEAK_ALIAS(Type_create_indexed_block)
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    idx_args_t a = {.fname = "MPI_Type_create_indexed_block", .count = count, .blocklen = blocklength,
                    .disps_i = array_of_displacements};
    empi_dt_contents_t *c = NULL;
    if (count == 0 || (count > 0 && array_of_displacements)) {
        c = empi_contents_new(MPI_COMBINER_INDEXED_BLOCK, (MPI_Count)count + 2, 0, 0, 1);
        if (c) {
            c->ints[0] = count;
            c->ints[1] = blocklength;
            for (int i = 0; i < count; i++)
                c->ints[2 + i] = array_of_displacements[i];
        }
    }
    if (c && empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    return build(&a, oldtype, newtype, c);
}

EMPI_WEAK_ALIAS(Type_create_indexed_block_c)
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    idx_args_t a = {.fname = "MPI_Type_create_indexed_block_c", .count = count,
                    .blocklen = blocklength, .disps_l = array_of_displacements};
    empi_dt_contents_t *c = NULL;
    if (count == 0 || (count > 0 && array_of_displacements)) {
        c = empi_contents_new(MPI_COMBINER_INDEXED_BLOCK, 0, 0, count + 2, 1);
        if (c) {
            c->larges[0] = count;
            c->larges[1] = blocklength;
            for (MPI_Count i = 0; i < count; i++)
                c->larges[2 + i] = array_of_displacements[i];
        }
    }
    if (c && empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    return build(&a, oldtype, newtype, c);
}

EMPI_WEAK_ALIAS(Type_create_hindexed_block)
int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    idx_args_t a = {.fname = "MPI_Type_create_hindexed_block", .count = count,
                    .blocklen = blocklength, .disps_a = array_of_displacements};
    empi_dt_contents_t *c = NULL;
    if (count == 0 || (count > 0 && array_of_displacements)) {
        c = empi_contents_new(MPI_COMBINER_HINDEXED_BLOCK, 2, count, 0, 1);
        if (c) {
            c->ints[0] = count;
            c->ints[1] = blocklength;
            for (int i = 0; i < count; i++)
                c->addrs[i] = array_of_displacements[i];
        }
    }
    if (c && empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    return build(&a, oldtype, newtype, c);
}

EMPI_WEAK_ALIAS(Type_create_hindexed_block_c)
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                      MPI_Datatype *newtype)
{
    idx_args_t a = {.fname = "MPI_Type_create_hindexed_block_c", .count = count,
                    .blocklen = blocklength, .disps_l = array_of_displacements, .disp_bytes = 1};
    empi_dt_contents_t *c = NULL;
    if (count == 0 || (count > 0 && array_of_displacements)) {
        c = empi_contents_new(MPI_COMBINER_HINDEXED_BLOCK, 0, 0, count + 2, 1);
        if (c) {
            c->larges[0] = count;
            c->larges[1] = blocklength;
            for (MPI_Count i = 0; i < count; i++)
                c->larges[2 + i] = array_of_displacements[i];
        }
    }
    if (c && empi_datatype_get(oldtype))
        empi_contents_set_type(c, 0, empi_datatype_get(oldtype));
    return build(&a, oldtype, newtype, c);
}
