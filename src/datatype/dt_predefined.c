/*
 * Named datatypes: static objects indexed by their ABI handle value (0x200..0x2ff), so turning a
 * predefined handle into its object is an array lookup. Sizes follow the C types (and the ABI's
 * Fortran sizes); pair types take the layout of the C struct the standard describes.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "datatype/dt_internal.h"

#define EMPI_DT_BASE 0x200u
#define EMPI_DT_SLOTS 0x100u

typedef struct {
    unsigned handle;
    empi_basic_t basic;
    const char *name;
} predef_desc_t;

static const predef_desc_t predef_descs[] = {
    {0x201, EMPI_BASIC_AINT, "MPI_AINT"},
    {0x202, EMPI_BASIC_COUNT, "MPI_COUNT"},
    {0x203, EMPI_BASIC_OFFSET, "MPI_OFFSET"},
    {0x207, EMPI_BASIC_PACKED, "MPI_PACKED"},
    {0x208, EMPI_BASIC_SHORT, "MPI_SHORT"},
    {0x209, EMPI_BASIC_INT, "MPI_INT"},
    {0x20a, EMPI_BASIC_LONG, "MPI_LONG"},
    {0x20b, EMPI_BASIC_LONG_LONG, "MPI_LONG_LONG"},
    {0x20c, EMPI_BASIC_USHORT, "MPI_UNSIGNED_SHORT"},
    {0x20d, EMPI_BASIC_UINT, "MPI_UNSIGNED"},
    {0x20e, EMPI_BASIC_ULONG, "MPI_UNSIGNED_LONG"},
    {0x20f, EMPI_BASIC_ULONG_LONG, "MPI_UNSIGNED_LONG_LONG"},
    {0x210, EMPI_BASIC_FLOAT, "MPI_FLOAT"},
    {0x212, EMPI_BASIC_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX"},
    {0x213, EMPI_BASIC_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX"},
    {0x214, EMPI_BASIC_DOUBLE, "MPI_DOUBLE"},
    {0x216, EMPI_BASIC_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
    {0x217, EMPI_BASIC_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX"},
    {0x218, EMPI_BASIC_LOGICAL, "MPI_LOGICAL"},
    {0x219, EMPI_BASIC_INTEGER, "MPI_INTEGER"},
    {0x21a, EMPI_BASIC_REAL, "MPI_REAL"},
    {0x21b, EMPI_BASIC_COMPLEX, "MPI_COMPLEX"},
    {0x21c, EMPI_BASIC_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION"},
    {0x21d, EMPI_BASIC_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX"},
    {0x21e, EMPI_BASIC_CHARACTER, "MPI_CHARACTER"},
    {0x220, EMPI_BASIC_LONG_DOUBLE, "MPI_LONG_DOUBLE"},
    {0x224, EMPI_BASIC_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"},
    {0x225, EMPI_BASIC_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
    {0x228, EMPI_BASIC_FLOAT_INT, "MPI_FLOAT_INT"},
    {0x229, EMPI_BASIC_DOUBLE_INT, "MPI_DOUBLE_INT"},
    {0x22a, EMPI_BASIC_LONG_INT, "MPI_LONG_INT"},
    {0x22b, EMPI_BASIC_2INT, "MPI_2INT"},
    {0x22c, EMPI_BASIC_SHORT_INT, "MPI_SHORT_INT"},
    {0x22d, EMPI_BASIC_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"},
    {0x230, EMPI_BASIC_2REAL, "MPI_2REAL"},
    {0x231, EMPI_BASIC_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"},
    {0x232, EMPI_BASIC_2INTEGER, "MPI_2INTEGER"},
    {0x238, EMPI_BASIC_C_BOOL, "MPI_C_BOOL"},
    {0x239, EMPI_BASIC_CXX_BOOL, "MPI_CXX_BOOL"},
    {0x23c, EMPI_BASIC_WCHAR, "MPI_WCHAR"},
    {0x240, EMPI_BASIC_INT8, "MPI_INT8_T"},
    {0x241, EMPI_BASIC_UINT8, "MPI_UINT8_T"},
    {0x243, EMPI_BASIC_CHAR, "MPI_CHAR"},
    {0x244, EMPI_BASIC_SCHAR, "MPI_SIGNED_CHAR"},
    {0x245, EMPI_BASIC_UCHAR, "MPI_UNSIGNED_CHAR"},
    {0x247, EMPI_BASIC_BYTE, "MPI_BYTE"},
    {0x248, EMPI_BASIC_INT16, "MPI_INT16_T"},
    {0x249, EMPI_BASIC_UINT16, "MPI_UINT16_T"},
    {0x250, EMPI_BASIC_INT32, "MPI_INT32_T"},
    {0x251, EMPI_BASIC_UINT32, "MPI_UINT32_T"},
    {0x258, EMPI_BASIC_INT64, "MPI_INT64_T"},
    {0x259, EMPI_BASIC_UINT64, "MPI_UINT64_T"},
    {0x2c0, EMPI_BASIC_LOGICAL1, "MPI_LOGICAL1"},
    {0x2c1, EMPI_BASIC_INTEGER1, "MPI_INTEGER1"},
    {0x2c8, EMPI_BASIC_LOGICAL2, "MPI_LOGICAL2"},
    {0x2c9, EMPI_BASIC_INTEGER2, "MPI_INTEGER2"},
    {0x2ca, EMPI_BASIC_REAL2, "MPI_REAL2"},
    {0x2d0, EMPI_BASIC_LOGICAL4, "MPI_LOGICAL4"},
    {0x2d1, EMPI_BASIC_INTEGER4, "MPI_INTEGER4"},
    {0x2d2, EMPI_BASIC_REAL4, "MPI_REAL4"},
    {0x2d3, EMPI_BASIC_COMPLEX4, "MPI_COMPLEX4"},
    {0x2d8, EMPI_BASIC_LOGICAL8, "MPI_LOGICAL8"},
    {0x2d9, EMPI_BASIC_INTEGER8, "MPI_INTEGER8"},
    {0x2da, EMPI_BASIC_REAL8, "MPI_REAL8"},
    {0x2db, EMPI_BASIC_COMPLEX8, "MPI_COMPLEX8"},
    {0x2e0, EMPI_BASIC_LOGICAL16, "MPI_LOGICAL16"},
    {0x2e1, EMPI_BASIC_INTEGER16, "MPI_INTEGER16"},
    {0x2e2, EMPI_BASIC_REAL16, "MPI_REAL16"},
    {0x2e3, EMPI_BASIC_COMPLEX16, "MPI_COMPLEX16"},
    {0x2eb, EMPI_BASIC_COMPLEX32, "MPI_COMPLEX32"},
};

/* Size and alignment of each kind's C representation (pairs: of the whole struct). */
typedef struct { unsigned char size, align; } kind_shape_t;

