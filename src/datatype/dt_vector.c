/* MPI_Type_contiguous, MPI_Type_vector, MPI_Type_create_hvector and their large-count forms. */
#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_build.h"

/* count blocks of blocklen copies of old, block i at byte i*stride: the layout's loop form.
   stride_ovf: the stride in bytes did not fit (an element stride times old's extent). */
static int build_vector(const char *fname, MPI_Count count, MPI_Count blocklen, MPI_Aint stride, bool stride_ovf,
                        empi_datatype_t *old, empi_dt_contents_t *c, MPI_Datatype *newtype)
{
    empi_datatype_t *dt = empi_dt_alloc();
    if (!dt || !c) {
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    empi_dt_acc_t acc;
    empi_acc_init(&acc);
    acc.overflow = stride_ovf && count > 1;
    if (count > 0 && blocklen > 0) {
        /* bounds are linear in the block index: the first and last blocks give them */
        empi_acc_add(&acc, old, 0, blocklen);
        if (count > 1)
            empi_acc_add(&acc, old, empi_dt_mul((MPI_Aint)(count - 1), stride, &acc.overflow), blocklen);
        if (count > 2) {
            MPI_Count middle = empi_dt_mul(count - 2, blocklen, &acc.overflow);
            acc.size = empi_dt_add(acc.size, empi_dt_mul(middle, old->size, &acc.overflow), &acc.overflow);
            acc.basic_count =
                empi_dt_add(acc.basic_count, empi_dt_mul(middle, old->basic_count, &acc.overflow), &acc.overflow);
        }
    }
    empi_acc_finish(&acc, dt);
    if (dt->size < 0)
        return empi_dt_publish(fname, dt, NULL, c, newtype);
    empi_dt_inherit(dt, old);
    empi_dt_layout_t *block = empi_layout_repeat(old, blocklen, 0);
    empi_dt_layout_t *l = block ? empi_layout_vec(count, 0, stride, block) : NULL;
    empi_layout_unref(block);
    if (!l) {
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    return empi_dt_publish(fname, dt, l, c, newtype);
}

static int check_args(const char *fname, MPI_Count count, MPI_Count blocklen, MPI_Datatype oldtype,
                      MPI_Datatype *newtype, empi_datatype_t **old)
{
    if (count < 0)
        return empi_err_noobj(MPI_ERR_COUNT, "%s: count %lld is negative", fname, (long long)count);
    if (blocklen < 0)
        return empi_err_noobj(MPI_ERR_ARG, "%s: blocklength %lld is negative", fname,
                              (long long)blocklen);
    EMPI_CHECK(empi_dt_oldtype(fname, oldtype, old));
    return empi_dt_check_out(fname, newtype);
}

static int contiguous(const char *fname, MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype,
                      int large)
{
    empi_datatype_t *old;
    EMPI_CHECK(check_args(fname, count, 0, oldtype, newtype, &old));
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_CONTIGUOUS, large ? 0 : 1, 0, large ? 1 : 0, 1);
    if (c) {
        if (large)
            c->larges[0] = count;
        else
            c->ints[0] = (int)count;
        empi_contents_set_type(c, 0, old);
    }
    /* one block: the stride is never stepped, and an overflow of the whole shows in the bounds */
    return build_vector(fname, count ? 1 : 0, count, 0, false, old, c, newtype);
}

EMPI_WEAK_ALIAS(Type_contiguous)
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous", count, oldtype, newtype, 0);
}

EMPI_WEAK_ALIAS(Type_contiguous_c)
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous_c", count, oldtype, newtype, 1);
}

EMPI_WEAK_ALIAS(Type_vector)
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fname[] = "MPI_Type_vector";
    empi_datatype_t *old;
    EMPI_CHECK(check_args(fname, count, blocklength, oldtype, newtype, &old));
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_VECTOR, 3, 0, 0, 1);
    if (c) {
        c->ints[0] = count, c->ints[1] = blocklength, c->ints[2] = stride;
        empi_contents_set_type(c, 0, old);
    }
    bool ovf = false;
    MPI_Aint bytes = empi_dt_mul((MPI_Aint)stride, old->extent, &ovf);
    return build_vector(fname, count, blocklength, bytes, ovf, old, c, newtype);
}

EMPI_WEAK_ALIAS(Type_vector_c)
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    static const char fname[] = "MPI_Type_vector_c";
    empi_datatype_t *old;
    EMPI_CHECK(check_args(fname, count, blocklength, oldtype, newtype, &old));
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_VECTOR, 0, 0, 3, 1);
    if (c) {
        c->larges[0] = count, c->larges[1] = blocklength, c->larges[2] = stride;
        empi_contents_set_type(c, 0, old);
    }
    bool ovf = false;
    MPI_Aint bytes = empi_dt_mul((MPI_Aint)stride, old->extent, &ovf);
    return build_vector(fname, count, blocklength, bytes, ovf, old, c, newtype);
}

EMPI_WEAK_ALIAS(Type_create_hvector)
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    static const char fname[] = "MPI_Type_create_hvector";
    empi_datatype_t *old;
    EMPI_CHECK(check_args(fname, count, blocklength, oldtype, newtype, &old));
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_HVECTOR, 2, 1, 0, 1);
    if (c) {
        c->ints[0] = count, c->ints[1] = blocklength, c->addrs[0] = stride;
        empi_contents_set_type(c, 0, old);
    }
    return build_vector(fname, count, blocklength, stride, false, old, c, newtype);
}

EMPI_WEAK_ALIAS(Type_create_hvector_c)
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fname[] = "MPI_Type_create_hvector_c";
    empi_datatype_t *old;
    EMPI_CHECK(check_args(fname, count, blocklength, oldtype, newtype, &old));
    empi_dt_contents_t *c = empi_contents_new(MPI_COMBINER_HVECTOR, 0, 0, 3, 1);
    if (c) {
        c->larges[0] = count, c->larges[1] = blocklength, c->larges[2] = stride;
        empi_contents_set_type(c, 0, old);
    }
    return build_vector(fname, count, blocklength, (MPI_Aint)stride, false, old, c, newtype);
}
