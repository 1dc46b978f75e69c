/*
 * Datatype constructors against the standard's definitions.
 *
 * Bounds (lb, extent, true lb/extent, size) are checked against hand-computed values. Layouts are
 * checked against an independent reference: a walker that reads the type back through
 * MPI_Type_get_envelope_c/get_contents_c and enumerates its type map the way the standard
 * defines each combiner. The engine's pack (whole, and in random pieces through empi_dt_pack with
 * offsets) and unpack must agree with it byte for byte.
 */
#include <stdint.h>
#include <string.h>

#include "datatype/datatype.h"
#include "dt_test.h"
#include "mpi.h"
#include "pt2pt/request.h"

int dt_failures, dt_checks;

/* ---- reference type-map walker ------------------------------------------------------------ */

typedef struct {
    MPI_Aint off;
    MPI_Aint len;
} ref_run_t;

static ref_run_t *runs;
static size_t nruns, capruns;

static void emit(MPI_Aint off, MPI_Aint len)
{
    if (nruns == capruns) {
        capruns = capruns ? capruns * 2 : 1024;
        runs = realloc(runs, capruns * sizeof *runs);
    }
    runs[nruns++] = (ref_run_t){off, len};
}

static MPI_Aint ext_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

static void walk(MPI_Datatype t, MPI_Aint base);

static void walk_n(MPI_Datatype t, MPI_Aint base, MPI_Count n)
{
    for (MPI_Count j = 0; j < n; j++)
        walk(t, base + (MPI_Aint)j * ext_of(t));
}

/* indices owned by `coord` in one darray dimension, by brute force over the definition */
static int darray_owned(int distrib, int darg, int g, int p, int coord, int *out)
{
    int n = 0;
    for (int i = 0; i < g; i++) {
        int owner;
        if (distrib == MPI_DISTRIBUTE_NONE)
            owner = coord;
        else if (distrib == MPI_DISTRIBUTE_BLOCK) {
            int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
            owner = i / b;
        } else {
            int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
            owner = (i / b) % p;
        }
        if (owner == coord)
            out[n++] = i;
    }
    return n;
}

/* Enumerate the selected elements of an ndims array (idx lists per dim) in storage order. */
static void walk_array(MPI_Datatype old, MPI_Aint base, int nd, const MPI_Count *gs, int *const *idx,
                       const int *nidx, int order)
{
    MPI_Aint ext = ext_of(old);
    int pos[16] = {0};
    for (int d = 0; d < nd; d++)
        if (nidx[d] == 0)
            return;
    for (;;) {
        MPI_Aint lin = 0;
        if (order == MPI_ORDER_C)
            for (int d = 0; d < nd; d++)
                lin = lin * gs[d] + idx[d][pos[d]];
        else
            for (int d = nd - 1; d >= 0; d--)
                lin = lin * gs[d] + idx[d][pos[d]];
        walk(old, base + lin * ext);
        int d = order == MPI_ORDER_C ? nd - 1 : 0, step = order == MPI_ORDER_C ? -1 : 1;
        for (;; d += step) {
            if (d < 0 || d >= nd)
                return;
            if (++pos[d] < nidx[d])
                break;
            pos[d] = 0;
        }
    }
}

