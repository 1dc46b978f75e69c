/*
 * external32 byte layouts against hand-computed big-endian bytes, the standard's sizes
 * (MPI_LONG is 4 bytes, MPI_LONG_DOUBLE is IEEE binary128, pairs are their two parts back to back),
 * and round trips through MPI_Unpack_external.
 */
#include <stdint.h>
#include <string.h>

#include "dt_test.h"
#include "mpi.h"

int dt_failures, dt_checks;

static void expect_bytes(const char *what, const void *inbuf, int count, MPI_Datatype t, const unsigned char *want,
                         MPI_Aint nwant)
{
    unsigned char out[256];
    MPI_Aint pos = 0, size;
    memset(out, 0xee, sizeof out);
    T_OK(MPI_Pack_external_size("external32", count, t, &size));
    T_CHECK(size == nwant, "%s: external size %ld, want %ld", what, (long)size, (long)nwant);
    T_OK(MPI_Pack_external("external32", inbuf, count, t, out, sizeof out, &pos));
    T_CHECK(pos == nwant, "%s: position %ld, want %ld", what, (long)pos, (long)nwant);
    int same = memcmp(out, want, (size_t)nwant) == 0;
    T_CHECK(same, "%s: bytes differ", what);
    if (!same) {
        for (MPI_Aint i = 0; i < nwant; i++)
            fprintf(stderr, "%02x%s", out[i], i + 1 == nwant ? "\n" : " ");
    }
}

int main(void)
{
    int i = 0x01020304;
    expect_bytes("int", &i, 1, MPI_INT, (const unsigned char[]){1, 2, 3, 4}, 4);
    long l[2] = {-2, 0x11223344};
    expect_bytes("long (4 bytes)", l, 2, MPI_LONG, (const unsigned char[]){0xff, 0xff, 0xff, 0xfe, 0x11, 0x22, 0x33, 0x44}, 8);
    short s = -3;
    expect_bytes("short", &s, 1, MPI_SHORT, (const unsigned char[]){0xff, 0xfd}, 2);
    double d = 1.0;
    expect_bytes("double 1.0", &d, 1, MPI_DOUBLE, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 8);
    float f = -2.5f;   /* 0xc0200000 */
    expect_bytes("float -2.5", &f, 1, MPI_FLOAT, (const unsigned char[]){0xc0, 0x20, 0, 0}, 4);
    long double ld = 1.0L;   /* binary128 1.0: 0x3fff then zeros */
    expect_bytes("long double 1.0", &ld, 1, MPI_LONG_DOUBLE,
                 (const unsigned char[]){0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 16);
    ld = -3.0L;   /* -1.5 * 2^1: sign, exponent 0x4000, fraction .1000... */
    expect_bytes("long double -3", &ld, 1, MPI_LONG_DOUBLE,
                 (const unsigned char[]){0xc0, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 16);
    uint64_t u = 0x0102030405060708ull;
    expect_bytes("uint64", &u, 1, MPI_UINT64_T, (const unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8);
    wchar_t w = 0x263a;
    expect_bytes("wchar (2 bytes)", &w, 1, MPI_WCHAR, (const unsigned char[]){0x26, 0x3a}, 2);
    float _Complex z = 1.0f + 2.0f * (float _Complex)1.0fi;
    expect_bytes("float complex", &z, 1, MPI_C_FLOAT_COMPLEX,
                 (const unsigned char[]){0x3f, 0x80, 0, 0, 0x40, 0, 0, 0}, 8);
    struct { short v; int i; } si = {7, 0x0a0b0c0d};
    expect_bytes("short_int", &si, 1, MPI_SHORT_INT, (const unsigned char[]){0, 7, 0x0a, 0x0b, 0x0c, 0x0d}, 6);
    struct { double v; int i; } di = {2.0, 1};
    expect_bytes("double_int", &di, 1, MPI_DOUBLE_INT,
                 (const unsigned char[]){0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 12);
    struct { long v; int i; } li = {-1, 2};
    expect_bytes("long_int", &li, 1, MPI_LONG_INT, (const unsigned char[]){0xff, 0xff, 0xff, 0xff, 0, 0, 0, 2}, 8);
    /* a struct {char; long; double} with padding in memory and none in external32 */
    struct { char c; long l; double d; } st = {'A', 258, 0.5};
    int bl[] = {1, 1, 1};
    MPI_Aint disp[] = {0, 8, 16};
    MPI_Datatype ty[] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE}, t;
    MPI_Type_create_struct(3, bl, disp, ty, &t);
    MPI_Type_commit(&t);
    expect_bytes("struct{char;long;double}", &st, 1, t,
                 (const unsigned char[]){'A', 0, 0, 1, 2, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0}, 13);
    /* round trip of two elements of the struct */
    struct { char c; long l; double d; } two[2] = {{'x', -77, 1e300}, {'y', 123456, -0.25}}, back[2];
    unsigned char buf[64];
    MPI_Aint pos = 0;
    T_OK(MPI_Pack_external("external32", two, 2, t, buf, sizeof buf, &pos));
    T_CHECK(pos == 26, "two structs: %ld bytes", (long)pos);
    memset(back, 0, sizeof back);
    pos = 0;
    T_OK(MPI_Unpack_external("external32", buf, 26, &pos, back, 2, t));
    T_CHECK(pos == 26 && back[0].c == 'x' && back[0].l == -77 && back[0].d == 1e300 && back[1].c == 'y' &&
            back[1].l == 123456 && back[1].d == -0.25, "struct round trip");
    MPI_Type_free(&t);
    /* vector of long doubles round trip (binary128 <-> x87) */
    long double lds[6] = {1.0L / 3, -1e-4000L, 1e4000L, 0.0L, -0.0L, 12345.678L}, ldb[6];
    MPI_Type_contiguous(3, MPI_LONG_DOUBLE, &t);
    MPI_Type_commit(&t);
    pos = 0;
    unsigned char big[256];
    T_OK(MPI_Pack_external("external32", lds, 2, t, big, sizeof big, &pos));
    T_CHECK(pos == 6 * 16, "6 long doubles: %ld bytes", (long)pos);
    pos = 0;
    memset(ldb, 0, sizeof ldb);
    T_OK(MPI_Unpack_external("external32", big, sizeof big, &pos, ldb, 2, t));
    for (int k = 0; k < 6; k++)
        T_CHECK(ldb[k] == lds[k] && __builtin_signbit(ldb[k]) == __builtin_signbit(lds[k]),
                "long double round trip [%d]", k);
    MPI_Type_free(&t);
    /* errors */
    pos = 0;
    T_CHECK(MPI_Pack_external("native", &i, 1, MPI_INT, buf, 64, &pos) == MPI_ERR_UNSUPPORTED_DATAREP, "datarep");
    pos = 62;
    T_CHECK(MPI_Pack_external("external32", &i, 1, MPI_INT, buf, 64, &pos) == MPI_ERR_TRUNCATE, "no room");
    MPI_Count csize;
    T_OK(MPI_Pack_external_size_c("external32", 10, MPI_LONG_DOUBLE_INT, &csize));
    T_CHECK(csize == 200, "long_double_int external size %lld", (long long)csize);
    printf("dt_external32: %d checks, %d failures\n", dt_checks, dt_failures);
    return dt_failures ? 1 : 0;
}
