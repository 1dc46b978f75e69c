/*
 * Datatypes. Every layer that moves user data goes through this seam: a contiguous type is
 * moved with one memcpy from buf + true_lb, anything else is packed/unpacked as a byte stream in
 * pieces, so a large noncontiguous message never needs a buffer of its full size.
 */
#ifndef EMPI_DATATYPE_H
#define EMPI_DATATYPE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "core/object.h"
#include "mpi.h"

struct empi_attr;
struct empi_dt_layout;
struct empi_dt_contents;

/* Basic element kinds, for reductions, external32 and element counting. */
typedef enum {
    EMPI_BASIC_NONE = 0,
    EMPI_BASIC_CHAR, EMPI_BASIC_SCHAR, EMPI_BASIC_UCHAR, EMPI_BASIC_WCHAR,
    EMPI_BASIC_SHORT, EMPI_BASIC_USHORT, EMPI_BASIC_INT, EMPI_BASIC_UINT,
    EMPI_BASIC_LONG, EMPI_BASIC_ULONG, EMPI_BASIC_LONG_LONG, EMPI_BASIC_ULONG_LONG,
    EMPI_BASIC_INT8, EMPI_BASIC_UINT8, EMPI_BASIC_INT16, EMPI_BASIC_UINT16,
    EMPI_BASIC_INT32, EMPI_BASIC_UINT32, EMPI_BASIC_INT64, EMPI_BASIC_UINT64,
    EMPI_BASIC_AINT, EMPI_BASIC_COUNT, EMPI_BASIC_OFFSET,
    EMPI_BASIC_FLOAT, EMPI_BASIC_DOUBLE, EMPI_BASIC_LONG_DOUBLE,
    EMPI_BASIC_C_BOOL, EMPI_BASIC_CXX_BOOL,
    EMPI_BASIC_C_FLOAT_COMPLEX, EMPI_BASIC_C_DOUBLE_COMPLEX, EMPI_BASIC_C_LONG_DOUBLE_COMPLEX,
    EMPI_BASIC_BYTE, EMPI_BASIC_PACKED,
    /* Fortran types, sized as the ABI's companion Fortran compilers use them */
    EMPI_BASIC_LOGICAL, EMPI_BASIC_INTEGER, EMPI_BASIC_REAL, EMPI_BASIC_DOUBLE_PRECISION,
    EMPI_BASIC_COMPLEX, EMPI_BASIC_DOUBLE_COMPLEX, EMPI_BASIC_CHARACTER,
    EMPI_BASIC_LOGICAL1, EMPI_BASIC_LOGICAL2, EMPI_BASIC_LOGICAL4, EMPI_BASIC_LOGICAL8, EMPI_BASIC_LOGICAL16,
    EMPI_BASIC_INTEGER1, EMPI_BASIC_INTEGER2, EMPI_BASIC_INTEGER4, EMPI_BASIC_INTEGER8, EMPI_BASIC_INTEGER16,
    EMPI_BASIC_REAL2, EMPI_BASIC_REAL4, EMPI_BASIC_REAL8, EMPI_BASIC_REAL16,
    EMPI_BASIC_COMPLEX4, EMPI_BASIC_COMPLEX8, EMPI_BASIC_COMPLEX16, EMPI_BASIC_COMPLEX32,
    /* pair types of MINLOC/MAXLOC */
    EMPI_BASIC_FLOAT_INT, EMPI_BASIC_DOUBLE_INT, EMPI_BASIC_LONG_INT, EMPI_BASIC_2INT,
    EMPI_BASIC_SHORT_INT, EMPI_BASIC_LONG_DOUBLE_INT, EMPI_BASIC_2REAL,
    EMPI_BASIC_2DOUBLE_PRECISION, EMPI_BASIC_2INTEGER,
    EMPI_BASIC_CXX_FLOAT_COMPLEX, EMPI_BASIC_CXX_DOUBLE_COMPLEX, EMPI_BASIC_CXX_LONG_DOUBLE_COMPLEX,
    EMPI_BASIC_COUNT_OF_KINDS
} empi_basic_t;

