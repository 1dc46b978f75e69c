/*
 * Every collective x every registered algorithm (forced in turn, list taken from the library's
 * registry) x counts 0, 1, odd, large x datatypes (contiguous int, double, a strided vector) x
 * operations (sum, max, a user-defined non-commutative 2x2 matrix product, a user-defined sum on a
 * type whose data starts 4 bytes into the buffer) x MPI_IN_PLACE x
 * roots, in blocking, nonblocking and persistent form. Every result is checked against a serial
 * reference computed locally, and receive-buffer gaps must stay untouched.
 *
 * Usage: coll_sweep [collective-name]   (default: all). On a non-EtherMPI library the registry
 * hooks are absent (weak) and only the default selection is tested.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

/* EtherMPI's registry hooks (weak: absent on other implementations). */
int empi_info_coll_algorithms(void (*cb)(const char *, const char *, const char *)) __attribute__((weak));
int empi_info_coll_force(const char *coll, const char *alg) __attribute__((weak));

static int rank, size;
static const char *only;
static long checks;

#define SENT (-7777777)

/* ------------------------------------------------------------- datatypes */

typedef struct {
    MPI_Datatype type;
    int ints;     /* data ints per element */
    int stride;   /* ints per element extent */
    const char *name;
} tdesc_t;

static tdesc_t T_INT, T_VEC;

static void types_init(void)
{
    T_INT = (tdesc_t){MPI_INT, 1, 1, "int"};
    MPI_Datatype v;
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    T_VEC = (tdesc_t){v, 2, 3, "vec"};
}

static int *alloc_elems(const tdesc_t *t, long n)
{
    long ints = n * t->stride + 4;
    int *b = malloc((size_t)ints * sizeof(int));
    for (long i = 0; i < ints; i++)
        b[i] = SENT;
    return b;
}

static int *slot(int *buf, const tdesc_t *t, long elem, int k)
{
    return buf + elem * t->stride + (t->stride == 1 ? 0 : 2 * k);
}

static int val(int r, long e, int k, int salt)
{
    return (int)((r * 131 + e * 7 + k * 3 + salt * 17) % 1000);
}

static void fill(int *buf, const tdesc_t *t, long first, long n, int r, long e0, int salt)
{
    for (long e = 0; e < n; e++)
        for (int k = 0; k < t->ints; k++)
            *slot(buf, t, first + e, k) = val(r, e0 + e, k, salt);
}

/* Check n elements at `first` carry (r, e0..) data; gaps of the vector type are untouched. */
static void expect(int *buf, const tdesc_t *t, long first, long n, int r, long e0, int salt, const char *what)
{
    for (long e = 0; e < n; e++) {
        for (int k = 0; k < t->ints; k++) {
            int got = *slot(buf, t, first + e, k), want = val(r, e0 + e, k, salt);
            CHECK(got == want, "%s: elem %ld.%d from rank %d: got %d want %d", what, first + e, k, r, got, want);
        }
        if (t->stride == 3)
            CHECK(buf[(first + e) * 3 + 1] == SENT, "%s: gap of elem %ld overwritten", what, first + e);
    }
    checks++;
}

/* ------------------------------------------------------------- forms */

typedef enum { BLOCKING, NONBLOCKING, PERSISTENT } form_t;
static const char *form_name[] = {"blocking", "nonblocking", "persistent"};

static void complete(form_t f, MPI_Request *req)
{
    if (f == NONBLOCKING) {
        CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
        CHECK(*req == MPI_REQUEST_NULL, "request not freed");
    } else if (f == PERSISTENT) {
        CHECK_MPI(MPI_Start(req));
        CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Request_free(req));
    }
}

static const long counts[] = {0, 1, 7, 1031};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

/* ------------------------------------------------------------- data movement */