static void walk(MPI_Datatype t, MPI_Aint base)
{
    MPI_Count ni, na, nl, nd;
    int comb;
    MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        MPI_Count size;
        MPI_Type_size_c(t, &size);
        MPI_Aint ext = ext_of(t);
        if (size == ext) {
            emit(base, size);
        } else {   /* a padded pair: value, then the int index at the next 4-byte boundary */
            MPI_Aint vs = size - 4;
            emit(base, vs);
            emit(base + ((vs + 3) / 4) * 4, 4);
        }
        return;
    }
    int *ints = malloc((size_t)(ni + 1) * sizeof(int));
    MPI_Aint *addrs = malloc((size_t)(na + 1) * sizeof(MPI_Aint));
    MPI_Count *ls = malloc((size_t)(nl + 1) * sizeof(MPI_Count));
    MPI_Datatype *types = malloc((size_t)(nd + 1) * sizeof(MPI_Datatype));
    MPI_Type_get_contents_c(t, ni, na, nl, nd, ints, addrs, ls, types);
    int large = nl > 0;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        walk(types[0], base);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        walk_n(types[0], base, large ? ls[0] : ints[0]);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        MPI_Count count = large ? ls[0] : ints[0], bl = large ? ls[1] : ints[1];
        MPI_Aint stride = large ? ls[2] : comb == MPI_COMBINER_VECTOR ? ints[2] : addrs[0];
        if (comb == MPI_COMBINER_VECTOR)
            stride *= ext_of(types[0]);
        for (MPI_Count i = 0; i < count; i++)
            walk_n(types[0], base + i * stride, bl);
        break;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED: {
        MPI_Count count = large ? ls[0] : ints[0];
        for (MPI_Count i = 0; i < count; i++) {
            MPI_Count bl = large ? ls[1 + i] : ints[1 + i];
            MPI_Aint d = large ? ls[1 + count + i] : comb == MPI_COMBINER_INDEXED ? ints[1 + count + i] : addrs[i];
            if (comb == MPI_COMBINER_INDEXED)
                d *= ext_of(types[0]);
            walk_n(types[0], base + d, bl);
        }
        break;
    }
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
        MPI_Count count = large ? ls[0] : ints[0], bl = large ? ls[1] : ints[1];
        for (MPI_Count i = 0; i < count; i++) {
            MPI_Aint d = large ? ls[2 + i] : comb == MPI_COMBINER_INDEXED_BLOCK ? ints[2 + i] : addrs[i];
            if (comb == MPI_COMBINER_INDEXED_BLOCK)
                d *= ext_of(types[0]);
            walk_n(types[0], base + d, bl);
        }
        break;
    }
    case MPI_COMBINER_STRUCT: {
        MPI_Count count = large ? ls[0] : ints[0];
        for (MPI_Count i = 0; i < count; i++) {
            MPI_Count bl = large ? ls[1 + i] : ints[1 + i];
            MPI_Aint d = large ? ls[1 + count + i] : addrs[i];
            walk_n(types[i], base + d, bl);
        }
        break;
    }
    case MPI_COMBINER_SUBARRAY: {
        int n = ints[0], order = large ? ints[1] : ints[1 + 3 * n];
        MPI_Count gs[16] = {0};
        int *idx[16] = {0}, nidx[16] = {0};
        for (int d = 0; d < n; d++) {
            MPI_Count size = large ? ls[d] : ints[1 + d], sub = large ? ls[n + d] : ints[1 + n + d];
            MPI_Count st = large ? ls[2 * n + d] : ints[1 + 2 * n + d];
            gs[d] = size;
            idx[d] = malloc((size_t)sub * sizeof(int));
            nidx[d] = (int)sub;
            for (int k = 0; k < sub; k++)
                idx[d][k] = (int)(st + k);
        }
        walk_array(types[0], base, n, gs, idx, nidx, order);
        for (int d = 0; d < n; d++)
            free(idx[d]);
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int size = ints[0], rank = ints[1], n = ints[2];
        const int *dist = large ? &ints[3] : &ints[3 + n];
        const int *dargs = dist + n, *ps = dist + 2 * n;
        int order = ps[n];
        MPI_Count gs[16] = {0};
        int *idx[16] = {0}, nidx[16] = {0}, coords[16] = {0};
        (void)size;
        for (int d = n - 1, r = rank; d >= 0; d--) {
            coords[d] = r % ps[d];
            r /= ps[d];
        }
        for (int d = 0; d < n; d++) {
            gs[d] = large ? ls[d] : ints[3 + d];
            idx[d] = malloc((size_t)gs[d] * sizeof(int));
            nidx[d] = darray_owned(dist[d], dargs[d], (int)gs[d], ps[d], coords[d], idx[d]);
        }
        walk_array(types[0], base, n, gs, idx, nidx, order);
        for (int d = 0; d < n; d++)
            free(idx[d]);
        break;
    }
    default:
        T_CHECK(0, "unexpected combiner %d", comb);
    }
    for (MPI_Count i = 0; i < nd; i++) {
        MPI_Count a, b, c, e;
        int k;
        MPI_Type_get_envelope_c(types[i], &a, &b, &c, &e, &k);
        if (k != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
    free(ints), free(addrs), free(ls), free(types);
}

/* ---- checks ---------------------------------------------------------------------------------- */

static void check_bounds(const char *what, MPI_Datatype t, MPI_Count size, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint tlb, MPI_Aint textent)
{
    MPI_Count s, l, e, tl, te;
    MPI_Type_size_c(t, &s);
    MPI_Type_get_extent_c(t, &l, &e);
    MPI_Type_get_true_extent_c(t, &tl, &te);
    T_CHECK(s == size, "%s: size %lld, want %lld", what, (long long)s, (long long)size);
    T_CHECK(l == lb, "%s: lb %lld, want %lld", what, (long long)l, (long long)lb);
    T_CHECK(e == extent, "%s: extent %lld, want %lld", what, (long long)e, (long long)extent);
    T_CHECK(tl == tlb, "%s: true lb %lld, want %lld", what, (long long)tl, (long long)tlb);
    T_CHECK(te == textent, "%s: true extent %lld, want %lld", what, (long long)te, (long long)textent);
}

static unsigned rng = 12345;
static unsigned rnd(void)
{
    rng = rng * 1103515245u + 12345u;
    return rng >> 8;
}

/* Pack/unpack `count` elements of t against the reference walker. */
static void check_layout(const char *what, MPI_Datatype t, int count)
{
    MPI_Count size;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_size_c(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    /* a buffer covering every byte the elements touch, with the origin placed to allow negatives */
    MPI_Aint span = text + (ext < 0 ? -ext : ext) * (count > 0 ? count - 1 : 0) + 64;
    MPI_Aint origin = (tlb < 0 ? -tlb : 0) + (ext < 0 ? -ext * count : 0) + 32;
    size_t bufsize = (size_t)(origin + span + (tlb > 0 ? tlb : 0) + 64);
    unsigned char *src = malloc(bufsize), *dst = malloc(bufsize), *want = malloc(bufsize);
    for (size_t i = 0; i < bufsize; i++)
        src[i] = (unsigned char)(rnd() | 1);
    nruns = 0;
    for (int i = 0; i < count; i++)
        walk(t, origin + (MPI_Aint)i * ext);
    MPI_Count total = 0;
    for (size_t r = 0; r < nruns; r++)
        total += runs[r].len;
    T_CHECK(total == size * count, "%s: reference walked %lld bytes, size says %lld", what, (long long)total,
            (long long)(size * count));
    unsigned char *ref = malloc((size_t)total + 1), *got = malloc((size_t)total + 1);
    memset(want, 0, bufsize);
    MPI_Count p = 0;
    for (size_t r = 0; r < nruns; r++) {
        memcpy(ref + p, src + runs[r].off, (size_t)runs[r].len);
        memcpy(want + runs[r].off, src + runs[r].off, (size_t)runs[r].len);
        p += runs[r].len;
    }
    int pos = 0;
    T_OK(MPI_Pack(src + origin, count, t, got, (int)total + 1, &pos, MPI_COMM_WORLD));
    T_CHECK(pos == total, "%s: MPI_Pack position %d, want %lld", what, pos, (long long)total);
    T_CHECK(memcmp(ref, got, (size_t)total) == 0, "%s: MPI_Pack differs from the reference", what);
    /* random pieces through the seam */
    empi_datatype_t *dt = empi_datatype_get(t);
    for (int streamed = 0; streamed < 2; streamed++) {
        memset(got, 0, (size_t)total);
        for (MPI_Count off = 0; off < total;) {
            MPI_Count len = 1 + rnd() % (size * 2 + 7);
            if (len > total - off)
                len = total - off;
            (streamed ? empi_dt_pack_stream : empi_dt_pack)(src + origin, count, dt, off, got + off, len);
            off += len;
        }
        T_CHECK(memcmp(ref, got, (size_t)total) == 0, "%s: pieced %spack differs from the reference", what,
                streamed ? "streaming " : "");
    }
    memset(dst, 0, bufsize);
    pos = 0;
    T_OK(MPI_Unpack(ref, (int)total, &pos, dst + origin, count, t, MPI_COMM_WORLD));
    T_CHECK(memcmp(dst, want, bufsize) == 0, "%s: MPI_Unpack wrote other bytes than the type map", what);
    memset(dst, 0, bufsize);
    for (MPI_Count off = 0; off < total;) {
        MPI_Count len = 1 + rnd() % (size * 2 + 7);
        if (len > total - off)
            len = total - off;
        empi_dt_unpack(dst + origin, count, dt, off, ref + off, len);
        off += len;
    }
    T_CHECK(memcmp(dst, want, bufsize) == 0, "%s: pieced unpack wrote other bytes than the type map", what);
    free(src), free(dst), free(want), free(ref), free(got);
}

static void check_type(const char *what, MPI_Datatype t)
{
    T_OK(MPI_Type_commit(&t));
    check_layout(what, t, 1);
    check_layout(what, t, 3);
}

/* t as it is, then resized to `extent` so that element k + 1 continues element k's stride (the
   pack engine then runs one strided loop over all elements); frees t. */
static void check_continued(const char *what, MPI_Datatype t, MPI_Aint lb, MPI_Aint extent)
{
    MPI_Datatype u;
    char name[128];
    check_type(what, t);
    T_OK(MPI_Type_create_resized(t, lb, extent, &u));
    snprintf(name, sizeof name, "%s continued", what);
    check_type(name, u);
    MPI_Type_free(&u);
    MPI_Type_free(&t);
}

/* ---- tests ------------------------------------------------------------------------------------ */

static void test_predefined(void)
{
    struct { MPI_Datatype t; const char *name; int size; MPI_Aint extent; } tab[] = {
        {MPI_CHAR, "MPI_CHAR", 1, 1}, {MPI_SHORT, "MPI_SHORT", 2, 2}, {MPI_INT, "MPI_INT", 4, 4},
        {MPI_LONG, "MPI_LONG", 8, 8}, {MPI_LONG_LONG, "MPI_LONG_LONG", 8, 8}, {MPI_FLOAT, "MPI_FLOAT", 4, 4},
        {MPI_DOUBLE, "MPI_DOUBLE", 8, 8}, {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 16, 16},
        {MPI_C_BOOL, "MPI_C_BOOL", 1, 1}, {MPI_WCHAR, "MPI_WCHAR", 4, 4}, {MPI_BYTE, "MPI_BYTE", 1, 1},
        {MPI_PACKED, "MPI_PACKED", 1, 1}, {MPI_AINT, "MPI_AINT", 8, 8}, {MPI_COUNT, "MPI_COUNT", 8, 8},
        {MPI_OFFSET, "MPI_OFFSET", 8, 8}, {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16, 16},
        {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 32, 32},
        {MPI_LOGICAL, "MPI_LOGICAL", 4, 4}, {MPI_INTEGER, "MPI_INTEGER", 4, 4}, {MPI_REAL, "MPI_REAL", 4, 4},
        {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8}, {MPI_COMPLEX, "MPI_COMPLEX", 8, 8},
        {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 16}, {MPI_CHARACTER, "MPI_CHARACTER", 1, 1},
        {MPI_INTEGER16, "MPI_INTEGER16", 16, 16}, {MPI_REAL2, "MPI_REAL2", 2, 2},
        {MPI_COMPLEX32, "MPI_COMPLEX32", 32, 32}, {MPI_LOGICAL1, "MPI_LOGICAL1", 1, 1},
        {MPI_FLOAT_INT, "MPI_FLOAT_INT", 8, 8}, {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 12, 16},
        {MPI_LONG_INT, "MPI_LONG_INT", 12, 16}, {MPI_2INT, "MPI_2INT", 8, 8},
        {MPI_SHORT_INT, "MPI_SHORT_INT", 6, 8}, {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", 20, 32},
        {MPI_2REAL, "MPI_2REAL", 8, 8}, {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 16},
        {MPI_2INTEGER, "MPI_2INTEGER", 8, 8}, {MPI_UINT64_T, "MPI_UINT64_T", 8, 8},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        int size, len;
        MPI_Aint lb, ext;
        char name[MPI_MAX_OBJECT_NAME];
        T_OK(MPI_Type_size(tab[i].t, &size));
        T_OK(MPI_Type_get_extent(tab[i].t, &lb, &ext));
        T_OK(MPI_Type_get_name(tab[i].t, name, &len));
        T_CHECK(size == tab[i].size, "%s size %d", tab[i].name, size);
        T_CHECK(lb == 0 && ext == tab[i].extent, "%s lb %ld extent %ld", tab[i].name, (long)lb, (long)ext);
        T_CHECK(strcmp(name, tab[i].name) == 0 && len == (int)strlen(name), "name %s, want %s", name, tab[i].name);
        check_layout(tab[i].name, tab[i].t, 3);
    }
    /* every ABI handle in 0x201..0x2ff either names a type or is invalid, and all 70 exist */
    int valid = 0;
    for (unsigned h = 0x201; h < 0x300; h++) {
        int size;
        dt_last_err_class = 0;
        if (MPI_Type_size((MPI_Datatype)(uintptr_t)h, &size) == MPI_SUCCESS)
            valid++;
    }
    T_CHECK(valid == 70, "%d predefined datatypes, want 70", valid);
    int size;
    T_CHECK(MPI_Type_size(MPI_DATATYPE_NULL, &size) == MPI_ERR_TYPE, "size of MPI_DATATYPE_NULL");
    check_bounds("MPI_SHORT_INT", MPI_SHORT_INT, 6, 0, 8, 0, 8);
    check_bounds("MPI_DOUBLE_INT", MPI_DOUBLE_INT, 12, 0, 16, 0, 12);
}

static void test_constructors(void)
{
    MPI_Datatype t, u, v;
    /* contiguous */
    T_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    check_bounds("contiguous(3,int)", t, 12, 0, 12, 0, 12);
    check_type("contiguous(3,int)", t);
    MPI_Type_free(&t);
    T_OK(MPI_Type_contiguous(0, MPI_INT, &t));
    check_bounds("contiguous(0,int)", t, 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
    /* vector: blocks of 2 ints every 4 ints */
    T_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
    check_bounds("vector(3,2,4,int)", t, 24, 0, 40, 0, 40);
    check_type("vector(3,2,4,int)", t);
    MPI_Type_free(&t);
    /* negative stride: blocks at 0, -8, -16 */
    T_OK(MPI_Type_vector(3, 1, -2, MPI_INT, &t));
    check_bounds("vector(3,1,-2,int)", t, 12, -16, 20, -16, 20);
    check_type("vector(3,1,-2,int)", t);
    MPI_Type_free(&t);
    T_OK(MPI_Type_create_hvector(2, 1, 100, MPI_DOUBLE, &t));
    check_bounds("hvector(2,1,100,double)", t, 16, 0, 108, 0, 108);
    check_type("hvector", t);
    MPI_Type_free(&t);
    T_OK(MPI_Type_vector_c(4, 3, 5, MPI_SHORT, &t));
    check_bounds("vector_c(4,3,5,short)", t, 24, 0, 36, 0, 36);
    check_type("vector_c", t);
    MPI_Type_free(&t);
    /* indexed with a negative displacement */
    int bl[] = {2, 1, 3}, di[] = {3, -1, 7};
    T_OK(MPI_Type_indexed(3, bl, di, MPI_INT, &t));
    check_bounds("indexed", t, 24, -4, 44, -4, 44);
    check_type("indexed", t);
    MPI_Type_free(&t);
    MPI_Aint hd[] = {16, 0, -24};
    T_OK(MPI_Type_create_hindexed(3, bl, hd, MPI_DOUBLE, &t));
    check_bounds("hindexed", t, 48, -24, 56, -24, 56);
    check_type("hindexed", t);
    MPI_Type_free(&t);
    int bd[] = {5, 0, 2};
    T_OK(MPI_Type_create_indexed_block(3, 2, bd, MPI_FLOAT, &t));
    check_bounds("indexed_block", t, 24, 0, 28, 0, 28);
    check_type("indexed_block", t);
    MPI_Type_free(&t);
    MPI_Aint hbd[] = {40, 1};
    T_OK(MPI_Type_create_hindexed_block(2, 3, hbd, MPI_CHAR, &t));
    check_bounds("hindexed_block", t, 6, 1, 42, 1, 42);
    check_type("hindexed_block", t);
    MPI_Type_free(&t);
    MPI_Count lbl[] = {1, 2}, ldi[] = {-3, 4};
    T_OK(MPI_Type_create_hindexed_c(2, lbl, ldi, MPI_INT, &t));
    check_bounds("hindexed_c", t, 12, -3, 15, -3, 15);
    check_type("hindexed_c", t);
    MPI_Type_free(&t);
    /* struct: padding to the strictest alignment, and none after a resized member */
    {
        int sbl[] = {1, 1};
        MPI_Aint sd[] = {0, 8};
        MPI_Datatype st[] = {MPI_CHAR, MPI_DOUBLE};
        T_OK(MPI_Type_create_struct(2, sbl, sd, st, &t));
        check_bounds("struct{char;double}", t, 9, 0, 16, 0, 16);
        check_type("struct{char;double}", t);
        MPI_Type_free(&t);
        MPI_Aint sd2[] = {0, 4};
        MPI_Datatype st2[] = {MPI_INT, MPI_CHAR};
        T_OK(MPI_Type_create_struct(2, sbl, sd2, st2, &t));
        check_bounds("struct{int;char}", t, 5, 0, 8, 0, 5);
        check_type("struct{int;char}", t);
        MPI_Type_free(&t);
        T_OK(MPI_Type_create_resized(MPI_INT, 0, 5, &u));
        MPI_Datatype st3[] = {u, MPI_CHAR};
        T_OK(MPI_Type_create_struct(2, sbl, sd2, st3, &t));
        check_bounds("struct{resized int;char}", t, 5, 0, 5, 0, 5);
        MPI_Type_free(&t);
        MPI_Type_free(&u);
    }
    /* resized */
    T_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
    check_bounds("resized(int,-4,16)", t, 4, -4, 16, 0, 4);
    check_type("resized", t);
    /* nested: a vector of that resized type, then a struct around it */
    T_OK(MPI_Type_vector(2, 2, 3, t, &u));
    check_bounds("vector(2,2,3,resized)", u, 16, -4, 80, 0, 68);
    check_type("vector of resized", u);
    {
        int sbl[] = {2, 1, 3};
        MPI_Aint sd[] = {100, 0, 300};
        MPI_Datatype st[] = {u, MPI_SHORT, MPI_DOUBLE};
        T_OK(MPI_Type_create_struct(3, sbl, sd, st, &v));
        check_type("struct{vector;short;double}", v);
        MPI_Type_free(&v);
    }
    MPI_Type_free(&u);
    MPI_Type_free(&t);
    /* dup */
    T_OK(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &t));
    T_OK(MPI_Type_dup(t, &u));
    check_bounds("dup(vector)", u, 16, 0, 24, 0, 24);
    check_type("dup", u);
    MPI_Type_free(&u);
    MPI_Type_free(&t);
    /* members without data count for lb/ub but not for the true bounds */
    {
        MPI_Datatype empty;
        T_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
        int sbl[] = {1, 1, 0};
        MPI_Aint sd[] = {-40, 8, 100};
        MPI_Datatype st[] = {empty, MPI_INT, MPI_DOUBLE};
        T_OK(MPI_Type_create_struct(3, sbl, sd, st, &t));
        check_bounds("struct{empty@-40;int@8;0 double}", t, 4, -40, 52, 8, 4);
        check_type("struct with empty members", t);
        MPI_Type_free(&t);
        MPI_Type_free(&empty);
        int ibl[] = {0, 2, 0, 1}, idi[] = {50, 1, -7, 4};
        T_OK(MPI_Type_indexed(4, ibl, idi, MPI_SHORT, &t));
        check_bounds("indexed with empty blocks", t, 6, 2, 8, 2, 8);
        check_type("indexed with empty blocks", t);
        MPI_Type_free(&t);
    }
    /* a long vector of 256-byte blocks keeps its loop form */
    T_OK(MPI_Type_vector(1000, 64, 128, MPI_INT, &t));
    check_bounds("vector(1000,64,128,int)", t, 256000, 0, (999 * 128 + 64) * 4, 0, (999 * 128 + 64) * 4);
    check_type("big vector", t);
    MPI_Type_free(&t);
    /* short vectors of mid-size blocks take the strided copy loop too: 4 x 256 bytes (a multiple of
       the 128-byte unrolled step), 3 x 96 (its 32-byte tail), 5 x 40 (per-block copies), strided
       doubles (packed two per store, an odd number), a negative stride with 128-byte blocks */
    T_OK(MPI_Type_vector(4, 32, 64, MPI_DOUBLE, &t));
    check_bounds("vector(4,32,64,double)", t, 1024, 0, (3 * 64 + 32) * 8, 0, (3 * 64 + 32) * 8);
    check_continued("vector(4,32,64,double)", t, 0, 4 * 64 * 8);
    T_OK(MPI_Type_vector(3, 24, 40, MPI_INT, &t));
    check_continued("vector(3,24,40,int)", t, 0, 3 * 40 * 4);
    T_OK(MPI_Type_vector(5, 5, 9, MPI_DOUBLE, &t));
    check_continued("vector(5,5,9,double)", t, 0, 5 * 9 * 8);
    T_OK(MPI_Type_vector(5, 1, 3, MPI_DOUBLE, &t));
    check_continued("vector(5,1,3,double)", t, 0, 5 * 3 * 8);
    T_OK(MPI_Type_create_hvector(3, 128, -256, MPI_BYTE, &t));
    check_bounds("hvector(3,128,-256,byte)", t, 384, -512, 640, -512, 640);
    check_continued("hvector(3,128,-256,byte)", t, -512, -768);
    /* a resized member's lb/ub markers alone bound a struct, whatever data lies outside them
       (MPI 4.1, 5.1.8): no alignment padding either */
    {
        MPI_Datatype r8, mixed;
        T_OK(MPI_Type_create_resized(MPI_INT, 0, 8, &r8));
        int bl[2] = {1, 1};
        MPI_Aint after[2] = {0, 8}, before[2] = {-16, 0};
        MPI_Datatype ta[2] = {r8, MPI_DOUBLE}, tb[2] = {MPI_DOUBLE, r8};
        T_OK(MPI_Type_create_struct(2, bl, after, ta, &mixed));
        check_bounds("struct{resized(int,0,8)@0, double@8}", mixed, 12, 0, 8, 0, 16);
        MPI_Type_free(&mixed);
        T_OK(MPI_Type_create_struct(2, bl, before, tb, &mixed));
        check_bounds("struct{double@-16, resized(int,0,8)@0}", mixed, 12, 0, 8, -16, 20);
        MPI_Type_free(&mixed);
        MPI_Type_free(&r8);
    }
}

static void test_subarray_darray(void)
{
    MPI_Datatype t;
    int sizes[] = {4, 5}, subs[] = {2, 3}, starts[] = {1, 2};
    T_OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t));
    check_bounds("subarray C", t, 24, 0, 80, 28, 32);
    check_type("subarray C", t);
    MPI_Type_free(&t);
    /* Fortran order: dim 0 varies fastest; element (i,j) at (j*4 + i) */
    T_OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
    check_bounds("subarray F", t, 24, 0, 80, (2 * 4 + 1) * 4, ((4 * 4 + 2) - (2 * 4 + 1) + 1) * 4);
    check_type("subarray F", t);
    MPI_Type_free(&t);
    int s3[] = {3, 4, 5}, b3[] = {2, 2, 2}, st3[] = {1, 0, 3};
    T_OK(MPI_Type_create_subarray(3, s3, b3, st3, MPI_ORDER_C, MPI_DOUBLE, &t));
    check_type("subarray 3d", t);
    MPI_Type_free(&t);
    MPI_Count ls[] = {6, 7}, lb[] = {3, 2}, lst[] = {2, 5};
    T_OK(MPI_Type_create_subarray_c(2, ls, lb, lst, MPI_ORDER_FORTRAN, MPI_SHORT, &t));
    check_type("subarray_c", t);
    MPI_Type_free(&t);
    /* darray: 10 elements, 3 processes, block: rank 0 owns 0..3, rank 2 owns 8..9 */
    int g[] = {10}, dist[] = {MPI_DISTRIBUTE_BLOCK}, darg[] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {3};
    T_OK(MPI_Type_create_darray(3, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
    check_bounds("darray block r0", t, 16, 0, 40, 0, 16);
    check_type("darray block r0", t);
    MPI_Type_free(&t);
    T_OK(MPI_Type_create_darray(3, 2, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
    check_bounds("darray block r2", t, 8, 0, 40, 32, 8);
    MPI_Type_free(&t);
    int cyc[] = {MPI_DISTRIBUTE_CYCLIC}, two[] = {2};
    T_OK(MPI_Type_create_darray(3, 1, 1, g, cyc, two, ps, MPI_ORDER_C, MPI_INT, &t));
    check_bounds("darray cyclic(2) r1", t, 16, 0, 40, 8, 32);
    check_type("darray cyclic(2) r1", t);
    MPI_Type_free(&t);
    /* 2-d, 2x3 grid, block x cyclic, both orders, every rank */
    int g2[] = {7, 8}, d2[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, a2[] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
    int p2[] = {2, 3};
    for (int order = 0; order < 2; order++)
        for (int r = 0; r < 6; r++) {
            char what[64];
            snprintf(what, sizeof what, "darray 2d order %d rank %d", order, r);
            T_OK(MPI_Type_create_darray(6, r, 2, g2, d2, a2, p2, order ? MPI_ORDER_FORTRAN : MPI_ORDER_C,
                                        MPI_DOUBLE, &t));
            check_type(what, t);
            MPI_Type_free(&t);
        }
    int dn[] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK}, pn[] = {1, 3};
    int an[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    T_OK(MPI_Type_create_darray(3, 1, 2, g2, dn, an, pn, MPI_ORDER_C, MPI_INT, &t));
    check_type("darray none x block", t);
    MPI_Type_free(&t);
}

static void test_decode(void)
{
    MPI_Datatype t, u, types[4];
    int ni, na, nd, comb, ints[16];
    MPI_Aint addrs[8];
    T_OK(MPI_Type_vector(3, 2, -5, MPI_INT, &t));
    T_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    T_CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector envelope");
    T_OK(MPI_Type_get_contents(t, 3, 0, 1, ints, addrs, types));
    T_CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == -5 && types[0] == MPI_INT, "vector contents");
    T_OK(MPI_Type_create_hvector(2, 4, 64, t, &u));
    T_OK(MPI_Type_get_envelope(u, &ni, &na, &nd, &comb));
    T_CHECK(comb == MPI_COMBINER_HVECTOR && ni == 2 && na == 1 && nd == 1, "hvector envelope");
    T_OK(MPI_Type_get_contents(u, 2, 1, 1, ints, addrs, types));
    T_CHECK(ints[0] == 2 && ints[1] == 4 && addrs[0] == 64, "hvector contents");
    /* a derived type comes back as a new object equal to the one given (MPI 4.1, 5.1.13): naming
       or freeing it leaves the user's t alone */
    T_OK(MPI_Type_get_envelope(types[0], &ni, &na, &nd, &comb));
    T_CHECK(types[0] != t && comb == MPI_COMBINER_VECTOR && ni == 3, "hvector's inner type is a new vector");
    {
      char name[MPI_MAX_OBJECT_NAME];
      int len;
      T_OK(MPI_Type_set_name(t, "mine"));
      T_OK(MPI_Type_set_name(types[0], "copy"));
      T_OK(MPI_Type_get_name(t, name, &len));
      T_CHECK(strcmp(name, "mine") == 0, "renaming the returned type renamed the user's (%s)", name);
    }
    MPI_Type_free(&types[0]);   /* a derived type returned by get_contents is the user's to free */
    MPI_Type_free(&t);
    /* u still holds the vector: decoding it again works */
    T_OK(MPI_Type_get_contents(u, 2, 1, 1, ints, addrs, types));
    T_OK(MPI_Type_get_envelope(types[0], &ni, &na, &nd, &comb));
    T_CHECK(comb == MPI_COMBINER_VECTOR, "inner vector survives its user handle");
    MPI_Type_free(&types[0]);
    MPI_Type_free(&u);
    T_OK(MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nd, &comb));
    T_CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "named envelope");
    T_CHECK(MPI_Type_get_contents(MPI_DOUBLE, 0, 0, 0, ints, addrs, types) == MPI_ERR_TYPE, "contents of named");
    /* struct */
    int bl[] = {1, 2};
    MPI_Aint di[] = {0, 8};
    MPI_Datatype st[] = {MPI_INT, MPI_DOUBLE};
    T_OK(MPI_Type_create_struct(2, bl, di, st, &t));
    T_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    T_CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2, "struct envelope");
    T_OK(MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types));
    T_CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && addrs[1] == 8 && types[1] == MPI_DOUBLE, "struct contents");
    MPI_Type_free(&t);
    /* large-count constructor: only the _c decoders can return it */
    T_OK(MPI_Type_contiguous_c(7, MPI_INT, &t));
    T_CHECK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_ERR_TYPE, "int envelope of a _c type");
    MPI_Count cni, cna, cnl, cnd, lc[4];
    T_OK(MPI_Type_get_envelope_c(t, &cni, &cna, &cnl, &cnd, &comb));
    T_CHECK(comb == MPI_COMBINER_CONTIGUOUS && cni == 0 && cna == 0 && cnl == 1 && cnd == 1, "contiguous_c envelope");
    T_OK(MPI_Type_get_contents_c(t, 0, 0, 1, 1, ints, addrs, lc, types));
    T_CHECK(lc[0] == 7 && types[0] == MPI_INT, "contiguous_c contents");
    MPI_Type_free(&t);
    /* subarray, darray, resized, dup, indexed_block */
    int sz[] = {4, 4}, sb[] = {2, 2}, ss[] = {1, 1};
    T_OK(MPI_Type_create_subarray(2, sz, sb, ss, MPI_ORDER_FORTRAN, MPI_BYTE, &t));
    T_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    T_CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && nd == 1, "subarray envelope");
    T_OK(MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types));
    T_CHECK(ints[0] == 2 && ints[1] == 4 && ints[3] == 2 && ints[5] == 1 && ints[7] == MPI_ORDER_FORTRAN, "subarray contents");
    MPI_Type_free(&t);
    T_OK(MPI_Type_create_resized(MPI_INT, 2, 12, &t));
    T_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    T_CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nd == 1, "resized envelope");
    T_OK(MPI_Type_get_contents(t, 0, 2, 1, ints, addrs, types));
    T_CHECK(addrs[0] == 2 && addrs[1] == 12, "resized contents");
    T_OK(MPI_Type_dup(t, &u));
    T_OK(MPI_Type_get_envelope(u, &ni, &na, &nd, &comb));
    T_CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nd == 1, "dup envelope");
    MPI_Type_free(&u);
    MPI_Type_free(&t);
    int g[] = {8}, dist[] = {MPI_DISTRIBUTE_CYCLIC}, darg[] = {2}, ps[] = {2};
    T_OK(MPI_Type_create_darray(2, 1, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
    T_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    T_CHECK(comb == MPI_COMBINER_DARRAY && ni == 8 && nd == 1, "darray envelope");
    MPI_Type_free(&t);
    /* f90 types decode as such */
    T_OK(MPI_Type_create_f90_real(10, 100, &t));
    T_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    T_OK(MPI_Type_get_contents(t, 2, 0, 0, ints, addrs, types));
    T_CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2 && ints[0] == 10 && ints[1] == 100, "f90 real");
    int size;
    MPI_Type_size(t, &size);
    T_CHECK(size == 8, "f90_real(10,100) size %d", size);
    T_OK(MPI_Type_create_f90_real(10, 100, &u));
    T_CHECK(t == u, "f90 types are cached");
    /* they are predefined: freeing one is refused and leaves the cached handle working */
    T_CHECK(MPI_Type_free(&u) == MPI_ERR_TYPE && u == t, "freeing an f90 type");
    T_OK(MPI_Type_size(t, &size));
}

