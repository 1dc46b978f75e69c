/*
 * Reductions: every predefined operation on every predefined datatype. The allowed combinations
 * come from the standard's table, written out here independently of the library: an allowed
 * one must match a scalar reference computed in the type itself, any other must fail with
 * MPI_ERR_OP. Then derived types (vector, contiguous of pairs), MINLOC/MAXLOC ties, REPLACE and
 * NO_OP, user operations, and a timing of the hot kernels.
 */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "datatype/op.h"
#include "dt_test.h"
#include "mpi.h"

int dt_failures, dt_checks;

#define N 37   /* odd, so vector loops have remainders */

static const MPI_Op all_ops[] = {MPI_SUM, MPI_MIN, MPI_MAX, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR,
                                 MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MINLOC, MPI_MAXLOC};
static const char *op_names[] = {"SUM", "MIN", "MAX", "PROD", "BAND", "BOR", "BXOR", "LAND", "LOR", "LXOR",
                                 "MINLOC", "MAXLOC"};
enum { O_SUM = 1, O_MIN = 2, O_MAX = 4, O_PROD = 8, O_BAND = 16, O_BOR = 32, O_BXOR = 64, O_LAND = 128,
       O_LOR = 256, O_LXOR = 512, O_LOC = 1024 | 2048 };
/* the standard's classes */
#define C_INT (O_SUM | O_MIN | O_MAX | O_PROD | O_BAND | O_BOR | O_BXOR | O_LAND | O_LOR | O_LXOR)
#define F_INT (O_SUM | O_MIN | O_MAX | O_PROD | O_BAND | O_BOR | O_BXOR)
#define FLOATING (O_SUM | O_MIN | O_MAX | O_PROD)
#define COMPLEX (O_SUM | O_PROD)
#define LOGICAL (O_LAND | O_LOR | O_LXOR)
#define BYTE (O_BAND | O_BOR | O_BXOR)

static int combos_ok, combos_rejected;

/* Run op k on a copy and return the MPI return code. */
static int run(int k, MPI_Datatype t, const void *in, void *io)
{
    return MPI_Reduce_local(in, io, N, t, all_ops[k]);
}

