/*
 * "external32": the standard's portable representation. Every basic element is written big-endian
 * with the standard's size (which differs from ours for MPI_LONG/MPI_UNSIGNED_LONG: 4 bytes,
 * MPI_WCHAR: 2 bytes, and MPI_LONG_DOUBLE: IEEE binary128 instead of x87 extended precision).
 * Packing packs the native stream first, then converts it element by element, walking the
 * type's signature through its constructor arguments (see dt_elements.c for the same walk).
 */
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_internal.h"

typedef enum { CV_RAW, CV_SINT, CV_UINT, CV_SWAP, CV_LDBL } conv_t;

typedef struct {
    unsigned char nsize, esize, conv;
} comp_t;

/* One or two components per basic kind: complex numbers have two parts, pairs value + index. */
static int kind_comps(empi_basic_t b, comp_t c[2])
{
    comp_t ldbl = {sizeof(long double), 16, LDBL_MANT_DIG == 64 ? CV_LDBL : CV_SWAP};
    switch (b) {
    case EMPI_BASIC_CHAR: case EMPI_BASIC_SCHAR: case EMPI_BASIC_UCHAR: case EMPI_BASIC_BYTE:
    case EMPI_BASIC_PACKED: case EMPI_BASIC_CHARACTER: case EMPI_BASIC_C_BOOL: case EMPI_BASIC_CXX_BOOL:
    case EMPI_BASIC_INT8: case EMPI_BASIC_UINT8: case EMPI_BASIC_INTEGER1: case EMPI_BASIC_LOGICAL1:
        c[0] = (comp_t){1, 1, CV_RAW}; return 1;
    case EMPI_BASIC_WCHAR: c[0] = (comp_t){sizeof(wchar_t), 2, CV_UINT}; return 1;
    case EMPI_BASIC_SHORT: c[0] = (comp_t){sizeof(short), 2, CV_SINT}; return 1;
    case EMPI_BASIC_USHORT: c[0] = (comp_t){sizeof(short), 2, CV_UINT}; return 1;
    case EMPI_BASIC_INT: c[0] = (comp_t){sizeof(int), 4, CV_SINT}; return 1;
    case EMPI_BASIC_UINT: c[0] = (comp_t){sizeof(int), 4, CV_UINT}; return 1;
    case EMPI_BASIC_LONG: c[0] = (comp_t){sizeof(long), 4, CV_SINT}; return 1;
    case EMPI_BASIC_ULONG: c[0] = (comp_t){sizeof(long), 4, CV_UINT}; return 1;
    case EMPI_BASIC_LONG_LONG: c[0] = (comp_t){sizeof(long long), 8, CV_SINT}; return 1;
    case EMPI_BASIC_ULONG_LONG: c[0] = (comp_t){sizeof(long long), 8, CV_UINT}; return 1;
    case EMPI_BASIC_INT16: case EMPI_BASIC_INTEGER2: case EMPI_BASIC_LOGICAL2:
        c[0] = (comp_t){2, 2, CV_SINT}; return 1;
    case EMPI_BASIC_UINT16: c[0] = (comp_t){2, 2, CV_UINT}; return 1;
    case EMPI_BASIC_INT32: case EMPI_BASIC_INTEGER: case EMPI_BASIC_INTEGER4: case EMPI_BASIC_LOGICAL:
    case EMPI_BASIC_LOGICAL4:
        c[0] = (comp_t){4, 4, CV_SINT}; return 1;
    case EMPI_BASIC_UINT32: c[0] = (comp_t){4, 4, CV_UINT}; return 1;
    case EMPI_BASIC_INT64: case EMPI_BASIC_INTEGER8: case EMPI_BASIC_LOGICAL8: case EMPI_BASIC_AINT:
    case EMPI_BASIC_COUNT: case EMPI_BASIC_OFFSET:
        c[0] = (comp_t){8, 8, CV_SINT}; return 1;
    case EMPI_BASIC_UINT64: c[0] = (comp_t){8, 8, CV_UINT}; return 1;
    case EMPI_BASIC_INTEGER16: case EMPI_BASIC_LOGICAL16: c[0] = (comp_t){16, 16, CV_SWAP}; return 1;
    case EMPI_BASIC_REAL2: c[0] = (comp_t){2, 2, CV_SWAP}; return 1;
    case EMPI_BASIC_FLOAT: case EMPI_BASIC_REAL: case EMPI_BASIC_REAL4: c[0] = (comp_t){4, 4, CV_SWAP}; return 1;
    case EMPI_BASIC_DOUBLE: case EMPI_BASIC_DOUBLE_PRECISION: case EMPI_BASIC_REAL8:
        c[0] = (comp_t){8, 8, CV_SWAP}; return 1;
    case EMPI_BASIC_REAL16: c[0] = (comp_t){16, 16, CV_SWAP}; return 1;
    case EMPI_BASIC_LONG_DOUBLE: c[0] = ldbl; return 1;
    case EMPI_BASIC_COMPLEX4: c[0] = c[1] = (comp_t){2, 2, CV_SWAP}; return 2;
    case EMPI_BASIC_C_FLOAT_COMPLEX: case EMPI_BASIC_CXX_FLOAT_COMPLEX: case EMPI_BASIC_COMPLEX:
    case EMPI_BASIC_COMPLEX8:
        c[0] = c[1] = (comp_t){4, 4, CV_SWAP}; return 2;
    case EMPI_BASIC_C_DOUBLE_COMPLEX: case EMPI_BASIC_CXX_DOUBLE_COMPLEX: case EMPI_BASIC_DOUBLE_COMPLEX:
    case EMPI_BASIC_COMPLEX16:
        c[0] = c[1] = (comp_t){8, 8, CV_SWAP}; return 2;
    case EMPI_BASIC_COMPLEX32: c[0] = c[1] = (comp_t){16, 16, CV_SWAP}; return 2;
    case EMPI_BASIC_C_LONG_DOUBLE_COMPLEX: case EMPI_BASIC_CXX_LONG_DOUBLE_COMPLEX:
        c[0] = c[1] = ldbl; return 2;
    case EMPI_BASIC_FLOAT_INT: c[0] = (comp_t){4, 4, CV_SWAP}; break;
    case EMPI_BASIC_DOUBLE_INT: c[0] = (comp_t){8, 8, CV_SWAP}; break;
    case EMPI_BASIC_LONG_INT: c[0] = (comp_t){sizeof(long), 4, CV_SINT}; break;
    case EMPI_BASIC_2INT: c[0] = (comp_t){4, 4, CV_SINT}; break;
    case EMPI_BASIC_SHORT_INT: c[0] = (comp_t){sizeof(short), 2, CV_SINT}; break;
    case EMPI_BASIC_LONG_DOUBLE_INT: c[0] = ldbl; break;
    case EMPI_BASIC_2REAL: c[0] = c[1] = (comp_t){4, 4, CV_SWAP}; return 2;
    case EMPI_BASIC_2DOUBLE_PRECISION: c[0] = c[1] = (comp_t){8, 8, CV_SWAP}; return 2;
    case EMPI_BASIC_2INTEGER: c[0] = c[1] = (comp_t){4, 4, CV_SINT}; return 2;
    default: return 0;
    }
    c[1] = (comp_t){sizeof(int), 4, CV_SINT};   /* the C pairs' int index */
    return 2;
}