typedef struct empi_datatype {
    empi_object_t obj;
    MPI_Datatype handle;
    MPI_Count size;              /* bytes of data in one element of this type */
    MPI_Aint lb, ub, extent;     /* extent = ub - lb */
    MPI_Aint true_lb, true_ub;
    int predefined;              /* named type: never freed */
    int committed;
    /* count elements occupy count*size contiguous bytes starting at buf + true_lb */
    int is_contig;
    /* the basic kind if every element is of one basic kind (for reductions), else EMPI_BASIC_NONE */
    empi_basic_t basic;
    MPI_Count basic_count;       /* number of basic elements per element of this type */
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Aint align;              /* alignment the struct constructor pads the extent to */
    int explicit_bounds;         /* lb/ub were set by MPI_Type_create_resized (no struct padding) */
    struct empi_attr *attrs;
    struct empi_dt_layout *layout;       /* compiled form, owned by the datatype engine */
    struct empi_dt_contents *contents;   /* constructor arguments for MPI_Type_get_contents */
} empi_datatype_t;

/* Handle -> object, NULL when invalid (MPI_DATATYPE_NULL included). */
empi_datatype_t *empi_datatype_get(MPI_Datatype h);

/*
 * Check a (count, datatype) argument pair of `fname` on `comm`-less terms: returns MPI_SUCCESS or
 * the class (MPI_ERR_TYPE for invalid/uncommitted, MPI_ERR_COUNT for negative count) and sets *dt.
 */
int empi_datatype_check(MPI_Datatype h, MPI_Count count, empi_datatype_t **dt, const char **why);

/* 1 when (buf + displ bytes, count, dt) is a NULL buffer that holds data at the bottom of the
   address space, where no process has memory. NULL is also MPI_BOTTOM: with a type (or byte
   displacement, alltoallw's) of absolute addresses its data lies far above, and that stays legal. */
static inline int empi_buffer_missing_at(const void *buf, MPI_Aint displ, MPI_Count count, const empi_datatype_t *dt)
{
    return !buf && count > 0 && dt->size > 0 && displ + dt->true_lb < 4096;
}

static inline int empi_buffer_missing(const void *buf, MPI_Count count, const empi_datatype_t *dt)
{
    return empi_buffer_missing_at(buf, 0, count, dt);
}

/* Bytes from the lowest to the highest byte `count` elements of dt touch, and the offset of the
   lowest from the buffer's address (*lo). With a negative extent the elements lie downwards, so
   the last one, not the first, holds the lowest byte. */
static inline MPI_Aint empi_dt_span(MPI_Count count, const empi_datatype_t *dt, MPI_Aint *lo)
{
    MPI_Aint step = (MPI_Aint)(count > 0 ? count - 1 : 0) * dt->extent;
    *lo = dt->true_lb + (step < 0 ? step : 0);
    return dt->true_ub - dt->true_lb + (step < 0 ? -step : step);
}

/* A count or size for an int output argument: MPI_UNDEFINED when it does not fit (the standard's
   answer for MPI_Type_size, MPI_Get_count, MPI_Pack_size, MPI_Buffer_detach ...). */
static inline int empi_int_or_undefined(MPI_Count v)
{
    return v > INT_MAX ? MPI_UNDEFINED : (int)v;
}

/* What is wrong with a buffer argument, NULL when nothing: MPI_IN_PLACE where the call (or this
   process's role in it) has no in-place form (it is (void *)1, which no NULL test catches), or
   NULL with data to move. */
static inline const char *empi_buffer_problem(const void *buf, MPI_Count count, const empi_datatype_t *dt)
{
    if (buf == MPI_IN_PLACE)
        return "is MPI_IN_PLACE, which is not allowed here";
    return empi_buffer_missing(buf, count, dt) ? "is NULL with data to move" : NULL;
}