#define SHAPE(T) {sizeof(T), alignof(T)}
#define PAIR_SHAPE(V, I) {sizeof(struct { V v; I i; }), alignof(struct { V v; I i; })}

static const kind_shape_t kind_shapes[EMPI_BASIC_COUNT_OF_KINDS] = {
    [EMPI_BASIC_CHAR] = SHAPE(char), [EMPI_BASIC_SCHAR] = SHAPE(signed char),
    [EMPI_BASIC_UCHAR] = SHAPE(unsigned char), [EMPI_BASIC_WCHAR] = SHAPE(wchar_t),
    [EMPI_BASIC_SHORT] = SHAPE(short), [EMPI_BASIC_USHORT] = SHAPE(unsigned short),
    [EMPI_BASIC_INT] = SHAPE(int), [EMPI_BASIC_UINT] = SHAPE(unsigned),
    [EMPI_BASIC_LONG] = SHAPE(long), [EMPI_BASIC_ULONG] = SHAPE(unsigned long),
    [EMPI_BASIC_LONG_LONG] = SHAPE(long long), [EMPI_BASIC_ULONG_LONG] = SHAPE(unsigned long long),
    [EMPI_BASIC_INT8] = SHAPE(int8_t), [EMPI_BASIC_UINT8] = SHAPE(uint8_t),
    [EMPI_BASIC_INT16] = SHAPE(int16_t), [EMPI_BASIC_UINT16] = SHAPE(uint16_t),
    [EMPI_BASIC_INT32] = SHAPE(int32_t), [EMPI_BASIC_UINT32] = SHAPE(uint32_t),
    [EMPI_BASIC_INT64] = SHAPE(int64_t), [EMPI_BASIC_UINT64] = SHAPE(uint64_t),
    [EMPI_BASIC_AINT] = SHAPE(MPI_Aint), [EMPI_BASIC_COUNT] = SHAPE(MPI_Count),
    [EMPI_BASIC_OFFSET] = SHAPE(MPI_Offset),
    [EMPI_BASIC_FLOAT] = SHAPE(float), [EMPI_BASIC_DOUBLE] = SHAPE(double),
    [EMPI_BASIC_LONG_DOUBLE] = SHAPE(long double),
    [EMPI_BASIC_C_BOOL] = SHAPE(_Bool), [EMPI_BASIC_CXX_BOOL] = SHAPE(_Bool),
    [EMPI_BASIC_C_FLOAT_COMPLEX] = SHAPE(float _Complex),
    [EMPI_BASIC_C_DOUBLE_COMPLEX] = SHAPE(double _Complex),
    [EMPI_BASIC_C_LONG_DOUBLE_COMPLEX] = SHAPE(long double _Complex),
    [EMPI_BASIC_CXX_FLOAT_COMPLEX] = SHAPE(float _Complex),
    [EMPI_BASIC_CXX_DOUBLE_COMPLEX] = SHAPE(double _Complex),
    [EMPI_BASIC_CXX_LONG_DOUBLE_COMPLEX] = SHAPE(long double _Complex),
    [EMPI_BASIC_BYTE] = {1, 1}, [EMPI_BASIC_PACKED] = {1, 1},
    [EMPI_BASIC_LOGICAL] = {4, 4}, [EMPI_BASIC_INTEGER] = {4, 4}, [EMPI_BASIC_REAL] = {4, 4},
    [EMPI_BASIC_DOUBLE_PRECISION] = {8, 8}, [EMPI_BASIC_COMPLEX] = {8, 4},
    [EMPI_BASIC_DOUBLE_COMPLEX] = {16, 8}, [EMPI_BASIC_CHARACTER] = {1, 1},
    [EMPI_BASIC_LOGICAL1] = {1, 1}, [EMPI_BASIC_LOGICAL2] = {2, 2}, [EMPI_BASIC_LOGICAL4] = {4, 4},
    [EMPI_BASIC_LOGICAL8] = {8, 8}, [EMPI_BASIC_LOGICAL16] = {16, 16},
    [EMPI_BASIC_INTEGER1] = {1, 1}, [EMPI_BASIC_INTEGER2] = {2, 2}, [EMPI_BASIC_INTEGER4] = {4, 4},
    [EMPI_BASIC_INTEGER8] = {8, 8}, [EMPI_BASIC_INTEGER16] = {16, 16},
    [EMPI_BASIC_REAL2] = {2, 2}, [EMPI_BASIC_REAL4] = {4, 4}, [EMPI_BASIC_REAL8] = {8, 8},
    [EMPI_BASIC_REAL16] = {16, 16},
    [EMPI_BASIC_COMPLEX4] = {4, 2}, [EMPI_BASIC_COMPLEX8] = {8, 4}, [EMPI_BASIC_COMPLEX16] = {16, 8},
    [EMPI_BASIC_COMPLEX32] = {32, 16},
    [EMPI_BASIC_FLOAT_INT] = PAIR_SHAPE(float, int), [EMPI_BASIC_DOUBLE_INT] = PAIR_SHAPE(double, int),
    [EMPI_BASIC_LONG_INT] = PAIR_SHAPE(long, int), [EMPI_BASIC_2INT] = PAIR_SHAPE(int, int),
    [EMPI_BASIC_SHORT_INT] = PAIR_SHAPE(short, int),
    [EMPI_BASIC_LONG_DOUBLE_INT] = PAIR_SHAPE(long double, int),
    [EMPI_BASIC_2REAL] = {8, 4}, [EMPI_BASIC_2DOUBLE_PRECISION] = {16, 8}, [EMPI_BASIC_2INTEGER] = {8, 4},
};