size_t empi_basic_external32_size(empi_basic_t b)
{
    comp_t c[2];
    int n = kind_comps(b, c);
    return n == 0 ? 0 : n == 1 ? c[0].esize : (size_t)c[0].esize + c[1].esize;
}

/* x87 80-bit extended (in 16 bytes) <-> IEEE binary128: same sign and exponent bias, and the
   64-bit explicit-integer-bit significand becomes 112 fraction bits (low 49 bits lost on return). */
static unsigned __int128 x87_to_quad(const unsigned char *p)
{
    uint64_t m;
    uint16_t se;
    memcpy(&m, p, 8);
    memcpy(&se, p + 8, 2);
    unsigned __int128 q = (unsigned __int128)se << 112;
    q |= (unsigned __int128)(m & 0x7fffffffffffffffull) << 49;
    return q;
}

static void quad_to_x87(unsigned __int128 q, unsigned char *p)
{
    uint16_t se = (uint16_t)(q >> 112);
    uint64_t m = (uint64_t)(q >> 49) & 0x7fffffffffffffffull;
    if (se & 0x7fff)
        m |= 0x8000000000000000ull;   /* normal numbers, infinities and NaNs carry the integer bit */
    memset(p, 0, sizeof(long double));
    memcpy(p, &m, 8);
    memcpy(p + 8, &se, 2);
}

static void put_be(unsigned char *out, unsigned __int128 v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        out[i] = (unsigned char)v;
}

static unsigned __int128 get_be(const unsigned char *in, int bytes)
{
    unsigned __int128 v = 0;
    for (int i = 0; i < bytes; i++)
        v = (v << 8) | in[i];
    return v;
}

/* Native little-endian bytes <-> an integer (sign-extended for CV_SINT). */
static unsigned __int128 get_le(const unsigned char *in, int bytes, int sign)
{
    unsigned __int128 v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | in[i];
    if (sign && bytes < 16 && (in[bytes - 1] & 0x80))
        v |= ~(unsigned __int128)0 << (8 * bytes);
    return v;
}