static void t_bcast(form_t f, const tdesc_t *t, long n, int root)
{
    int *b = alloc_elems(t, n);
    if (rank == root)
        fill(b, t, 0, n, root, 0, 1);
    MPI_Request req;
    if (f == BLOCKING)
        CHECK_MPI(MPI_Bcast(b, (int)n, t->type, root, MPI_COMM_WORLD));
    else if (f == NONBLOCKING)
        CHECK_MPI(MPI_Ibcast(b, (int)n, t->type, root, MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Bcast_init(b, (int)n, t->type, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    complete(f, &req);
    expect(b, t, 0, n, root, 0, 1, "bcast");
    free(b);
}

static void t_gather(form_t f, const tdesc_t *t, long n, int root, int inplace)
{
    int *s = alloc_elems(t, n), *r = alloc_elems(t, n * size);
    fill(s, t, 0, n, rank, 0, 2);
    if (rank == root && inplace)
        fill(r, t, n * rank, n, rank, 0, 2);
    const void *sb = rank == root && inplace ? MPI_IN_PLACE : s;
    MPI_Request req;
    if (f == BLOCKING)
        CHECK_MPI(MPI_Gather(sb, (int)n, t->type, r, (int)n, t->type, root, MPI_COMM_WORLD));
    else if (f == NONBLOCKING)
        CHECK_MPI(MPI_Igather(sb, (int)n, t->type, r, (int)n, t->type, root, MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Gather_init(sb, (int)n, t->type, r, (int)n, t->type, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    complete(f, &req);
    if (rank == root)
        for (int i = 0; i < size; i++)
            expect(r, t, n * i, n, i, 0, 2, "gather");
    free(s);
    free(r);
}

static void t_gatherv(form_t f, const tdesc_t *t, long n, int root, int inplace)
{
    /* rank i sends n + i elements, placed in reverse order with a gap of one element */
    int *rc = malloc(sizeof(int) * size), *dp = malloc(sizeof(int) * size);
    long total = 0;
    for (int i = size - 1; i >= 0; i--) {
        rc[i] = (int)(n ? n + i : 0);
        dp[i] = (int)total;
        total += rc[i] + 1;
    }
    int *s = alloc_elems(t, rc[rank]), *r = alloc_elems(t, total);
    fill(s, t, 0, rc[rank], rank, 0, 3);
    if (rank == root && inplace)
        fill(r, t, dp[rank], rc[rank], rank, 0, 3);
    const void *sb = rank == root && inplace ? MPI_IN_PLACE : s;
    MPI_Request req;
    if (f == BLOCKING)
        CHECK_MPI(MPI_Gatherv(sb, rc[rank], t->type, r, rc, dp, t->type, root, MPI_COMM_WORLD));
    else if (f == NONBLOCKING)
        CHECK_MPI(MPI_Igatherv(sb, rc[rank], t->type, r, rc, dp, t->type, root, MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Gatherv_init(sb, rc[rank], t->type, r, rc, dp, t->type, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    complete(f, &req);
    if (rank == root)
        for (int i = 0; i < size; i++)
            expect(r, t, dp[i], rc[i], i, 0, 3, "gatherv");
    free(s);
    free(r);
    free(rc);
    free(dp);
}

static void t_scatter(form_t f, const tdesc_t *t, long n, int root, int inplace)
{
    int *s = alloc_elems(t, n * size), *r = alloc_elems(t, n);
    if (rank == root)
        for (int i = 0; i < size; i++)
            fill(s, t, n * i, n, i, 0, 4);
    void *rb = rank == root && inplace ? MPI_IN_PLACE : r;
    MPI_Request req;
    if (f == BLOCKING)
        CHECK_MPI(MPI_Scatter(s, (int)n, t->type, rb, (int)n, t->type, root, MPI_COMM_WORLD));
    else if (f == NONBLOCKING)
        CHECK_MPI(MPI_Iscatter(s, (int)n, t->type, rb, (int)n, t->type, root, MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Scatter_init(s, (int)n, t->type, rb, (int)n, t->type, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    complete(f, &req);
    if (rank == root && inplace)
        expect(s, t, n * rank, n, rank, 0, 4, "scatter in place");
    else
        expect(r, t, 0, n, rank, 0, 4, "scatter");
    free(s);
    free(r);
}

static void t_scatterv(form_t f, const tdesc_t *t, long n, int root, int inplace)
{
    int *sc = malloc(sizeof(int) * size), *dp = malloc(sizeof(int) * size);
    long total = 0;
    for (int i = size - 1; i >= 0; i--) {
        sc[i] = (int)(n ? n + 2 * i : 0);
        dp[i] = (int)total;
        total += sc[i] + 2;
    }
    int *s = alloc_elems(t, total), *r = alloc_elems(t, sc[rank]);
    if (rank == root)
        for (int i = 0; i < size; i++)
            fill(s, t, dp[i], sc[i], i, 0, 5);
    void *rb = rank == root && inplace ? MPI_IN_PLACE : r;
    MPI_Request req;
    if (f == BLOCKING)
        CHECK_MPI(MPI_Scatterv(s, sc, dp, t->type, rb, sc[rank], t->type, root, MPI_COMM_WORLD));
    else if (f == NONBLOCKING)
        CHECK_MPI(MPI_Iscatterv(s, sc, dp, t->type, rb, sc[rank], t->type, root, MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Scatterv_init(s, sc, dp, t->type, rb, sc[rank], t->type, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    complete(f, &req);
    if (!(rank == root && inplace))
        expect(r, t, 0, sc[rank], rank, 0, 5, "scatterv");
    free(s);
    free(r);
    free(sc);
    free(dp);
}

static void t_allgather(form_t f, const tdesc_t *t, long n, int inplace)
{
    int *s = alloc_elems(t, n), *r = alloc_elems(t, n * size);
    fill(s, t, 0, n, rank, 0, 6);
    if (inplace)
        fill(r, t, n * rank, n, rank, 0, 6);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    MPI_Request req;
    if (f == BLOCKING)
        CHECK_MPI(MPI_Allgather(sb, (int)n, t->type, r, (int)n, t->type, MPI_COMM_WORLD));
    else if (f == NONBLOCKING)
        CHECK_MPI(MPI_Iallgather(sb, (int)n, t->type, r, (int)n, t->type, MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Allgather_init(sb, (int)n, t->type, r, (int)n, t->type, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    complete(f, &req);
    for (int i = 0; i < size; i++)
        expect(r, t, n * i, n, i, 0, 6, "allgather");
    free(s);
    free(r);
}

static void t_allgatherv(form_t f, const tdesc_t *t, long n, int inplace)
{
    int *rc = malloc(sizeof(int) * size), *dp = malloc(sizeof(int) * size);
    long total = 0;
    for (int i = 0; i < size; i++) {
        rc[i] = (int)(n ? (n + i) % (n + 3) : 0);
        dp[i] = (int)total;
        total += rc[i] + 1;
    }
    int *s = alloc_elems(t, rc[rank]), *r = alloc_elems(t, total);
    fill(s, t, 0, rc[rank], rank, 0, 7);
    if (inplace)
        fill(r, t, dp[rank], rc[rank], rank, 0, 7);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    MPI_Request req;
    if (f == BLOCKING)
        CHECK_MPI(MPI_Allgatherv(sb, rc[rank], t->type, r, rc, dp, t->type, MPI_COMM_WORLD));
    else if (f == NONBLOCKING)
        CHECK_MPI(MPI_Iallgatherv(sb, rc[rank], t->type, r, rc, dp, t->type, MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Allgatherv_init(sb, rc[rank], t->type, r, rc, dp, t->type, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    complete(f, &req);
    for (int i = 0; i < size; i++)
        expect(r, t, dp[i], rc[i], i, 0, 7, "allgatherv");
    free(s);
    free(r);
    free(rc);
    free(dp);
}

/* block from rank i to rank j carries val(i, j * n + e) */
static void t_alltoall(form_t f, const tdesc_t *t, long n, int inplace)
{
    int *s = alloc_elems(t, n * size), *r = alloc_elems(t, n * size);
    for (int j = 0; j < size; j++)
        fill(inplace ? r : s, t, n * j, n, rank, n * j, 8);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    MPI_Request req;
    if (f == BLOCKING)
        CHECK_MPI(MPI_Alltoall(sb, (int)n, t->type, r, (int)n, t->type, MPI_COMM_WORLD));
    else if (f == NONBLOCKING)
        CHECK_MPI(MPI_Ialltoall(sb, (int)n, t->type, r, (int)n, t->type, MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Alltoall_init(sb, (int)n, t->type, r, (int)n, t->type, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    complete(f, &req);
    for (int i = 0; i < size; i++)
        expect(r, t, n * i, n, i, n * rank, 8, "alltoall");
    free(s);
    free(r);
}

/* alltoallv: rank i sends (i + j) % 3 * n' elements to j; w-variant uses byte displacements */
static void t_alltoallv(form_t f, const tdesc_t *t, long n, int inplace, int w)
{
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
    int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
    long st = 0, rt = 0;
    for (int j = 0; j < size; j++) {
        sc[j] = (int)(n ? n + (rank + j) % 3 : 0);
        rc[j] = (int)(n ? n + (j + rank) % 3 : 0);
        types[j] = t->type;
    }
    for (int j = size - 1; j >= 0; j--) {   /* reverse placement with gaps */
        sd[j] = (int)st;
        st += sc[j] + 1;
        rd[j] = (int)rt;
        rt += rc[j] + 1;
    }
    if (inplace) {
        for (int j = 0; j < size; j++) {
            sc[j] = rc[j];
            sd[j] = rd[j];
        }
    }
    int *s = alloc_elems(t, st), *r = alloc_elems(t, rt);
    for (int j = 0; j < size; j++)
        fill(inplace ? r : s, t, inplace ? rd[j] : sd[j], sc[j], rank, 1000 * j, 9);
    int *sdb = malloc(sizeof(int) * size), *rdb = malloc(sizeof(int) * size);
    for (int j = 0; j < size; j++) {
        sdb[j] = sd[j] * t->stride * (int)sizeof(int);
        rdb[j] = rd[j] * t->stride * (int)sizeof(int);
    }
    const void *sb = inplace ? MPI_IN_PLACE : s;
    MPI_Request req;
    if (!w) {
        if (f == BLOCKING)
            CHECK_MPI(MPI_Alltoallv(sb, sc, sd, t->type, r, rc, rd, t->type, MPI_COMM_WORLD));
        else if (f == NONBLOCKING)
            CHECK_MPI(MPI_Ialltoallv(sb, sc, sd, t->type, r, rc, rd, t->type, MPI_COMM_WORLD, &req));
        else
            CHECK_MPI(MPI_Alltoallv_init(sb, sc, sd, t->type, r, rc, rd, t->type, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    } else {
        if (f == BLOCKING)
            CHECK_MPI(MPI_Alltoallw(sb, sc, sdb, types, r, rc, rdb, types, MPI_COMM_WORLD));
        else if (f == NONBLOCKING)
            CHECK_MPI(MPI_Ialltoallw(sb, sc, sdb, types, r, rc, rdb, types, MPI_COMM_WORLD, &req));
        else
            CHECK_MPI(MPI_Alltoallw_init(sb, sc, sdb, types, r, rc, rdb, types, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    }
    complete(f, &req);
    for (int i = 0; i < size; i++)
        expect(r, t, rd[i], rc[i], i, 1000 * rank, 9, w ? "alltoallw" : "alltoallv");
    free(s);
    free(r);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sdb);
    free(rdb);
    free(types);
}

/* ------------------------------------------------------------- reductions */

/* 2x2 unsigned matrices: a non-commutative, associative product. */
typedef struct { unsigned m[4]; } mat_t;
static MPI_Datatype T_MAT;
static MPI_Op OP_MATMUL;

static mat_t matmul(mat_t a, mat_t b)
{
    mat_t c;
    c.m[0] = a.m[0] * b.m[0] + a.m[1] * b.m[2];
    c.m[1] = a.m[0] * b.m[1] + a.m[1] * b.m[3];
    c.m[2] = a.m[2] * b.m[0] + a.m[3] * b.m[2];
    c.m[3] = a.m[2] * b.m[1] + a.m[3] * b.m[3];
    return c;
}

static void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    mat_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = matmul(a[i], b[i]);
}

static mat_t matval(int r, long e)
{
    mat_t m = {{(unsigned)(r + 1 + e % 3), (unsigned)(e % 5), (unsigned)(r % 4), 1u + (unsigned)(r * e % 7)}};
    return m;
}

/* One int 4 bytes into each element's place (lb 4, extent 4): a user function must find the data
   where the type says, and the library must hand it buffers where the type applies. */
static MPI_Datatype T_SHIFTED;
static MPI_Op OP_SHIFTED_SUM;

static void shifted_sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(*dt, &lb, &extent);
    for (int i = 0; i < *len; i++)
        *(int *)((char *)inout + lb + i * extent) += *(int *)((char *)in + lb + i * extent);
}

typedef enum { R_INT_SUM, R_INT_MAX, R_DBL_SUM, R_MAT, R_SHIFTED } rkind_t;
#define R_KINDS 5
static const char *rk_name[] = {"int-sum", "int-max", "double-sum", "matmul(noncomm)", "shifted-sum"};

static size_t rk_size(rkind_t k) { return k == R_DBL_SUM ? sizeof(double) : k == R_MAT ? sizeof(mat_t) : sizeof(int); }
static size_t rk_lead(rkind_t k) { return k == R_SHIFTED ? sizeof(int) : 0; }   /* bytes before the data */
static MPI_Datatype rk_type(rkind_t k)
{
    return k == R_DBL_SUM ? MPI_DOUBLE : k == R_MAT ? T_MAT : k == R_SHIFTED ? T_SHIFTED : MPI_INT;
}
static MPI_Op rk_op(rkind_t k)
{
    return k == R_INT_SUM || k == R_DBL_SUM ? MPI_SUM : k == R_INT_MAX ? MPI_MAX : k == R_MAT ? OP_MATMUL : OP_SHIFTED_SUM;
}

typedef union { int i; double d; mat_t m; } rval_t;

static rval_t rk_val1(rkind_t k, long e, int r)
{
    rval_t v;
    memset(&v, 0, sizeof v);
    switch (k) {
    case R_INT_SUM: case R_SHIFTED: v.i = val(r, e, 0, 11); break;
    case R_INT_MAX: v.i = (int)((r * 7919 + e * 104729) % 1009); break;
    case R_DBL_SUM: v.d = (double)val(r, e, 0, 12) * 0.5; break;
    case R_MAT: v.m = matval(r, e); break;
    }
    return v;
}

/* Element e reduced over ranks lo..hi, in rank order. */
static rval_t rk_ref(rkind_t k, long e, int lo, int hi)
{
    rval_t acc = rk_val1(k, e, lo);
    for (int r = lo + 1; r <= hi; r++) {
        rval_t x = rk_val1(k, e, r);
        switch (k) {
        case R_INT_SUM: case R_SHIFTED: acc.i += x.i; break;
        case R_INT_MAX: if (x.i > acc.i) acc.i = x.i; break;
        case R_DBL_SUM: acc.d += x.d; break;
        case R_MAT: acc.m = matmul(acc.m, x.m); break;
        }
    }
    return acc;
}

static void rk_expect(rkind_t k, const void *got, long e0, long n, int lo, int hi, const char *what)
{
    size_t sz = rk_size(k);
    for (long e = 0; e < n; e++) {
        rval_t w = rk_ref(k, e0 + e, lo, hi);
        int ok = memcmp((const char *)got + rk_lead(k) + sz * (size_t)e, &w, sz) == 0;
        CHECK(ok, "%s %s: element %ld (ranks %d..%d) wrong", what, rk_name[k], e0 + e, lo, hi);
    }
    checks++;
}

static void *rk_alloc(rkind_t k, long n)
{
    return calloc((size_t)n + 1, rk_size(k));
}

/* element e of buf holds rank r's value of global element e0 + e */
static void rk_fill(rkind_t k, void *buf, long n, int r, long e0)
{
    size_t sz = rk_size(k);
    for (long e = 0; e < n; e++) {
        rval_t v = rk_val1(k, e0 + e, r);
        memcpy((char *)buf + rk_lead(k) + sz * (size_t)e, &v, sz);
    }
}

typedef enum { C_REDUCE, C_ALLREDUCE, C_SCAN, C_EXSCAN } rcoll_t;

static void t_red(rcoll_t c, form_t f, rkind_t k, long n, int root, int inplace)
{
    void *s = rk_alloc(k, n), *r = rk_alloc(k, n);
    rk_fill(k, s, n, rank, 0);
    int use_ip = inplace && (c != C_REDUCE || rank == root);
    if (use_ip)
        memcpy(r, s, rk_lead(k) + rk_size(k) * (size_t)n);
    const void *sb = use_ip ? MPI_IN_PLACE : s;
    MPI_Datatype dt = rk_type(k);
    MPI_Op op = rk_op(k);
    MPI_Request req;
    int cnt = (int)n;
    switch (c) {
    case C_REDUCE:
        if (f == BLOCKING) CHECK_MPI(MPI_Reduce(sb, r, cnt, dt, op, root, MPI_COMM_WORLD));
        else if (f == NONBLOCKING) CHECK_MPI(MPI_Ireduce(sb, r, cnt, dt, op, root, MPI_COMM_WORLD, &req));
        else CHECK_MPI(MPI_Reduce_init(sb, r, cnt, dt, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        break;
    case C_ALLREDUCE:
        if (f == BLOCKING) CHECK_MPI(MPI_Allreduce(sb, r, cnt, dt, op, MPI_COMM_WORLD));
        else if (f == NONBLOCKING) CHECK_MPI(MPI_Iallreduce(sb, r, cnt, dt, op, MPI_COMM_WORLD, &req));
        else CHECK_MPI(MPI_Allreduce_init(sb, r, cnt, dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        break;
    case C_SCAN:
        if (f == BLOCKING) CHECK_MPI(MPI_Scan(sb, r, cnt, dt, op, MPI_COMM_WORLD));
        else if (f == NONBLOCKING) CHECK_MPI(MPI_Iscan(sb, r, cnt, dt, op, MPI_COMM_WORLD, &req));
        else CHECK_MPI(MPI_Scan_init(sb, r, cnt, dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        break;
    case C_EXSCAN:
        if (f == BLOCKING) CHECK_MPI(MPI_Exscan(sb, r, cnt, dt, op, MPI_COMM_WORLD));
        else if (f == NONBLOCKING) CHECK_MPI(MPI_Iexscan(sb, r, cnt, dt, op, MPI_COMM_WORLD, &req));
        else CHECK_MPI(MPI_Exscan_init(sb, r, cnt, dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        break;
    }
    complete(f, &req);
    static const char *names[] = {"reduce", "allreduce", "scan", "exscan"};
    if (c == C_ALLREDUCE || (c == C_REDUCE && rank == root))
        rk_expect(k, r, 0, n, 0, size - 1, names[c]);
    else if (c == C_SCAN)
        rk_expect(k, r, 0, n, 0, rank, names[c]);
    else if (c == C_EXSCAN && rank > 0)
        rk_expect(k, r, 0, n, 0, rank - 1, names[c]);
    free(s);
    free(r);
}

static void t_reduce_scatter(form_t f, rkind_t k, long n, int inplace, int block)
{
    int *rc = malloc(sizeof(int) * size);
    long total = 0, mine = 0;
    for (int i = 0; i < size; i++) {
        rc[i] = (int)(block ? n : (n ? (n + i) % (n + 2) : 0));
        if (i < rank)
            mine += rc[i];
        total += rc[i];
    }
    void *s = rk_alloc(k, total), *r = rk_alloc(k, inplace ? total : rc[rank]);
    rk_fill(k, inplace ? r : s, total, rank, 0);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    MPI_Datatype dt = rk_type(k);
    MPI_Op op = rk_op(k);
    MPI_Request req;
    if (block) {
        if (f == BLOCKING) CHECK_MPI(MPI_Reduce_scatter_block(sb, r, (int)n, dt, op, MPI_COMM_WORLD));
        else if (f == NONBLOCKING) CHECK_MPI(MPI_Ireduce_scatter_block(sb, r, (int)n, dt, op, MPI_COMM_WORLD, &req));
        else CHECK_MPI(MPI_Reduce_scatter_block_init(sb, r, (int)n, dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    } else {
        if (f == BLOCKING) CHECK_MPI(MPI_Reduce_scatter(sb, r, rc, dt, op, MPI_COMM_WORLD));
        else if (f == NONBLOCKING) CHECK_MPI(MPI_Ireduce_scatter(sb, r, rc, dt, op, MPI_COMM_WORLD, &req));
        else CHECK_MPI(MPI_Reduce_scatter_init(sb, r, rc, dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    }
    complete(f, &req);
    rk_expect(k, r, mine, rc[rank], 0, size - 1, block ? "reduce_scatter_block" : "reduce_scatter");
    free(s);
    free(r);
    free(rc);
}

static void t_barrier(form_t f)
{
    MPI_Request req;
    if (f == BLOCKING)
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    else if (f == NONBLOCKING)
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    complete(f, &req);
    checks++;
}

/* ------------------------------------------------------------- driver */

static void run_coll(const char *coll)
{
    const tdesc_t *types[] = {&T_INT, &T_VEC};
    int roots[] = {0, size - 1, size / 2};
    for (int f = 0; f < 3; f++) {
        if (!strcmp(coll, "barrier")) {
            t_barrier(f);
            continue;
        }
        for (int ci = 0; ci < NCOUNTS; ci++) {
            long n = counts[ci];
            if (f != BLOCKING && ci == 2)
                continue;   /* keep the sweep short: odd count in blocking form only */
            for (int ti = 0; ti < 2; ti++) {
                const tdesc_t *t = types[ti];
                for (int ip = 0; ip < 2; ip++) {
                    for (int ri = 0; ri < 3; ri++) {
                        int root = roots[ri];
                        if (ri > 0 && (ip || ti)) continue;
                        if (!strcmp(coll, "bcast") && !ip) t_bcast(f, t, n * (ci == 3 ? 41 : 1), root);
                        else if (!strcmp(coll, "gather")) t_gather(f, t, n, root, ip);
                        else if (!strcmp(coll, "gatherv")) t_gatherv(f, t, n, root, ip);
                        else if (!strcmp(coll, "scatter")) t_scatter(f, t, n, root, ip);
                        else if (!strcmp(coll, "scatterv")) t_scatterv(f, t, n, root, ip);
                        else if (ri == 0 && !strcmp(coll, "allgather")) t_allgather(f, t, n, ip);
                        else if (ri == 0 && !strcmp(coll, "allgatherv")) t_allgatherv(f, t, n, ip);
                        else if (ri == 0 && !strcmp(coll, "alltoall")) t_alltoall(f, t, n / (ci == 3 ? 4 : 1), ip);
                        else if (ri == 0 && !strcmp(coll, "alltoallv")) t_alltoallv(f, t, n / (ci == 3 ? 4 : 1), ip, 0);
                        else if (ri == 0 && !strcmp(coll, "alltoallw")) t_alltoallv(f, t, n / (ci == 3 ? 4 : 1), ip, 1);
                    }
                }
            }
            for (int k = 0; k < R_KINDS; k++) {
                for (int ip = 0; ip < 2; ip++) {
                    long rn = n * (ci == 3 ? 8 : 1);
                    if (!strcmp(coll, "reduce")) {
                        t_red(C_REDUCE, f, k, rn, 0, ip);
                        t_red(C_REDUCE, f, k, n, size - 1, ip);
                    } else if (!strcmp(coll, "allreduce")) t_red(C_ALLREDUCE, f, k, rn, 0, ip);
                    else if (!strcmp(coll, "scan")) t_red(C_SCAN, f, k, n, 0, ip);
                    else if (!strcmp(coll, "exscan")) t_red(C_EXSCAN, f, k, n, 0, ip);
                    else if (!strcmp(coll, "reduce_scatter")) t_reduce_scatter(f, k, rn, ip, 0);
                    else if (!strcmp(coll, "reduce_scatter_block")) t_reduce_scatter(f, k, rn, ip, 1);
                }
            }
        }
    }
}

static struct { char coll[32], alg[48]; } algs[128];
static int nalgs;

static void collect(const char *coll, const char *alg, const char *restrictions)
{
    (void)restrictions;
    if (nalgs < 128) {
        snprintf(algs[nalgs].coll, sizeof algs[nalgs].coll, "%s", coll);
        snprintf(algs[nalgs].alg, sizeof algs[nalgs].alg, "%s", alg);
        nalgs++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    only = argc > 1 ? argv[1] : NULL;
    types_init();
    CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &T_MAT));
    CHECK_MPI(MPI_Type_commit(&T_MAT));
    CHECK_MPI(MPI_Op_create(matmul_fn, 0, &OP_MATMUL));
    CHECK_MPI(MPI_Type_create_hindexed(1, (int[]){1}, (MPI_Aint[]){sizeof(int)}, MPI_INT, &T_SHIFTED));
    CHECK_MPI(MPI_Type_commit(&T_SHIFTED));
    CHECK_MPI(MPI_Op_create(shifted_sum_fn, 1, &OP_SHIFTED_SUM));

    static const char *colls[] = {"barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter",
                                  "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
                                  "reduce_scatter", "reduce_scatter_block", "scan", "exscan"};
    if (empi_info_coll_algorithms && empi_info_coll_force) {
        empi_info_coll_algorithms(collect);
        for (int i = 0; i < nalgs; i++) {
            if (only && strcmp(only, algs[i].coll))
                continue;
            CHECK(empi_info_coll_force(algs[i].coll, algs[i].alg) == 0, "cannot force %s", algs[i].alg);
            long before = checks;
            run_coll(algs[i].coll);
            empi_info_coll_force(algs[i].coll, NULL);
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            if (rank == 0 && getenv("COLL_SWEEP_VERBOSE"))
                printf("%-22s %-24s ok (%ld checks)\n", algs[i].coll, algs[i].alg, checks - before);
        }
    }
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)   /* default selection */
        if (!only || !strcmp(only, colls[i]))
            run_coll(colls[i]);
    (void)form_name;
    CHECK_MPI(MPI_Op_free(&OP_MATMUL));
    CHECK_MPI(MPI_Op_free(&OP_SHIFTED_SUM));
    CHECK_MPI(MPI_Type_free(&T_SHIFTED));
    CHECK_MPI(MPI_Type_free(&T_MAT));
    CHECK_MPI(MPI_Type_free(&T_VEC.type));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("coll_sweep: %d ranks, %d algorithms, %ld checks on rank 0: OK\n", size, nalgs, checks);
    MPI_Finalize();
    return 0;
}