bool empi_basic_is_pair(empi_basic_t b)
{
    return (b >= EMPI_BASIC_FLOAT_INT && b <= EMPI_BASIC_2INTEGER);
}

void empi_pair_parts(empi_basic_t b, size_t *value_size, size_t *index_off, size_t *index_size)
{
    size_t vs, io, is = sizeof(int);
    switch (b) {
    case EMPI_BASIC_FLOAT_INT: vs = sizeof(float); io = offsetof(struct { float v; int i; }, i); break;
    case EMPI_BASIC_DOUBLE_INT: vs = sizeof(double); io = offsetof(struct { double v; int i; }, i); break;
    case EMPI_BASIC_LONG_INT: vs = sizeof(long); io = offsetof(struct { long v; int i; }, i); break;
    case EMPI_BASIC_2INT: vs = sizeof(int); io = offsetof(struct { int v; int i; }, i); break;
    case EMPI_BASIC_SHORT_INT: vs = sizeof(short); io = offsetof(struct { short v; int i; }, i); break;
    case EMPI_BASIC_LONG_DOUBLE_INT:
        vs = sizeof(long double); io = offsetof(struct { long double v; int i; }, i); break;
    case EMPI_BASIC_2REAL: case EMPI_BASIC_2INTEGER: vs = 4; io = 4; is = 4; break;
    case EMPI_BASIC_2DOUBLE_PRECISION: vs = 8; io = 8; is = 8; break;
    default: vs = io = is = 0; break;
    }
    if (value_size) *value_size = vs;
    if (index_off) *index_off = io;
    if (index_size) *index_size = is;
}