static void put_le(unsigned char *out, unsigned __int128 v, int bytes)
{
    for (int i = 0; i < bytes; i++, v >>= 8)
        out[i] = (unsigned char)v;
}

static void comp_to_ext(const comp_t *c, const unsigned char *nat, unsigned char *ext)
{
    switch (c->conv) {
    case CV_RAW: memcpy(ext, nat, c->esize); break;
    case CV_SINT: case CV_UINT: case CV_SWAP:
        put_be(ext, get_le(nat, c->nsize, c->conv == CV_SINT), c->esize);
        break;
    case CV_LDBL: put_be(ext, x87_to_quad(nat), 16); break;
    }
}

static void comp_from_ext(const comp_t *c, const unsigned char *ext, unsigned char *nat)
{
    switch (c->conv) {
    case CV_RAW: memcpy(nat, ext, c->nsize); break;
    case CV_SINT: case CV_UINT: case CV_SWAP: {
        unsigned __int128 v = get_be(ext, c->esize);
        if (c->conv == CV_SINT && c->esize < 16 && (ext[0] & 0x80))
            v |= ~(unsigned __int128)0 << (8 * c->esize);   /* widen a 4-byte long back */
        put_le(nat, v, c->nsize);
        break;
    }
    case CV_LDBL: quad_to_x87(get_be(ext, 16), nat); break;
    }
}

static MPI_Count struct_blen(const empi_dt_contents_t *c, MPI_Count i)
{
    return c->nl ? c->larges[1 + i] : c->ints[1 + i];
}

/* external32 bytes of one instance; 0 with *ok = 0 for a type with no external form */
static MPI_Count ext_size(const empi_datatype_t *dt, int *ok)
{
    if (dt->basic != EMPI_BASIC_NONE) {
        size_t s = empi_basic_external32_size(dt->basic);
        if (!s)
            *ok = 0;
        return dt->basic_count * (MPI_Count)s;
    }
    const empi_dt_contents_t *c = dt->contents;
    if (!c || c->nd == 0) {
        *ok = dt->size == 0;
        return 0;
    }
    if (c->combiner == MPI_COMBINER_STRUCT) {
        MPI_Count n = 0;
        for (MPI_Count i = 0; i < c->nd; i++)
            n += struct_blen(c, i) * ext_size(c->type_objs[i], ok);
        return n;
    }
    const empi_datatype_t *child = c->type_objs[0];
    return child->size ? dt->size / child->size * ext_size(child, ok) : 0;
}

/* Convert count instances of dt between the native stream and external32, advancing both. */
static void convert(const empi_datatype_t *dt, MPI_Count count, unsigned char **nat, unsigned char **ext,
                    int to_ext)
{
    if (dt->basic != EMPI_BASIC_NONE) {
        comp_t c[2];
        int nc = kind_comps(dt->basic, c);
        MPI_Count units = count * dt->basic_count;
        for (MPI_Count u = 0; u < units; u++)
            for (int k = 0; k < nc; k++) {
                if (to_ext)
                    comp_to_ext(&c[k], *nat, *ext);
                else
                    comp_from_ext(&c[k], *ext, *nat);
                *nat += c[k].nsize;
                *ext += c[k].esize;
            }
        return;
    }
    const empi_dt_contents_t *c = dt->contents;
    if (!c || c->nd == 0 || dt->size == 0)
        return;
    for (MPI_Count j = 0; j < count; j++) {
        if (c->combiner == MPI_COMBINER_STRUCT) {
            for (MPI_Count i = 0; i < c->nd; i++)
                convert(c->type_objs[i], struct_blen(c, i), nat, ext, to_ext);
        } else {
            const empi_datatype_t *child = c->type_objs[0];
            convert(child, dt->size / child->size, nat, ext, to_ext);
        }
    }
}

MPI_Count empi_dt_external32_size(const empi_datatype_t *dt, MPI_Count count)
{
    int ok = 1;
    MPI_Count n = count * ext_size(dt, &ok);
    return ok ? n : -1;
}

void empi_dt_external32_convert(const empi_datatype_t *dt, MPI_Count count, void *native, void *ext, int to_ext)
{
    unsigned char *n = native, *e = ext;
    convert(dt, count, &n, &e, to_ext);
}