static void test_counts(void)
{
    MPI_Status st;
    int n;
    MPI_Count c;
    empi_status_set_bytes(&st, 12);
    T_OK(MPI_Get_count(&st, MPI_INT, &n));
    T_CHECK(n == 3, "count 3 ints, got %d", n);
    T_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
    T_CHECK(n == MPI_UNDEFINED, "12 bytes of double: undefined, got %d", n);
    /* struct {int; double}: 12 bytes per element, 2 elements each */
    int bl[] = {1, 1};
    MPI_Aint di[] = {0, 8};
    MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE}, t;
    MPI_Type_create_struct(2, bl, di, ty, &t);
    MPI_Type_commit(&t);
    empi_status_set_bytes(&st, 12 * 2 + 4);
    T_OK(MPI_Get_count(&st, t, &n));
    T_CHECK(n == MPI_UNDEFINED, "partial struct count %d", n);
    T_OK(MPI_Get_elements(&st, t, &n));
    T_CHECK(n == 5, "elements of 2.x struct: %d, want 5", n);
    empi_status_set_bytes(&st, 12 * 2 + 6);
    T_OK(MPI_Get_elements_x(&st, t, &c));
    T_CHECK(c == MPI_UNDEFINED, "a cut double gives undefined, got %lld", (long long)c);
    T_OK(MPI_Status_set_elements(&st, t, 3));
    T_OK(MPI_Get_elements(&st, t, &n));
    T_CHECK(n == 3 && empi_status_bytes(&st) == 16, "set_elements 3 -> %d elements, %lld bytes", n,
            (long long)empi_status_bytes(&st));
    MPI_Type_free(&t);
    /* vector of pairs: two elements per pair */
    MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t);
    MPI_Type_commit(&t);
    empi_status_set_bytes(&st, 12 + 8);
    T_OK(MPI_Get_elements_c(&st, t, &c));
    T_CHECK(c == 3, "1.5 DOUBLE_INT: %lld elements", (long long)c);
    MPI_Type_free(&t);
    empi_status_set_bytes(&st, 0);
    MPI_Type_contiguous(0, MPI_INT, &t);
    T_OK(MPI_Get_count(&st, t, &n));
    T_CHECK(n == 0, "count of size-0 type %d", n);
    MPI_Type_free(&t);
}