size_t empi_basic_size(empi_basic_t b)
{
    if (empi_basic_is_pair(b)) {
        size_t vs, is;
        empi_pair_parts(b, &vs, NULL, &is);
        return vs + is;
    }
    return (b > EMPI_BASIC_NONE && b < EMPI_BASIC_COUNT_OF_KINDS) ? kind_shapes[b].size : 0;
}

static empi_datatype_t predef_table[EMPI_DT_SLOTS];
static empi_dt_layout_t predef_layouts[EMPI_DT_SLOTS];
static const char *basic_names[EMPI_BASIC_COUNT_OF_KINDS];
static pthread_once_t predef_once = PTHREAD_ONCE_INIT;
static _Atomic int predef_ready;   /* set once the table is built: lookups skip the pthread_once call */
static void table_once(void);

static inline void table_ensure(void)
{
    if (__builtin_expect(!atomic_load_explicit(&predef_ready, memory_order_acquire), 0))
        pthread_once(&predef_once, table_once);
}

const char *empi_basic_name(empi_basic_t b)
{
    table_ensure();
    return (b > EMPI_BASIC_NONE && b < EMPI_BASIC_COUNT_OF_KINDS && basic_names[b]) ? basic_names[b] : "?";
}

static void set_run_layout(empi_dt_layout_t *l, MPI_Count len)
{
    l->kind = EMPI_NODE_RUNS;
    l->refs = 1 << 30;   /* static: never reaches zero */
    l->size = len;
    l->n = len ? 1 : 0;
    l->one_disp = 0;
    l->one_len = len;
    l->one_prefix[0] = 0;
    l->one_prefix[1] = len;
    l->disp = &l->one_disp;
    l->len = &l->one_len;
    l->prefix = l->one_prefix;
}

static void init_one(const predef_desc_t *d)
{
    empi_datatype_t *dt = &predef_table[d->handle - EMPI_DT_BASE];
    empi_dt_layout_t *l = &predef_layouts[d->handle - EMPI_DT_BASE];
    size_t full = kind_shapes[d->basic].size;
    dt->obj.magic = EMPI_MAGIC_DATATYPE;
    dt->obj.refcount = 1 << 30;
    dt->handle = (MPI_Datatype)(uintptr_t)d->handle;
    dt->predefined = 1;
    dt->committed = 1;
    dt->basic = d->basic;
    dt->basic_count = 1;
    dt->align = kind_shapes[d->basic].align;
    snprintf(dt->name, sizeof dt->name, "%s", d->name);
    if (empi_basic_is_pair(d->basic)) {
        /* the value, then the index after the struct's internal padding */
        size_t vs, io, is;
        empi_pair_parts(d->basic, &vs, &io, &is);
        dt->size = (MPI_Count)(vs + is);
        dt->true_ub = (MPI_Aint)(io + is);
        if (io == vs) {
            set_run_layout(l, dt->size);
        } else {
            MPI_Aint disp[2] = {0, (MPI_Aint)io};
            MPI_Count len[2] = {(MPI_Count)vs, (MPI_Count)is};
            empi_dt_layout_t *h = empi_layout_runs(2, disp, len);
            *l = *h;   /* two runs: the arrays stay on the heap for the life of the process */
            l->refs = 1 << 30;
            free(h);
        }
    } else {
        dt->size = (MPI_Count)full;
        dt->true_ub = (MPI_Aint)full;
        set_run_layout(l, dt->size);
    }
    dt->lb = 0;
    dt->true_lb = 0;
    dt->ub = dt->extent = (MPI_Aint)full;
    dt->is_contig = (dt->size == dt->extent);
    dt->layout = l;
}

void empi_dt_table_init(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    for (size_t i = 0; i < sizeof predef_descs / sizeof predef_descs[0]; i++) {
        init_one(&predef_descs[i]);
        if (!basic_names[predef_descs[i].basic])
            basic_names[predef_descs[i].basic] = predef_descs[i].name;
    }
}

static void table_once(void)
{
    empi_dt_table_init();
    atomic_store_explicit(&predef_ready, 1, memory_order_release);
}

empi_datatype_t *empi_datatype_get(MPI_Datatype h)
{
    if (empi_handle_is_predefined(h)) {
        uint32_t v = empi_handle_predefined_index(h);
        if (v <= EMPI_DT_BASE || v >= EMPI_DT_BASE + EMPI_DT_SLOTS)
            return NULL;
        table_ensure();
        empi_datatype_t *dt = &predef_table[v - EMPI_DT_BASE];
        return dt->predefined ? dt : NULL;
    }
    empi_datatype_t *dt = (empi_datatype_t *)h;
    if (dt->obj.magic != EMPI_MAGIC_DATATYPE)
        return NULL;
    return dt;
}

int empi_datatype_init(void)
{
    pthread_once(&predef_once, table_once);
    return MPI_SUCCESS;
}