static int check(const char *fname, const char *datarep, MPI_Datatype datatype, MPI_Count count,
                 empi_datatype_t **dt, MPI_Count *esize)
{
    if (!datarep)
        return empi_err_noobj(MPI_ERR_ARG, "%s: datarep is NULL", fname);
    if (strcasecmp(datarep, "external32") != 0)
        return empi_err_noobj(MPI_ERR_UNSUPPORTED_DATAREP, "%s: datarep \"%s\" is not \"external32\"", fname,
                              datarep);
    const char *why;
    int rc = empi_datatype_check(datatype, count, dt, &why);
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "%s: %s", fname, why);
    int ok = 1;
    *esize = count * ext_size(*dt, &ok);
    if (!ok)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: the datatype has no external32 representation", fname);
    return MPI_SUCCESS;
}

static int pack_external(const char *fname, const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    empi_datatype_t *dt;
    MPI_Count esize = 0;
    EMPI_CHECK(check(fname, datarep, datatype, incount, &dt, &esize));
    if (!position)
        return empi_err_noobj(MPI_ERR_ARG, "%s: position is NULL", fname);
    if (empi_buffer_missing(inbuf, incount, dt) || (esize > 0 && !outbuf))
        return empi_err_noobj(MPI_ERR_BUFFER, "%s: %s is NULL with data to pack", fname, outbuf ? "inbuf" : "outbuf");
    if (*position < 0 || outsize - *position < esize)
        return empi_err_noobj(MPI_ERR_TRUNCATE, "%s: %lld bytes do not fit at position %lld of a %lld-byte buffer",
                              fname, (long long)esize, (long long)*position, (long long)outsize);
    MPI_Count nsize = incount * dt->size;
    unsigned char *tmp = malloc((size_t)(nsize ? nsize : 1));
    if (!tmp)
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    empi_dt_pack(inbuf, incount, dt, 0, tmp, nsize);
    unsigned char *n = tmp, *e = (unsigned char *)outbuf + *position;
    convert(dt, incount, &n, &e, 1);
    free(tmp);
    *position += esize;
    return MPI_SUCCESS;
}

static int unpack_external(const char *fname, const char *datarep, const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype)
{
    empi_datatype_t *dt;
    MPI_Count esize = 0;
    EMPI_CHECK(check(fname, datarep, datatype, outcount, &dt, &esize));
    if (!position)
        return empi_err_noobj(MPI_ERR_ARG, "%s: position is NULL", fname);
    if (empi_buffer_missing(outbuf, outcount, dt) || (esize > 0 && !inbuf))
        return empi_err_noobj(MPI_ERR_BUFFER, "%s: %s is NULL with data to unpack", fname,
                              inbuf ? "outbuf" : "inbuf");
    if (*position < 0 || insize - *position < esize)
        return empi_err_noobj(MPI_ERR_TRUNCATE, "%s: %lld bytes wanted at position %lld of a %lld-byte buffer",
                              fname, (long long)esize, (long long)*position, (long long)insize);
    MPI_Count nsize = outcount * dt->size;
    unsigned char *tmp = malloc((size_t)(nsize ? nsize : 1));
    if (!tmp)
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    unsigned char *n = tmp, *e = (unsigned char *)inbuf + *position;
    convert(dt, outcount, &n, &e, 0);
    empi_dt_unpack(outbuf, outcount, dt, 0, tmp, nsize);
    free(tmp);
    *position += esize;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Pack_external)
int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
                       MPI_Aint outsize, MPI_Aint *position)
{
    if (!position)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Pack_external: position is NULL");
    MPI_Count pos = *position;
    int rc = pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize, &pos);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

EMPI_WEAK_ALIAS(Pack_external_c)
int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                         void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    return pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

EMPI_WEAK_ALIAS(Unpack_external)
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                         void *outbuf, int outcount, MPI_Datatype datatype)
{
    if (!position)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Unpack_external: position is NULL");
    MPI_Count pos = *position;
    int rc = unpack_external("MPI_Unpack_external", datarep, inbuf, insize, &pos, outbuf, outcount, datatype);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

EMPI_WEAK_ALIAS(Unpack_external_c)
int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
                           void *outbuf, MPI_Count outcount, MPI_Datatype datatype)
{
    return unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

EMPI_WEAK_ALIAS(Pack_external_size)
int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    empi_datatype_t *dt;
    MPI_Count esize = 0;
    EMPI_CHECK(check("MPI_Pack_external_size", datarep, datatype, incount, &dt, &esize));
    if (!size)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Pack_external_size: size is NULL");
    *size = (MPI_Aint)esize;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Pack_external_size_c)
int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype, MPI_Count *size)
{
    empi_datatype_t *dt;
    MPI_Count esize = 0;
    EMPI_CHECK(check("MPI_Pack_external_size_c", datarep, datatype, incount, &dt, &esize));
    if (!size)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Pack_external_size_c: size is NULL");
    *size = esize;
    return MPI_SUCCESS;
}
