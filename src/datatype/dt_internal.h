/*
 * Datatype engine internals shared by the files of src/datatype/ (not by other layers).
 *
 * Every datatype has a layout: a small tree describing where the bytes of ONE element live,
 * relative to the buffer origin, in the order of the packed stream. Constructors build it
 * directly (so every type, committed or not, can be measured and decoded), and normalize it on
 * the way: adjacent byte runs are merged, a block whose elements abut becomes one run, and small
 * trees are flattened into a plain list of runs. Pack/unpack walk the tree with a seek, so any
 * byte range of the stream can be produced without state.
 */
#ifndef EMPI_DT_INTERNAL_H
#define EMPI_DT_INTERNAL_H

#include <stdbool.h>

#include "datatype/datatype.h"

typedef enum {
    EMPI_NODE_RUNS,    /* n byte runs (disp[i], len[i]) */
    EMPI_NODE_VEC,     /* n copies of child, the i-th at disp0 + i*stride */
    EMPI_NODE_BLOCKS,  /* n blocks: the i-th is cnt[i] copies of kids[i] at disp[i] + j*kext[i] */
} empi_node_kind_t;

typedef struct empi_dt_layout {
    empi_node_kind_t kind;
    int refs;
    MPI_Count size;            /* packed bytes of one instance */
    MPI_Count n;
    MPI_Count *prefix;         /* RUNS/BLOCKS: stream offset where run/block i starts (n+1 entries) */
    MPI_Aint *disp;            /* RUNS/BLOCKS */
    MPI_Count *len;            /* RUNS: bytes of run i; BLOCKS: copies of kids[i] in block i */
    /* VEC */
    MPI_Aint disp0, stride;
    struct empi_dt_layout *child;
    /* BLOCKS */
    struct empi_dt_layout **kids;
    MPI_Aint *kext;
    /* one-run storage without allocation (predefined types, simple contiguous types) */
    MPI_Aint one_disp;
    MPI_Count one_len, one_prefix[2];
} empi_dt_layout_t;

/* Constructor arguments, exactly as MPI_Type_get_contents(_c) returns them. */
typedef struct empi_dt_contents {
    int combiner;
    MPI_Count ni, na, nl, nd;
    int *ints;
    MPI_Aint *addrs;
    MPI_Count *larges;
    MPI_Datatype *types;
    empi_datatype_t **type_objs;   /* retained: a derived type keeps the types it was built from */
} empi_dt_contents_t;

/* Named types and those of MPI_Type_create_f90_*, which the standard counts as predefined: they
   cannot be freed and MPI_Type_get_contents hands them out as they are. */
static inline bool empi_dt_is_named(const empi_datatype_t *dt)
{
    int k = dt->contents ? dt->contents->combiner : MPI_COMBINER_NAMED;
    return dt->predefined || k == MPI_COMBINER_F90_REAL || k == MPI_COMBINER_F90_COMPLEX ||
           k == MPI_COMBINER_F90_INTEGER;
}

/* layout construction (dt_layout.c) */
empi_dt_layout_t *empi_layout_runs(MPI_Count n, const MPI_Aint *disp, const MPI_Count *len);
empi_dt_layout_t *empi_layout_contig_run(MPI_Aint disp, MPI_Count len);
/* count copies of (child, ext) at disp0 + i*stride; each copy one instance of child */
empi_dt_layout_t *empi_layout_vec(MPI_Count count, MPI_Aint disp0, MPI_Aint stride,
                                  empi_dt_layout_t *child);
/* n blocks (disp[i], cnt[i] copies of kids[i] spaced kext[i]); arrays are copied */
empi_dt_layout_t *empi_layout_blocks(MPI_Count n, const MPI_Aint *disp, const MPI_Count *cnt,
                                     empi_dt_layout_t *const *kids, const MPI_Aint *kext);
/* count copies of dt (spaced by its extent) placed at disp: the building block of constructors */
empi_dt_layout_t *empi_layout_repeat(const empi_datatype_t *dt, MPI_Count count, MPI_Aint disp);
void empi_layout_ref(empi_dt_layout_t *l);
void empi_layout_unref(empi_dt_layout_t *l);
/* if l is one run: its displacement and length */
static inline bool empi_layout_is_one_run(const empi_dt_layout_t *l, MPI_Aint *disp, MPI_Count *len)
{
    if (l->kind != EMPI_NODE_RUNS || l->n != 1)
        return false;
    *disp = l->disp[0];
    *len = l->len[0];
    return true;
}