/*
 * The strided kernels align their stores to the destination and, packing with non-temporal
 * stores, switch widths at 32-byte boundaries: every run length they take (32-byte multiples
 * from 64 B to 2 KiB) at every skew of the packed side and of the blocks, with strides that keep
 * or change a block's alignment, whole and from an offset inside a block.
 */
static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static void test_strided_skews(void)
{
    static const int run_lens[] = {64, 96, 160, 256, 1056, 2048};
    enum { NBLK = 5, MAXSKEW = 40 };
    for (size_t r = 0; r < sizeof run_lens / sizeof *run_lens; r++) {
        int run = run_lens[r];
        for (int gap = 0; gap <= 8; gap += 8) {
            int stride = 2 * run + gap;
            MPI_Datatype t;
            T_OK(MPI_Type_vector(NBLK, run, stride, MPI_BYTE, &t));
            T_OK(MPI_Type_commit(&t));
            empi_datatype_t *dt = empi_datatype_get(t);
            size_t total = (size_t)NBLK * run, span = (size_t)(NBLK - 1) * stride + run + MAXSKEW;
            unsigned char *src = malloc(span), *ref = malloc(total), *got = malloc(total + MAXSKEW);
            unsigned char *mem = malloc(span), *want = malloc(span);
            for (int mskew = 0; mskew < MAXSKEW; mskew += 5) {
                for (size_t i = 0; i < span; i++)
                    src[i] = (unsigned char)(rnd() | 1);
                for (int b = 0; b < NBLK; b++)
                    memcpy(ref + (size_t)b * run, src + mskew + (size_t)b * stride, (size_t)run);
                memset(want, 0, span);
                for (int b = 0; b < NBLK; b++)
                    memcpy(want + mskew + (size_t)b * stride, ref + (size_t)b * run, (size_t)run);
                for (int skew = 0; skew < MAXSKEW; skew++) {
                    MPI_Count off = skew % 2 ? run / 2 + 8 : 0;   /* start inside the first block */
                    for (int mode = 0; mode < 2; mode++) {
                        memset(got, 0, total + MAXSKEW);
                        (mode ? empi_dt_pack_stream : empi_dt_pack)(src + mskew, 1, dt, off, got + skew,
                                                                    (MPI_Count)total - off);
                        size_t n = total - (size_t)off;
                        T_CHECK(memcmp(got + skew, ref + off, n) == 0 && all_zero(got, (size_t)skew) &&
                                    all_zero(got + skew + n, total + MAXSKEW - skew - n),
                                "vector of %d-byte runs, stride %d, block skew %d: %s at skew %d from %lld wrong",
                                run, stride, mskew, mode ? "streaming pack" : "pack", skew, (long long)off);
                    }
                    memcpy(got + skew, ref, total);
                    memset(mem, 0, span);
                    empi_dt_unpack(mem + mskew, 1, dt, 0, got + skew, (MPI_Count)total);
                    T_CHECK(memcmp(mem, want, span) == 0,
                            "vector of %d-byte runs, stride %d, block skew %d: unpack from skew %d wrong", run,
                            stride, mskew, skew);
                }
            }
            free(src), free(ref), free(got), free(mem), free(want);
            MPI_Type_free(&t);
        }
    }
}

