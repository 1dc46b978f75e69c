/*
 * The extent of a datatype in a file whose data representation gives the named types other
 * extents (MPI_File_get_type_extent under external32 or a user representation). The standard
 * (MPI 4.1, 14.5.1) has the constructors interpret byte displacements as they are, with no
 * scaling, so the type's construction is replayed on the named types' file extents: counts and
 * strides in elements scale with them, hvector/hindexed/struct/resized bytes stay. Alignment
 * padding of structs is a memory notion and is not added in the file.
 */
#include <stdbool.h>

#include "datatype/dt_internal.h"

typedef struct {
    MPI_Aint lb, ub;
    bool marked;   /* bounds set by MPI_Type_create_resized: they alone bound an enclosing type */
} file_shape_t;

typedef struct {
    bool any, any_marked, overflow;
    MPI_Aint lb, ub, mlb, mub;
} file_bounds_t;

/* count copies of s, the first at disp, spaced by s's extent */
static void add(file_bounds_t *b, const file_shape_t *s, MPI_Aint disp, MPI_Count count)
{
    if (count <= 0)
        return;
    MPI_Aint span = empi_dt_mul(count - 1, s->ub - s->lb, &b->overflow);
    MPI_Aint lo = disp + s->lb + (span < 0 ? span : 0), hi = disp + s->ub + (span > 0 ? span : 0);
    empi_dt_widen(&b->any, &b->lb, &b->ub, lo, hi);
    if (s->marked)
        empi_dt_widen(&b->any_marked, &b->mlb, &b->mub, lo, hi);
}

/* The k-th numeric constructor argument: integers then addresses, or the large-count array of a
   large-count constructor, which holds the same arguments in the same order. */
static MPI_Aint arg(const empi_dt_contents_t *c, MPI_Count k)
{
    if (c->nl > 0)
        return (MPI_Aint)c->larges[k];
    return k < c->ni ? c->ints[k] : c->addrs[k - c->ni];
}

/* Product of the ndims array sizes at argument `first` (subarray sizes, darray gsizes). */
static MPI_Aint array_elements(file_bounds_t *b, const empi_dt_contents_t *c, bool large_sizes, MPI_Count first,
                               int ndims)
{
    MPI_Aint n = 1;
    for (int i = 0; i < ndims; i++)
        n = empi_dt_mul(large_sizes ? c->larges[i] : c->ints[first + i], n, &b->overflow);
    return n;
}

static int shape_of(const empi_datatype_t *dt, empi_dt_file_extent_fn fn, void *ctx, file_shape_t *out);

static int replay(const empi_dt_contents_t *c, empi_dt_file_extent_fn fn, void *ctx, file_shape_t *out)
{
    file_bounds_t b = {0};
    file_shape_t old = {0};
    int rc = c->nd > 0 ? shape_of(c->type_objs[0], fn, ctx, &old) : MPI_SUCCESS;   /* none: empty struct */
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint ext = old.ub - old.lb, n = arg(c, 0);
    switch (c->combiner) {
    case MPI_COMBINER_DUP:
        *out = old;
        return MPI_SUCCESS;
    case MPI_COMBINER_RESIZED:
        *out = (file_shape_t){arg(c, 0), arg(c, 0) + arg(c, 1), true};
        return MPI_SUCCESS;
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY: {
        /* both are resized to the whole array: lb 0, extent elements * old extent */
        bool sub = c->combiner == MPI_COMBINER_SUBARRAY;
        int ndims = sub ? c->ints[0] : c->ints[2];
        MPI_Aint elems = array_elements(&b, c, c->nl > 0, sub ? 1 : 3, ndims);
        *out = (file_shape_t){0, empi_dt_mul(elems, ext, &b.overflow), true};
        return b.overflow ? MPI_ERR_TYPE : MPI_SUCCESS;
    }
    case MPI_COMBINER_CONTIGUOUS:
        add(&b, &old, 0, n);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        /* the blocks lie on a line: the first and the last bound it */
        MPI_Aint stride = c->combiner == MPI_COMBINER_VECTOR ? empi_dt_mul(arg(c, 2), ext, &b.overflow) : arg(c, 2);
        add(&b, &old, 0, arg(c, 1));
        if (n > 0)
            add(&b, &old, empi_dt_mul(n - 1, stride, &b.overflow), arg(c, 1));
        break;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        for (MPI_Aint i = 0; i < n; i++) {
            MPI_Aint d = arg(c, 1 + n + i);
            add(&b, &old, c->combiner == MPI_COMBINER_INDEXED ? empi_dt_mul(d, ext, &b.overflow) : d, arg(c, 1 + i));
        }
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (MPI_Aint i = 0; i < n; i++) {
            MPI_Aint d = arg(c, 2 + i);
            add(&b, &old, c->combiner == MPI_COMBINER_INDEXED_BLOCK ? empi_dt_mul(d, ext, &b.overflow) : d, arg(c, 1));
        }
        break;
    case MPI_COMBINER_STRUCT:
        for (MPI_Aint i = 0; i < n; i++) {
            if (i > 0 && (rc = shape_of(c->type_objs[i], fn, ctx, &old)) != MPI_SUCCESS)
                return rc;
            add(&b, &old, arg(c, 1 + n + i), arg(c, 1 + i));
        }
        break;
    default:
        return MPI_ERR_TYPE;
    }
    if (b.overflow)
        return MPI_ERR_TYPE;
    *out = b.any_marked ? (file_shape_t){b.mlb, b.mub, true}
                        : (file_shape_t){b.any ? b.lb : 0, b.any ? b.ub : 0, false};
    return MPI_SUCCESS;
}

static int shape_of(const empi_datatype_t *dt, empi_dt_file_extent_fn fn, void *ctx, file_shape_t *out)
{
    if (empi_dt_is_named(dt) || !dt->contents) {
        MPI_Aint e = 0;
        int rc = fn(ctx, dt, &e);
        *out = (file_shape_t){0, e, false};
        return rc;
    }
    return replay(dt->contents, fn, ctx, out);
}

int empi_dt_file_extent(const empi_datatype_t *dt, empi_dt_file_extent_fn fn, void *ctx, MPI_Aint *extent)
{
    file_shape_t s;
    int rc = shape_of(dt, fn, ctx, &s);
    if (rc == MPI_SUCCESS)
        *extent = s.ub - s.lb;
    return rc;
}