void empi_datatype_retain(empi_datatype_t *dt);
void empi_datatype_release(empi_datatype_t *dt);

int empi_datatype_init(void);
void empi_datatype_finalize(void);

/*
 * Byte-stream seam. The packed stream of (buf, count, dt) has count * dt->size bytes.
 * empi_dt_pack copies stream bytes [offset, offset + len) into out; empi_dt_unpack copies `len`
 * bytes from `in` into stream positions [offset, offset + len) of (buf, count, dt).
 */
void empi_dt_pack(const void *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count offset,
                  void *out, MPI_Count len);
void empi_dt_unpack(void *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count offset,
                    const void *in, MPI_Count len);
/* empi_dt_pack with non-temporal stores where runs allow, fenced: for an `out` that another core
   reads next (shared rings; the choice is pt2pt/stream_choice.c's). */
void empi_dt_pack_stream(const void *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count offset,
                         void *out, MPI_Count len);

/*
 * Number of basic elements in the first `bytes` of the stream of dt, counting a trailing partial
 * element of dt by the basic elements it holds (for MPI_Get_elements); -1 when `bytes` ends inside
 * a basic element (MPI_Get_elements then gives MPI_UNDEFINED). Pair types count two (value, index).
 */
MPI_Count empi_dt_elements_in(const empi_datatype_t *dt, MPI_Count bytes);

/*
 * One element of dt as byte runs (displacement from the buffer origin, length) in stream order,
 * abutting runs merged: how the I/O layer maps a file view's stream onto the file. *disp and *len
 * are malloc'ed (the caller frees them; NULL when *n is 0). Returns MPI_SUCCESS or MPI_ERR_NO_MEM.
 */
int empi_dt_flatten(const empi_datatype_t *dt, MPI_Count *n, MPI_Aint **disp, MPI_Count **len);

/*
 * external32 for other layers (MPI-IO's "external32" data representation): the external32 bytes
 * of count elements of dt (-1 when dt has no external32 form), and the conversion of count
 * elements between dt's native packed stream and its external32 stream (to_ext: native -> ext).
 */
MPI_Count empi_dt_external32_size(const empi_datatype_t *dt, MPI_Count count);
void empi_dt_external32_convert(const empi_datatype_t *dt, MPI_Count count, void *native, void *ext, int to_ext);

/* fn on every named type dt is built from (repeats included), until one returns nonzero (returned). */
typedef int (*empi_dt_named_fn)(void *ctx, const empi_datatype_t *named);
int empi_dt_each_named(const empi_datatype_t *dt, empi_dt_named_fn fn, void *ctx);

/*
 * dt as it lies in a file where each named type it is built from has the extent fn gives (a data
 * representation that changes sizes, src/datatype/dt_file_image.c): *image is a new committed
 * type of bytes with the file's size, bounds and runs (release it); MPI_SUCCESS or fn's error.
 * empi_dt_file_extent is its extent (MPI_File_get_type_extent).
 */
typedef int (*empi_dt_file_extent_fn)(void *ctx, const empi_datatype_t *named, MPI_Aint *extent);
int empi_dt_file_image(const empi_datatype_t *dt, empi_dt_file_extent_fn fn, void *ctx, empi_datatype_t **image);
int empi_dt_file_extent(const empi_datatype_t *dt, empi_dt_file_extent_fn fn, void *ctx, MPI_Aint *extent);

/*
 * The contiguous runs of (count, dt) in packed-stream order (src/datatype/dt_runs.c): fn gets each
 * run's byte displacement from the buffer origin, its offset in the packed stream and its length.
 * Adjacent runs are merged. A nonzero return from fn stops the walk and is returned.
 */
typedef int (*empi_dt_run_fn)(void *ctx, MPI_Aint disp, MPI_Count stream_off, MPI_Count len);
int empi_dt_runs(MPI_Count count, const empi_datatype_t *dt, empi_dt_run_fn fn, void *ctx);

#endif