static void test_errors_and_misc(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    T_CHECK(MPI_Type_vector(-1, 1, 1, MPI_INT, &t) == MPI_ERR_COUNT, "negative count");
    T_CHECK(strstr(dt_last_err_msg, "MPI_Type_vector") && strstr(dt_last_err_msg, "-1"), "message: %s", dt_last_err_msg);
    T_CHECK(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t) == MPI_ERR_TYPE, "null oldtype");
    int bl[] = {-1};
    int di[] = {0};
    T_CHECK(MPI_Type_indexed(1, bl, di, MPI_INT, &t) == MPI_ERR_ARG, "negative blocklength");
    MPI_Datatype pre = MPI_INT;
    T_CHECK(MPI_Type_free(&pre) == MPI_ERR_TYPE, "free predefined");
    int sz[] = {4}, sb[] = {5}, ss[] = {0};
    T_CHECK(MPI_Type_create_subarray(1, sz, sb, ss, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG, "subsize > size");
    T_CHECK(MPI_Type_create_subarray(1, sz, sz, ss, 7, MPI_INT, &t) == MPI_ERR_ARG, "bad order");
    int g[] = {10}, dist[] = {MPI_DISTRIBUTE_BLOCK}, darg[] = {2}, ps[] = {3};
    T_CHECK(MPI_Type_create_darray(3, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
            "block too small");
    /* count 0: the arrays have no entries and may be NULL; the type is empty */
    MPI_Datatype z[6];
    T_OK(MPI_Type_indexed(0, NULL, NULL, MPI_INT, &z[0]));
    T_OK(MPI_Type_create_hindexed(0, NULL, NULL, MPI_INT, &z[1]));
    T_OK(MPI_Type_create_indexed_block(0, 1, NULL, MPI_INT, &z[2]));
    T_OK(MPI_Type_create_hindexed_block(0, 1, NULL, MPI_INT, &z[3]));
    T_OK(MPI_Type_create_indexed_block_c(0, 1, NULL, MPI_INT, &z[4]));
    T_OK(MPI_Type_indexed_c(0, NULL, NULL, MPI_INT, &z[5]));
    for (int k = 0; k < 6; k++) {
        int zs = -1;
        T_OK(MPI_Type_size(z[k], &zs));
        T_CHECK(zs == 0, "count-0 constructor %d: size %d", k, zs);
        T_OK(MPI_Type_free(&z[k]));
    }
    /* uncommitted types cannot be packed */
    MPI_Type_contiguous(2, MPI_INT, &t);
    int buf[2], pos = 0;
    char out[16];
    T_CHECK(MPI_Pack(buf, 1, t, out, 16, &pos, MPI_COMM_WORLD) == MPI_ERR_TYPE, "pack uncommitted");
    MPI_Type_commit(&t);
    T_CHECK(MPI_Pack(buf, 3, t, out, 16, &pos, MPI_COMM_WORLD) == MPI_ERR_TRUNCATE, "pack overflow");
    int psize;
    T_OK(MPI_Pack_size(3, t, MPI_COMM_WORLD, &psize));
    T_CHECK(psize == 24, "pack size %d", psize);
    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    T_OK(MPI_Type_get_name(t, name, &len));
    T_CHECK(len == 0 && name[0] == 0, "derived types start unnamed");
    T_OK(MPI_Type_set_name(t, "pair of ints"));
    T_OK(MPI_Type_get_name(t, name, &len));
    T_CHECK(strcmp(name, "pair of ints") == 0 && len == 12, "set_name");
    /* toint/fromint */
    int ti = MPI_Type_toint(t);
    T_CHECK(MPI_Type_fromint(ti) == t, "toint/fromint round trip");
    T_CHECK(MPI_Type_toint(MPI_DOUBLE) == 0x214 && MPI_Type_fromint(0x214) == MPI_DOUBLE, "predefined toint");
    MPI_Type_free(&t);
    T_CHECK(t == MPI_DATATYPE_NULL, "free sets MPI_DATATYPE_NULL");
    /* refcount: a type freed while "in use" stays valid until released */
    MPI_Type_contiguous(4, MPI_INT, &t);
    MPI_Type_commit(&t);
    empi_datatype_t *dt = empi_datatype_get(t);
    empi_datatype_retain(dt);
    MPI_Datatype h = t;
    MPI_Type_free(&t);
    T_CHECK(dt->obj.magic != 0x0bad0bad && dt->size == 16, "retained type survives MPI_Type_free");
    empi_datatype_release(dt);
    T_CHECK(empi_datatype_get(h) == NULL, "released type is gone");
    /* match_size, value_index, addresses */
    T_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    T_CHECK(t == MPI_REAL8, "match_size real 8");
    T_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
    T_CHECK(t == MPI_DOUBLE_INT, "value_index double,int");
    T_OK(MPI_Type_get_value_index(MPI_FLOAT, MPI_FLOAT, &t));
    T_CHECK(t == MPI_DATATYPE_NULL, "value_index float,float");
    MPI_Datatype two;   /* a derived value type is valid, and no predefined pair has it */
    T_OK(MPI_Type_contiguous(2, MPI_INT, &two));
    T_OK(MPI_Type_get_value_index(two, MPI_INT, &t));
    T_CHECK(t == MPI_DATATYPE_NULL, "value_index of a derived type");
    MPI_Type_free(&two);
    MPI_Aint a1, a2;
    double arr[4];
    MPI_Get_address(&arr[0], &a1);
    MPI_Get_address(&arr[3], &a2);
    T_CHECK(MPI_Aint_diff(a2, a1) == 24 && MPI_Aint_add(a1, 24) == a2, "address arithmetic");
    /* MPI_BOTTOM with absolute addresses */
    int x = 7, y = 9, got[2];
    MPI_Aint ad[2];
    MPI_Get_address(&x, &ad[0]);
    MPI_Get_address(&y, &ad[1]);
    int b2[] = {1, 1};
    MPI_Datatype tt[] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, b2, ad, tt, &t);
    MPI_Type_commit(&t);
    pos = 0;
    T_OK(MPI_Pack(MPI_BOTTOM, 1, t, got, 8, &pos, MPI_COMM_WORLD));
    T_CHECK(got[0] == 7 && got[1] == 9, "MPI_BOTTOM pack");
    MPI_Type_free(&t);
}

int main(void)
{
    test_predefined();
    test_constructors();
    test_subarray_darray();
    test_decode();
    test_counts();
    test_strided_skews();
    test_errors_and_misc();
    printf("dt_types: %d checks, %d failures\n", dt_checks, dt_failures);
    return dt_failures ? 1 : 0;
}