/* datatype objects (dt_predefined.c / dt_object.c) */
void empi_dt_table_init(void);
empi_datatype_t *empi_dt_alloc(void);
/* The error of a constructor whose type would not fit in MPI_Count/MPI_Aint. */
int empi_dt_too_large(const char *fname);
/*
 * Finish a new derived type: computes size/bounds flags from the caller-set fields, takes the
 * layout and contents, and returns its handle into *newtype. A size of -1 (the size or bounds
 * overflowed; layout may then be NULL) is refused with empi_dt_too_large, and everything is
 * released.
 */
int empi_dt_publish(const char *fname, empi_datatype_t *dt, empi_dt_layout_t *layout,
                    empi_dt_contents_t *contents, MPI_Datatype *newtype);
empi_dt_contents_t *empi_contents_new(int combiner, MPI_Count ni, MPI_Count na, MPI_Count nl,
                                      MPI_Count nd);
void empi_contents_free(empi_dt_contents_t *c);
/* dt takes old's size, bounds, basic kind, alignment, committed state and (a reference on) its
   layout: a type equal to old. */
void empi_dt_copy_shape(empi_datatype_t *dt, const empi_datatype_t *old);
/* A new derived type object equal to dt (same contents, layout and bounds; no name, no
   attributes): what MPI_Type_get_contents returns for a derived type. */
int empi_dt_clone(const empi_datatype_t *dt, MPI_Datatype *out);
/* Look up a constructor's old type: any valid type, committed or not, but not MPI_DATATYPE_NULL. */
int empi_dt_oldtype(const char *fname, MPI_Datatype h, empi_datatype_t **out);
const char *empi_basic_name(empi_basic_t b);
size_t empi_basic_size(empi_basic_t b);
bool empi_basic_is_pair(empi_basic_t b);
/* pair kinds: bytes of the value part and offset of the index part in the C struct */
void empi_pair_parts(empi_basic_t b, size_t *value_size, size_t *index_off, size_t *index_size);

/* Bounds of a new type from blocks of (disp, count copies of old): the standard's lb/ub rules. */
typedef struct {
    bool any, any_data;
    MPI_Aint lb, ub, tlb, tub;
    bool any_marked;     /* a member has lb/ub markers (resized): they alone set the bounds */
    MPI_Aint mlb, mub;
    MPI_Count size;
    MPI_Count basic_count;
    empi_basic_t basic;
    bool basic_set;
    bool overflow;       /* size or bounds do not fit: empi_acc_finish makes the size -1 */
} empi_dt_acc_t;
void empi_acc_init(empi_dt_acc_t *a);
/* [*lo, *hi) grows to cover [l, h) (*any: it holds something yet). */
static inline void empi_dt_widen(bool *any, MPI_Aint *lo, MPI_Aint *hi, MPI_Aint l, MPI_Aint h)
{
    if (!*any || l < *lo)
        *lo = l;
    if (!*any || h > *hi)
        *hi = h;
    *any = true;
}
/*
 * Constructor arithmetic on sizes and byte offsets: an overflow sets *ovf and the (wrapped) result
 * is only carried along, so that the constructor finishes its bookkeeping and empi_dt_publish
 * refuses the type instead of describing a wrapped one.
 */
static inline MPI_Aint empi_dt_mul(MPI_Aint x, MPI_Aint y, bool *ovf)
{
    MPI_Aint r;
    if (__builtin_mul_overflow(x, y, &r))
        *ovf = true;
    return r;
}
static inline MPI_Aint empi_dt_add(MPI_Aint x, MPI_Aint y, bool *ovf)
{
    MPI_Aint r;
    if (__builtin_add_overflow(x, y, &r))
        *ovf = true;
    return r;
}
/* Add `count` copies of `old`, the first at byte displacement disp, spaced by old's extent. */
void empi_acc_add(empi_dt_acc_t *a, const empi_datatype_t *old, MPI_Aint disp, MPI_Count count);
void empi_acc_finish(const empi_dt_acc_t *a, empi_datatype_t *dt);

/* external32 helpers (dt_external32.c) */
size_t empi_basic_external32_size(empi_basic_t b);

#define EMPI_DT_FLATTEN_LIMIT 256   /* runs a tree may be flattened into */

#endif