#define CHECK_ALLOWED(T, NAME, MASK, K, EXPR)                                                  \
    do {                                                                                       \
        T in[N], io[N], want[N];                                                               \
        fill_##T(in, 1), fill_##T(io, 2);                                                      \
        for (int i = 0; i < N; i++) {                                                          \
            T a = in[i], b = io[i];                                                            \
            want[i] = (EXPR);                                                                  \
            (void)a, (void)b;                                                                  \
        }                                                                                      \
        int rc = run(K, NAME, in, io);                                                         \
        if ((MASK) & (1 << (K))) {                                                             \
            T_CHECK(rc == MPI_SUCCESS, "%s on %s: rc %d", op_names[K], #NAME, rc);            \
            int same_ = 1; /* by value: long double has padding bytes */                   \
            for (int i = 0; i < N; i++)                                                        \
                same_ &= io[i] == want[i];                                                     \
            T_CHECK(same_, "%s on %s: wrong values", op_names[K], #NAME);                      \
            combos_ok++;                                                                       \
        } else {                                                                               \
            T_CHECK(rc == MPI_ERR_OP, "%s on %s must be MPI_ERR_OP, got %d", op_names[K], #NAME, rc); \
            combos_rejected++;                                                                 \
        }                                                                                      \
    } while (0)

/* Operations that do not compile for a C type are only checked for rejection. */
#define CHECK_REJECTED(NAME, MASK, K)                                                          \
    do {                                                                                       \
        char in[64 * N] = {0}, io[64 * N] = {0};                                               \
        int rc = run(K, NAME, in, io);                                                         \
        T_CHECK(!((MASK) & (1 << (K))), "%s on %s should be allowed", op_names[K], #NAME);    \
        T_CHECK(rc == MPI_ERR_OP, "%s on %s must be MPI_ERR_OP, got %d", op_names[K], #NAME, rc); \
        combos_rejected++;                                                                     \
    } while (0)

typedef signed char schar;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef long long llong;
typedef unsigned long long ullong;
typedef long double ldouble;
typedef float _Complex fcomplex;
typedef double _Complex dcomplex;
typedef long double _Complex ldcomplex;
typedef __int128 int128;
typedef _Float16 half;
typedef __float128 quad;
typedef _Complex float __attribute__((mode(TC))) qcomplex;
typedef _Complex float __attribute__((mode(HC))) hcomplex;
typedef bool cbool;

/* small values (some zero) so every reference result is exact and nothing overflows */
#define FILL(T, EXPR)                                                                          \
    static void fill_##T(T *v, int seed)                                                       \
    {                                                                                          \
        for (int i = 0; i < N; i++) {                                                          \
            int x = (i * (seed + 4) + seed) % 9 - 4;                                           \
            v[i] = (EXPR);                                                                     \
        }                                                                                      \
    }
FILL(char, (char)x) FILL(schar, (schar)x) FILL(uchar, (uchar)(x + 4)) FILL(short, (short)x) FILL(ushort, (ushort)(x + 4))
FILL(int, x) FILL(uint, (uint)(x + 4)) FILL(long, x) FILL(ulong, (ulong)(x + 4)) FILL(llong, x)
FILL(ullong, (ullong)(x + 4)) FILL(int8_t, (int8_t)x) FILL(uint8_t, (uint8_t)(x + 4)) FILL(int16_t, (int16_t)x)
FILL(uint16_t, (uint16_t)(x + 4)) FILL(int32_t, x) FILL(uint32_t, (uint32_t)(x + 4)) FILL(int64_t, x)
FILL(uint64_t, (uint64_t)(x + 4)) FILL(int128, x) FILL(float, x * 0.5f) FILL(double, x * 0.5)
FILL(ldouble, x * 0.5L) FILL(half, (half)(x * 0.5f)) FILL(quad, (quad)x * 0.5Q)
FILL(fcomplex, x * 0.5f + (x + 1) * 1.0f * I) FILL(dcomplex, x * 0.5 + (x - 1) * 1.0 * I)
FILL(ldcomplex, x * 0.5L + (x + 2) * 1.0L * I) FILL(cbool, x > 0)
static void fill_qcomplex(qcomplex *v, int seed)
{
    for (int i = 0; i < N; i++) {
        int x = (i * (seed + 4) + seed) % 9 - 4;
        __real__ v[i] = (quad)x;
        __imag__ v[i] = (quad)(x + 1) * 0.5Q;
    }
}
static void fill_hcomplex(hcomplex *v, int seed)
{
    for (int i = 0; i < N; i++) {
        int x = (i * (seed + 4) + seed) % 9 - 4;
        __real__ v[i] = (half)x;
        __imag__ v[i] = (half)(x + 1);
    }
}

#define INT_TYPE(T, NAME, MASK)                                                                \
    static void test_##NAME(void)                                                              \
    {                                                                                          \
        CHECK_ALLOWED(T, NAME, MASK, 0, (T)(a + b));                                           \
        CHECK_ALLOWED(T, NAME, MASK, 1, a < b ? a : b);                                        \
        CHECK_ALLOWED(T, NAME, MASK, 2, a > b ? a : b);                                        \
        CHECK_ALLOWED(T, NAME, MASK, 3, (T)(a * b));                                           \
        CHECK_ALLOWED(T, NAME, MASK, 4, a & b);                                                \
        CHECK_ALLOWED(T, NAME, MASK, 5, a | b);                                                \
        CHECK_ALLOWED(T, NAME, MASK, 6, a ^ b);                                                \
        CHECK_ALLOWED(T, NAME, MASK, 7, (T)(a && b));                                          \
        CHECK_ALLOWED(T, NAME, MASK, 8, (T)(a || b));                                          \
        CHECK_ALLOWED(T, NAME, MASK, 9, (T)(!a != !b));                                        \
        CHECK_REJECTED(NAME, MASK, 10);                                                        \
        CHECK_REJECTED(NAME, MASK, 11);                                                        \
    }

#define FLOAT_TYPE(T, NAME, MASK)                                                              \
    static void test_##NAME(void)                                                              \
    {                                                                                          \
        CHECK_ALLOWED(T, NAME, MASK, 0, a + b);                                                \
        CHECK_ALLOWED(T, NAME, MASK, 1, a < b ? a : b);                                        \
        CHECK_ALLOWED(T, NAME, MASK, 2, a > b ? a : b);                                        \
        CHECK_ALLOWED(T, NAME, MASK, 3, a * b);                                                \
        for (int k = 4; k < 12; k++)                                                           \
            CHECK_REJECTED(NAME, MASK, k);                                                     \
    }

#define COMPLEX_TYPE(T, NAME, MASK)                                                            \
    static void test_##NAME(void)                                                              \
    {                                                                                          \
        CHECK_ALLOWED(T, NAME, MASK, 0, a + b);                                                \
        CHECK_ALLOWED(T, NAME, MASK, 3, a * b);                                                \
        for (int k = 1; k < 12; k++)                                                           \
            if (k != 3)                                                                        \
                CHECK_REJECTED(NAME, MASK, k);                                                 \
    }

#define BOOL_TYPE(NAME)                                                                        \
    static void test_##NAME(void)                                                              \
    {                                                                                          \
        CHECK_ALLOWED(cbool, NAME, LOGICAL, 7, a && b);                                        \
        CHECK_ALLOWED(cbool, NAME, LOGICAL, 8, a || b);                                        \
        CHECK_ALLOWED(cbool, NAME, LOGICAL, 9, a != b);                                        \
        for (int k = 0; k < 12; k++)                                                           \
            if (k < 7 || k > 9)                                                                \
                CHECK_REJECTED(NAME, LOGICAL, k);                                              \
    }

#define NO_OPS_TYPE(NAME)                                                                      \
    static void test_##NAME(void)                                                              \
    {                                                                                          \
        for (int k = 0; k < 12; k++)                                                           \
            CHECK_REJECTED(NAME, 0, k);                                                        \
    }

/* MPI_CHAR is outside the standard's C integer group, but MPICH and Open MPI reduce it as one and
   the OSU micro-benchmarks accumulate and reduce MPI_CHAR with MPI_SUM by default: so do we. */
INT_TYPE(char, MPI_CHAR, C_INT)
INT_TYPE(schar, MPI_SIGNED_CHAR, C_INT) INT_TYPE(uchar, MPI_UNSIGNED_CHAR, C_INT)
INT_TYPE(short, MPI_SHORT, C_INT) INT_TYPE(ushort, MPI_UNSIGNED_SHORT, C_INT) INT_TYPE(int, MPI_INT, C_INT)
INT_TYPE(uint, MPI_UNSIGNED, C_INT) INT_TYPE(long, MPI_LONG, C_INT) INT_TYPE(ulong, MPI_UNSIGNED_LONG, C_INT)
INT_TYPE(llong, MPI_LONG_LONG, C_INT) INT_TYPE(ullong, MPI_UNSIGNED_LONG_LONG, C_INT)
INT_TYPE(int8_t, MPI_INT8_T, C_INT) INT_TYPE(uint8_t, MPI_UINT8_T, C_INT) INT_TYPE(int16_t, MPI_INT16_T, C_INT)
INT_TYPE(uint16_t, MPI_UINT16_T, C_INT) INT_TYPE(int32_t, MPI_INT32_T, C_INT)
INT_TYPE(uint32_t, MPI_UINT32_T, C_INT) INT_TYPE(int64_t, MPI_INT64_T, C_INT)
INT_TYPE(uint64_t, MPI_UINT64_T, C_INT)
INT_TYPE(int64_t, MPI_AINT, F_INT) INT_TYPE(int64_t, MPI_COUNT, F_INT) INT_TYPE(int64_t, MPI_OFFSET, F_INT)
INT_TYPE(int32_t, MPI_INTEGER, F_INT) INT_TYPE(int8_t, MPI_INTEGER1, F_INT) INT_TYPE(int16_t, MPI_INTEGER2, F_INT)
INT_TYPE(int32_t, MPI_INTEGER4, F_INT) INT_TYPE(int64_t, MPI_INTEGER8, F_INT) INT_TYPE(int128, MPI_INTEGER16, F_INT)
INT_TYPE(int32_t, MPI_LOGICAL, LOGICAL) INT_TYPE(int8_t, MPI_LOGICAL1, LOGICAL)
INT_TYPE(int16_t, MPI_LOGICAL2, LOGICAL) INT_TYPE(int32_t, MPI_LOGICAL4, LOGICAL)
INT_TYPE(int64_t, MPI_LOGICAL8, LOGICAL) INT_TYPE(int128, MPI_LOGICAL16, LOGICAL)
INT_TYPE(uchar, MPI_BYTE, BYTE)
FLOAT_TYPE(float, MPI_FLOAT, FLOATING) FLOAT_TYPE(double, MPI_DOUBLE, FLOATING)
FLOAT_TYPE(ldouble, MPI_LONG_DOUBLE, FLOATING) FLOAT_TYPE(float, MPI_REAL, FLOATING)
FLOAT_TYPE(double, MPI_DOUBLE_PRECISION, FLOATING) FLOAT_TYPE(half, MPI_REAL2, FLOATING)
FLOAT_TYPE(float, MPI_REAL4, FLOATING) FLOAT_TYPE(double, MPI_REAL8, FLOATING) FLOAT_TYPE(quad, MPI_REAL16, FLOATING)
COMPLEX_TYPE(fcomplex, MPI_C_FLOAT_COMPLEX, COMPLEX) COMPLEX_TYPE(dcomplex, MPI_C_DOUBLE_COMPLEX, COMPLEX)
COMPLEX_TYPE(ldcomplex, MPI_C_LONG_DOUBLE_COMPLEX, COMPLEX) COMPLEX_TYPE(fcomplex, MPI_CXX_FLOAT_COMPLEX, COMPLEX)
COMPLEX_TYPE(dcomplex, MPI_CXX_DOUBLE_COMPLEX, COMPLEX)
COMPLEX_TYPE(ldcomplex, MPI_CXX_LONG_DOUBLE_COMPLEX, COMPLEX) COMPLEX_TYPE(fcomplex, MPI_COMPLEX, COMPLEX)
COMPLEX_TYPE(dcomplex, MPI_DOUBLE_COMPLEX, COMPLEX) COMPLEX_TYPE(hcomplex, MPI_COMPLEX4, COMPLEX)
COMPLEX_TYPE(fcomplex, MPI_COMPLEX8, COMPLEX) COMPLEX_TYPE(dcomplex, MPI_COMPLEX16, COMPLEX)
COMPLEX_TYPE(qcomplex, MPI_COMPLEX32, COMPLEX)
BOOL_TYPE(MPI_C_BOOL) BOOL_TYPE(MPI_CXX_BOOL)
NO_OPS_TYPE(MPI_WCHAR) NO_OPS_TYPE(MPI_CHARACTER) NO_OPS_TYPE(MPI_PACKED)

/* MINLOC/MAXLOC on every pair type, ties to the lower index; every other op rejected. */
#define PAIR_TYPE(VT, IT, NAME)                                                                \
    static void test_##NAME(void)                                                              \
    {                                                                                          \
        struct p { VT v; IT i; } in[N], io[N], lo[N], hi[N];                                   \
        for (int i = 0; i < N; i++) {                                                          \
            in[i].v = (VT)(i % 5), in[i].i = (IT)(i % 3);                                      \
            io[i].v = (VT)(i % 7 - 1), io[i].i = (IT)(i % 4);                                  \
            struct p a = in[i], b = io[i];                                                     \
            lo[i] = a.v < b.v ? a : b.v < a.v ? b : (struct p){a.v, a.i < b.i ? a.i : b.i};    \
            hi[i] = a.v > b.v ? a : b.v > a.v ? b : (struct p){a.v, a.i < b.i ? a.i : b.i};    \
        }                                                                                      \
        struct p t1[N], t2[N];                                                                 \
        memcpy(t1, io, sizeof io), memcpy(t2, io, sizeof io);                                  \
        T_OK(MPI_Reduce_local(in, t1, N, NAME, MPI_MINLOC));                                   \
        T_OK(MPI_Reduce_local(in, t2, N, NAME, MPI_MAXLOC));                                   \
        for (int i = 0; i < N; i++) {                                                          \
            T_CHECK(t1[i].v == lo[i].v && t1[i].i == lo[i].i, "MINLOC %s [%d]", #NAME, i);     \
            T_CHECK(t2[i].v == hi[i].v && t2[i].i == hi[i].i, "MAXLOC %s [%d]", #NAME, i);     \
        }                                                                                      \
        combos_ok += 2;                                                                        \
        for (int k = 0; k < 10; k++)                                                           \
            CHECK_REJECTED(NAME, 0, k);                                                        \
    }

PAIR_TYPE(float, int, MPI_FLOAT_INT) PAIR_TYPE(double, int, MPI_DOUBLE_INT) PAIR_TYPE(long, int, MPI_LONG_INT)
PAIR_TYPE(int, int, MPI_2INT) PAIR_TYPE(short, int, MPI_SHORT_INT) PAIR_TYPE(ldouble, int, MPI_LONG_DOUBLE_INT)
PAIR_TYPE(float, float, MPI_2REAL) PAIR_TYPE(double, double, MPI_2DOUBLE_PRECISION)
PAIR_TYPE(int32_t, int32_t, MPI_2INTEGER)

static void (*const type_tests[])(void) = {
    test_MPI_SIGNED_CHAR, test_MPI_UNSIGNED_CHAR, test_MPI_SHORT, test_MPI_UNSIGNED_SHORT, test_MPI_INT,
    test_MPI_UNSIGNED, test_MPI_LONG, test_MPI_UNSIGNED_LONG, test_MPI_LONG_LONG, test_MPI_UNSIGNED_LONG_LONG,
    test_MPI_INT8_T, test_MPI_UINT8_T, test_MPI_INT16_T, test_MPI_UINT16_T, test_MPI_INT32_T, test_MPI_UINT32_T,
    test_MPI_INT64_T, test_MPI_UINT64_T, test_MPI_AINT, test_MPI_COUNT, test_MPI_OFFSET, test_MPI_INTEGER,
    test_MPI_INTEGER1, test_MPI_INTEGER2, test_MPI_INTEGER4, test_MPI_INTEGER8, test_MPI_INTEGER16,
    test_MPI_LOGICAL, test_MPI_LOGICAL1, test_MPI_LOGICAL2, test_MPI_LOGICAL4, test_MPI_LOGICAL8,
    test_MPI_LOGICAL16, test_MPI_BYTE, test_MPI_FLOAT, test_MPI_DOUBLE, test_MPI_LONG_DOUBLE, test_MPI_REAL,
    test_MPI_DOUBLE_PRECISION, test_MPI_REAL2, test_MPI_REAL4, test_MPI_REAL8, test_MPI_REAL16,
    test_MPI_C_FLOAT_COMPLEX, test_MPI_C_DOUBLE_COMPLEX, test_MPI_C_LONG_DOUBLE_COMPLEX,
    test_MPI_CXX_FLOAT_COMPLEX, test_MPI_CXX_DOUBLE_COMPLEX, test_MPI_CXX_LONG_DOUBLE_COMPLEX, test_MPI_COMPLEX,
    test_MPI_DOUBLE_COMPLEX, test_MPI_COMPLEX4, test_MPI_COMPLEX8, test_MPI_COMPLEX16, test_MPI_COMPLEX32,
    test_MPI_C_BOOL, test_MPI_CXX_BOOL, test_MPI_CHAR, test_MPI_WCHAR, test_MPI_CHARACTER, test_MPI_PACKED,
    test_MPI_FLOAT_INT, test_MPI_DOUBLE_INT, test_MPI_LONG_INT, test_MPI_2INT, test_MPI_SHORT_INT,
    test_MPI_LONG_DOUBLE_INT, test_MPI_2REAL, test_MPI_2DOUBLE_PRECISION, test_MPI_2INTEGER,
};

static void test_derived(void)
{
    /* a vector of ints: the op applies over the type map, gaps untouched */
    int in[20], io[20];
    for (int i = 0; i < 20; i++)
        in[i] = i, io[i] = 100 * i;
    MPI_Datatype v, c;
    MPI_Type_vector(3, 2, 5, MPI_INT, &v);
    MPI_Type_commit(&v);
    T_OK(MPI_Reduce_local(in, io, 1, v, MPI_SUM));
    for (int i = 0; i < 20; i++) {
        int inmap = i < 12 && i % 5 < 2;
        T_CHECK(io[i] == (inmap ? 101 * i : 100 * i), "vector sum [%d] = %d", i, io[i]);
    }
    MPI_Type_free(&v);
    /* a struct of mixed types is not a single kind */
    int bl[] = {1, 1};
    MPI_Aint di[] = {0, 8};
    MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE}, s;
    MPI_Type_create_struct(2, bl, di, ty, &s);
    MPI_Type_commit(&s);
    char b1[32] = {0}, b2[32] = {0};
    T_CHECK(MPI_Reduce_local(b1, b2, 1, s, MPI_SUM) == MPI_ERR_OP, "sum on a mixed struct");
    MPI_Type_free(&s);
    /* contiguous of a padded pair type: MINLOC through the packed path */
    struct { double v; int i; } p1[4] = {{1, 5}, {2, 0}, {3, 3}, {0, 9}}, p2[4] = {{1, 2}, {1, 1}, {3, 4}, {5, 0}};
    MPI_Type_contiguous(2, MPI_DOUBLE_INT, &c);
    MPI_Type_commit(&c);
    T_OK(MPI_Reduce_local(p1, p2, 2, c, MPI_MINLOC));
    T_CHECK(p2[0].v == 1 && p2[0].i == 2 && p2[1].v == 1 && p2[1].i == 1 && p2[2].v == 3 && p2[2].i == 3 &&
            p2[3].v == 0 && p2[3].i == 9, "contiguous(DOUBLE_INT) MINLOC");
    MPI_Type_free(&c);
    /* REPLACE and NO_OP through the internal entry point (RMA uses them) */
    int r1[20], r2[20];
    for (int i = 0; i < 20; i++)
        r1[i] = i, r2[i] = -1;
    MPI_Type_vector(4, 1, 3, MPI_INT, &v);
    MPI_Type_commit(&v);
    empi_datatype_t *dt = empi_datatype_get(v);
    T_OK(empi_op_apply(empi_op_get(MPI_NO_OP), r1, r2, 1, dt));
    T_CHECK(r2[0] == -1, "NO_OP");
    T_OK(empi_op_check(empi_op_get(MPI_REPLACE), dt));
    T_OK(empi_op_apply(empi_op_get(MPI_REPLACE), r1, r2, 1, dt));
    T_CHECK(r2[0] == 0 && r2[3] == 3 && r2[9] == 9 && r2[1] == -1 && r2[10] == -1, "REPLACE over a vector");
    /* ... but they are one-sided operations only: a reduction refuses them */
    T_CHECK(MPI_Reduce_local(r1, r2, 4, MPI_INT, MPI_REPLACE) == MPI_ERR_OP, "Reduce_local with MPI_REPLACE");
    T_CHECK(MPI_Reduce_local(r1, r2, 4, MPI_INT, MPI_NO_OP) == MPI_ERR_OP, "Reduce_local with MPI_NO_OP");
    T_CHECK(r2[0] == 0 && r2[1] == -1, "a refused reduction leaves the buffer alone");
    MPI_Type_free(&v);
    /* large non-contiguous reduction crosses the scratch chunk size */
    enum { M = 100000 };
    double *x = malloc(2 * M * sizeof(double)), *y = malloc(2 * M * sizeof(double));
    for (int i = 0; i < 2 * M; i++)
        x[i] = i, y[i] = 1;
    MPI_Type_vector(M, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    T_OK(MPI_Reduce_local(x, y, 1, v, MPI_MAX));
    int ok = 1;
    for (int i = 0; i < 2 * M; i++)
        ok &= y[i] == (i % 2 ? 1 : (i > 1 ? i : 1));
    T_CHECK(ok, "chunked MAX over a long vector");
    MPI_Type_free(&v);
    free(x), free(y);
}

static int user_calls;
static void user_sub(void *in, void *io, int *len, MPI_Datatype *t)
{
    (void)t;
    user_calls++;
    for (int i = 0; i < *len; i++)
        ((int *)io)[i] = ((int *)in)[i] - ((int *)io)[i];   /* not commutative: in - inout */
}
static void user_sub_c(void *in, void *io, MPI_Count *len, MPI_Datatype *t)
{
    (void)t;
    for (MPI_Count i = 0; i < *len; i++)
        ((double *)io)[i] = ((double *)in)[i] - ((double *)io)[i];
}

static void test_user_ops(void)
{
    MPI_Op op, op2;
    int commute;
    T_OK(MPI_Op_create(user_sub, 0, &op));
    T_OK(MPI_Op_commutative(op, &commute));
    T_CHECK(commute == 0, "user op commutative flag");
    T_OK(MPI_Op_commutative(MPI_SUM, &commute));
    T_CHECK(commute == 1, "MPI_SUM commutes");
    int a[3] = {10, 20, 30}, b[3] = {1, 2, 3};
    T_OK(MPI_Reduce_local(a, b, 3, MPI_INT, op));
    T_CHECK(b[0] == 9 && b[1] == 18 && b[2] == 27 && user_calls == 1, "user op: inout = in op inout");
    int i = MPI_Op_toint(op);
    T_CHECK(MPI_Op_fromint(i) == op && MPI_Op_toint(MPI_MAXLOC) == 0x39, "op toint/fromint");
    T_OK(MPI_Op_free(&op));
    T_CHECK(op == MPI_OP_NULL, "Op_free sets MPI_OP_NULL");
    MPI_Op pre = MPI_SUM;
    T_CHECK(MPI_Op_free(&pre) == MPI_ERR_OP, "free a predefined op");
    T_OK(MPI_Op_create_c(user_sub_c, 1, &op2));
    double c[2] = {5, 6}, d[2] = {1, 1};
    T_OK(MPI_Reduce_local_c(c, d, 2, MPI_DOUBLE, op2));
    T_CHECK(d[0] == 4 && d[1] == 5, "large-count user op");
    MPI_Op_free(&op2);
    T_CHECK(MPI_Reduce_local(c, d, 2, MPI_DOUBLE, MPI_OP_NULL) == MPI_ERR_OP, "MPI_OP_NULL");
    T_CHECK(MPI_Reduce_local(c, d, -1, MPI_DOUBLE, MPI_SUM) == MPI_ERR_COUNT, "negative count");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Throughput of the hot kernels on L1/L2-resident data (informational). */
static void time_kernels(void)
{
    enum { E = 4096, R = 20000 };
    static double a[E], b[E];
    for (int i = 0; i < E; i++)
        a[i] = i, b[i] = 1;
    struct { MPI_Op op; MPI_Datatype t; const char *name; } cases[] = {
        {MPI_SUM, MPI_INT, "SUM int"}, {MPI_MAX, MPI_INT, "MAX int"}, {MPI_SUM, MPI_FLOAT, "SUM float"},
        {MPI_MAX, MPI_FLOAT, "MAX float"}, {MPI_SUM, MPI_DOUBLE, "SUM double"}, {MPI_MAX, MPI_DOUBLE, "MAX double"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int size;
        MPI_Type_size(cases[k].t, &size);
        int n = (int)(sizeof a / size);
        double t0 = now();
        for (int r = 0; r < R; r++)
            MPI_Reduce_local(a, b, n, cases[k].t, cases[k].op);
        double t = now() - t0;
        printf("  %-11s %6.2f GB/s of inout (%d elements x %d reps)\n", cases[k].name,
               (double)sizeof a * R / t / 1e9, n, R);
    }
}

int main(int argc, char **argv)
{
    for (size_t k = 0; k < sizeof type_tests / sizeof type_tests[0]; k++)
        type_tests[k]();
    printf("dt_ops: %d (op, type) combinations computed, %d rejected with MPI_ERR_OP\n", combos_ok,
           combos_rejected);
    test_derived();
    test_user_ops();
    if (argc > 1 && strcmp(argv[1], "--time") == 0)
        time_kernels();
    printf("dt_ops: %d checks, %d failures\n", dt_checks, dt_failures);
    return dt_failures ? 1 : 0;
}
