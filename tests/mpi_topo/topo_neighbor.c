/*
 * Neighborhood collectives (allgather, allgatherv, alltoall, alltoallv, alltoallw) in their
 * blocking, nonblocking, persistent and large-count forms, on Cartesian (periodic, non-periodic,
 * degenerate dimensions of size 1 and 2, zero-dimensional), graph and distributed-graph topologies
 * (with repeated edges and self-loops). Every block carries (sender, sender's block, receiver) and
 * a pattern derived from them; the whole receive buffer is compared byte for byte with the image
 * the standard prescribes, so misplaced blocks, overwritten MPI_PROC_NULL slots and gaps show up.
 *
 * Which sender block lands in receive block j (MPI-4.1 section 8.6):
 *   Cartesian: the neighbor's block j^1 (it sent "down" what arrives from "up" and vice versa);
 *   graph and distributed graph: of the edges between the pair, the k-th to arrive from a
 *   neighbor is the k-th it sent to this process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

#define SENTINEL 0xEE
#define MAXB 8 /* ints reserved per block in v/w buffers */

typedef struct {
    const char *name;
    MPI_Comm comm;
    int kind, me, size;
    int nin, nout;
    int in[64], out[64];
    int maxout;
    int *all_out, *all_nout; /* every member's out-list (graph kinds) */
} topo_t;

/* ---------------------------------------------------------------- topology description */

static void read_lists(topo_t *t)
{
    MPI_Comm_rank(t->comm, &t->me);
    MPI_Comm_size(t->comm, &t->size);
    CHECK_MPI(MPI_Topo_test(t->comm, &t->kind));
    if (t->kind == MPI_CART) {
        int nd;
        CHECK_MPI(MPI_Cartdim_get(t->comm, &nd));
        for (int d = 0; d < nd; d++)
            CHECK_MPI(MPI_Cart_shift(t->comm, d, 1, &t->in[2 * d], &t->in[2 * d + 1]));
        t->nin = t->nout = 2 * nd;
        memcpy(t->out, t->in, sizeof t->in);
    } else if (t->kind == MPI_GRAPH) {
        CHECK_MPI(MPI_Graph_neighbors_count(t->comm, t->me, &t->nin));
        CHECK_MPI(MPI_Graph_neighbors(t->comm, t->me, 64, t->in));
        t->nout = t->nin;
        memcpy(t->out, t->in, sizeof t->in);
    } else {
        int weighted;
        CHECK_MPI(MPI_Dist_graph_neighbors_count(t->comm, &t->nin, &t->nout, &weighted));
        int inw[64], outw[64];
        CHECK_MPI(MPI_Dist_graph_neighbors(t->comm, 64, t->in, weighted ? inw : MPI_UNWEIGHTED, 64, t->out,
                                           weighted ? outw : MPI_UNWEIGHTED));
    }
    CHECK(t->nin <= 64 && t->nout <= 64, "%s: degree too large", t->name);
    CHECK_MPI(MPI_Allreduce(&t->nout, &t->maxout, 1, MPI_INT, MPI_MAX, t->comm));
    if (t->maxout == 0)
        t->maxout = 1;
    t->all_out = malloc((size_t)t->size * (size_t)t->maxout * sizeof(int));
    t->all_nout = malloc((size_t)t->size * sizeof(int));
    int *mine = calloc((size_t)t->maxout, sizeof(int));
    memcpy(mine, t->out, (size_t)t->nout * sizeof(int));
    CHECK_MPI(MPI_Allgather(mine, t->maxout, MPI_INT, t->all_out, t->maxout, MPI_INT, t->comm));
    CHECK_MPI(MPI_Allgather(&t->nout, 1, MPI_INT, t->all_nout, 1, MPI_INT, t->comm));
    free(mine);
}

/* The sender's block index that must land in receive block j. */
static int sender_slot(const topo_t *t, int j)
{
    if (t->kind == MPI_CART)
        return j ^ 1;
    int q = t->in[j], m = 0;
    for (int i = 0; i < j; i++)
        m += t->in[i] == q;
    const int *qo = t->all_out + (size_t)q * t->maxout;
    for (int s = 0; s < t->all_nout[q]; s++)
        if (qo[s] == t->me && m-- == 0)
            return s;
    CHECK(0, "%s: neighbor %d has no %d-th edge to %d", t->name, q, m, t->me);
    return -1;
}

/* ---------------------------------------------------------------- block contents */

static int bval(int q, int s, int d, int i)
{
    if (i == 0)
        return q;
    if (i == 1)
        return s;
    if (i == 2)
        return d;
    return (int)((unsigned)q * 1000003u + (unsigned)s * 7919u + (unsigned)(d + 1) * 131u + (unsigned)i * 17u);
}

/* n ints of block (q, s, d) at p, every stride-th int. */
static void put_block(int *p, int n, int stride, int q, int s, int d)
{
    for (int i = 0; i < n; i++)
        p[i * stride] = bval(q, s, d, i);
}

/* per-pair block length of the v and w forms: 3..6 ints */
static int vlen(int q, int s, int d)
{
    return 3 + (q + 2 * d + s) % 4;
}

/* ---------------------------------------------------------------- running one call in every form */

enum { M_BLOCKING, M_NONBLOCKING, M_PERSISTENT, M_BLOCKING_C, M_PERSISTENT_C, M_NONBLOCKING_C, NMODES };
static const char *mode_name[] = {"blocking", "nonblocking", "persistent", "blocking_c", "persistent_c",
                                  "nonblocking_c"};

typedef struct call call_t;
typedef void (*issue_fn)(call_t *c, int mode, MPI_Request *req);

struct call {
    topo_t *t;
    const char *what;
    void *sbuf, *rbuf, *expect;
    size_t rbytes;
    int scount, rcount;
    int *sc, *sd, *rc, *rd;            /* int counts/displacements */
    MPI_Count *scc, *rcc;              /* the same as MPI_Count */
    int *wsc, *wrc;                    /* alltoallw: counts in elements of each block's type */
    MPI_Aint *sdc, *rdc;               /* displacements as MPI_Aint (bytes for alltoallw) */
    MPI_Datatype *stypes, *rtypes;
    int ntypes_s, ntypes_r;
    int types_freed;
};

static void verify(call_t *c, int mode, int round)
{
    const unsigned char *got = c->rbuf, *want = c->expect;
    for (size_t i = 0; i < c->rbytes; i++)
        CHECK(got[i] == want[i], "%s %s %s round %d: receive byte %zu (int %zu) is 0x%02x, want 0x%02x", c->t->name,
              c->what, mode_name[mode], round, i, i / 4, got[i], want[i]);
}

/* Free the derived types of an alltoallw right after starting it: the call must hold them. */
static void free_types(call_t *c)
{
    if (!c->stypes || c->types_freed)
        return;
    for (int i = 0; i < c->ntypes_s; i++)
        if (c->stypes[i] != MPI_INT)
            MPI_Type_free(&c->stypes[i]);
    for (int i = 0; i < c->ntypes_r; i++)
        if (c->rtypes[i] != MPI_INT)
            MPI_Type_free(&c->rtypes[i]);
    c->types_freed = 1;
}

static void run_modes(call_t *c, issue_fn issue, void (*make_types)(call_t *c))
{
    for (int mode = 0; mode < NMODES; mode++) {
        if (make_types)
            make_types(c);
        MPI_Request req = MPI_REQUEST_NULL;
        int rounds = mode == M_PERSISTENT || mode == M_PERSISTENT_C ? 3 : 1;
        memset(c->rbuf, SENTINEL, c->rbytes);
        issue(c, mode, &req);
        free_types(c);
        for (int round = 0; round < rounds; round++) {
            if (rounds > 1) {
                memset(c->rbuf, SENTINEL, c->rbytes);
                CHECK_MPI(MPI_Start(&req));
            }
            if (req != MPI_REQUEST_NULL)
                CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            verify(c, mode, round);
        }
        if (rounds > 1)
            CHECK_MPI(MPI_Request_free(&req));
    }
}

static void issue_allgather(call_t *c, int mode, MPI_Request *req)
{
    MPI_Comm comm = c->t->comm;
    switch (mode) {
    case M_BLOCKING:
        CHECK_MPI(MPI_Neighbor_allgather(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm));
        break;
    case M_NONBLOCKING:
        CHECK_MPI(MPI_Ineighbor_allgather(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm, req));
        break;
    case M_PERSISTENT:
        CHECK_MPI(MPI_Neighbor_allgather_init(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm,
                                              MPI_INFO_NULL, req));
        break;
    case M_BLOCKING_C:
        CHECK_MPI(MPI_Neighbor_allgather_c(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm));
        break;
    case M_PERSISTENT_C:
        CHECK_MPI(MPI_Neighbor_allgather_init_c(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm,
                                                MPI_INFO_NULL, req));
        break;
    default:
        CHECK_MPI(MPI_Ineighbor_allgather_c(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm, req));
    }
}

static void issue_alltoall(call_t *c, int mode, MPI_Request *req)
{
    MPI_Comm comm = c->t->comm;
    switch (mode) {
    case M_BLOCKING:
        CHECK_MPI(MPI_Neighbor_alltoall(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm));
        break;
    case M_NONBLOCKING:
        CHECK_MPI(MPI_Ineighbor_alltoall(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm, req));
        break;
    case M_PERSISTENT:
        CHECK_MPI(MPI_Neighbor_alltoall_init(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm,
                                             MPI_INFO_NULL, req));
        break;
    case M_BLOCKING_C:
        CHECK_MPI(MPI_Neighbor_alltoall_c(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm));
        break;
    case M_PERSISTENT_C:
        CHECK_MPI(MPI_Neighbor_alltoall_init_c(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm,
                                               MPI_INFO_NULL, req));
        break;
    default:
        CHECK_MPI(MPI_Ineighbor_alltoall_c(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcount, MPI_INT, comm, req));
    }
}

static void issue_allgatherv(call_t *c, int mode, MPI_Request *req)
{
    MPI_Comm comm = c->t->comm;
    switch (mode) {
    case M_BLOCKING:
        CHECK_MPI(MPI_Neighbor_allgatherv(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rc, c->rd, MPI_INT, comm));
        break;
    case M_NONBLOCKING:
        CHECK_MPI(MPI_Ineighbor_allgatherv(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rc, c->rd, MPI_INT, comm, req));
        break;
    case M_PERSISTENT:
        CHECK_MPI(MPI_Neighbor_allgatherv_init(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rc, c->rd, MPI_INT, comm,
                                               MPI_INFO_NULL, req));
        break;
    case M_BLOCKING_C:
        CHECK_MPI(MPI_Neighbor_allgatherv_c(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcc, c->rdc, MPI_INT, comm));
        break;
    case M_PERSISTENT_C:
        CHECK_MPI(MPI_Neighbor_allgatherv_init_c(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcc, c->rdc, MPI_INT, comm,
                                                 MPI_INFO_NULL, req));
        break;
    default:
        CHECK_MPI(
            MPI_Ineighbor_allgatherv_c(c->sbuf, c->scount, MPI_INT, c->rbuf, c->rcc, c->rdc, MPI_INT, comm, req));
    }
}

static void issue_alltoallv(call_t *c, int mode, MPI_Request *req)
{
    MPI_Comm comm = c->t->comm;
    void *s = c->sbuf, *r = c->rbuf;
    switch (mode) {
    case M_BLOCKING:
        CHECK_MPI(MPI_Neighbor_alltoallv(s, c->sc, c->sd, MPI_INT, r, c->rc, c->rd, MPI_INT, comm));
        break;
    case M_NONBLOCKING:
        CHECK_MPI(MPI_Ineighbor_alltoallv(s, c->sc, c->sd, MPI_INT, r, c->rc, c->rd, MPI_INT, comm, req));
        break;
    case M_PERSISTENT:
        CHECK_MPI(MPI_Neighbor_alltoallv_init(s, c->sc, c->sd, MPI_INT, r, c->rc, c->rd, MPI_INT, comm,
                                              MPI_INFO_NULL, req));
        break;
    case M_BLOCKING_C:
        CHECK_MPI(MPI_Neighbor_alltoallv_c(s, c->scc, c->sdc, MPI_INT, r, c->rcc, c->rdc, MPI_INT, comm));
        break;
    case M_PERSISTENT_C:
        CHECK_MPI(MPI_Neighbor_alltoallv_init_c(s, c->scc, c->sdc, MPI_INT, r, c->rcc, c->rdc, MPI_INT, comm,
                                                MPI_INFO_NULL, req));
        break;
    default:
        CHECK_MPI(MPI_Ineighbor_alltoallv_c(s, c->scc, c->sdc, MPI_INT, r, c->rcc, c->rdc, MPI_INT, comm, req));
    }
}

static void issue_alltoallw(call_t *c, int mode, MPI_Request *req)
{
    MPI_Comm comm = c->t->comm;
    void *s = c->sbuf, *r = c->rbuf;
    switch (mode) {
    case M_BLOCKING:
        CHECK_MPI(MPI_Neighbor_alltoallw(s, c->wsc, c->sdc, c->stypes, r, c->wrc, c->rdc, c->rtypes, comm));
        break;
    case M_NONBLOCKING:
        CHECK_MPI(MPI_Ineighbor_alltoallw(s, c->wsc, c->sdc, c->stypes, r, c->wrc, c->rdc, c->rtypes, comm, req));
        break;
    case M_PERSISTENT:
        CHECK_MPI(MPI_Neighbor_alltoallw_init(s, c->wsc, c->sdc, c->stypes, r, c->wrc, c->rdc, c->rtypes, comm,
                                              MPI_INFO_NULL, req));
        break;
    case M_BLOCKING_C:
        CHECK_MPI(MPI_Neighbor_alltoallw_c(s, c->scc, c->sdc, c->stypes, r, c->rcc, c->rdc, c->rtypes, comm));
        break;
    case M_PERSISTENT_C:
        CHECK_MPI(MPI_Neighbor_alltoallw_init_c(s, c->scc, c->sdc, c->stypes, r, c->rcc, c->rdc, c->rtypes, comm,
                                                MPI_INFO_NULL, req));
        break;
    default:
        CHECK_MPI(MPI_Ineighbor_alltoallw_c(s, c->scc, c->sdc, c->stypes, r, c->rcc, c->rdc, c->rtypes, comm, req));
    }
}

/* ---------------------------------------------------------------- the five collectives */

static call_t new_call(topo_t *t, const char *what, size_t sints, size_t rints)
{
    call_t c = {.t = t, .what = what};
    c.sbuf = malloc(sints * sizeof(int) + 4);
    c.rbytes = rints * sizeof(int);
    c.rbuf = malloc(c.rbytes + 4);
    c.expect = malloc(c.rbytes + 4);
    memset(c.sbuf, 0x5A, sints * sizeof(int) + 4);
    memset(c.expect, SENTINEL, c.rbytes);
    int n = (t->nin > t->nout ? t->nin : t->nout) + 1;
    c.sc = calloc((size_t)n, sizeof(int));
    c.sd = calloc((size_t)n, sizeof(int));
    c.rc = calloc((size_t)n, sizeof(int));
    c.rd = calloc((size_t)n, sizeof(int));
    c.scc = calloc((size_t)n, sizeof(MPI_Count));
    c.rcc = calloc((size_t)n, sizeof(MPI_Count));
    c.sdc = calloc((size_t)n, sizeof(MPI_Aint));
    c.rdc = calloc((size_t)n, sizeof(MPI_Aint));
    c.wsc = calloc((size_t)n, sizeof(int));
    c.wrc = calloc((size_t)n, sizeof(int));
    return c;
}

static void free_call(call_t *c)
{
    free(c->sbuf);
    free(c->rbuf);
    free(c->expect);
    free(c->sc);
    free(c->sd);
    free(c->rc);
    free(c->rd);
    free(c->scc);
    free(c->rcc);
    free(c->sdc);
    free(c->rdc);
    free(c->wsc);
    free(c->wrc);
    free(c->stypes);
    free(c->rtypes);
}

/* The MPI_Count/MPI_Aint copies of the int arrays, for the _c forms. */
static void widen(call_t *c, int bytes_displs)
{
    for (int k = 0; k < c->t->nout; k++) {
        c->scc[k] = c->sc[k];
        if (!bytes_displs)
            c->sdc[k] = c->sd[k];
    }
    for (int j = 0; j < c->t->nin; j++) {
        c->rcc[j] = c->rc[j];
        if (!bytes_displs)
            c->rdc[j] = c->rd[j];
    }
}

enum { N = 5 };

static void test_allgather(topo_t *t)
{
    call_t c = new_call(t, "allgather", N, (size_t)t->nin * N);
    c.scount = c.rcount = N;
    put_block(c.sbuf, N, 1, t->me, -1, -1);
    for (int j = 0; j < t->nin; j++)
        if (t->in[j] != MPI_PROC_NULL)
            put_block((int *)c.expect + j * N, N, 1, t->in[j], -1, -1);
    run_modes(&c, issue_allgather, NULL);
    free_call(&c);
}

static void test_alltoall(topo_t *t)
{
    call_t c = new_call(t, "alltoall", (size_t)t->nout * N, (size_t)t->nin * N);
    c.scount = c.rcount = N;
    for (int k = 0; k < t->nout; k++)
        put_block((int *)c.sbuf + k * N, N, 1, t->me, k, t->out[k]);
    for (int j = 0; j < t->nin; j++)
        if (t->in[j] != MPI_PROC_NULL)
            put_block((int *)c.expect + j * N, N, 1, t->in[j], sender_slot(t, j), t->me);
    run_modes(&c, issue_alltoall, NULL);
    free_call(&c);
}

/* Receive blocks land in reverse order, one int apart, so displacements matter. */
static int rdisp(const topo_t *t, int j)
{
    return (t->nin - 1 - j) * MAXB + 1;
}

static void test_allgatherv(topo_t *t)
{
    int mylen = 3 + t->me % 3;
    call_t c = new_call(t, "allgatherv", MAXB, (size_t)t->nin * MAXB + 1);
    c.scount = mylen;
    put_block(c.sbuf, mylen, 1, t->me, -1, -1);
    for (int j = 0; j < t->nin; j++) {
        int q = t->in[j];
        c.rc[j] = q == MPI_PROC_NULL ? 2 : 3 + q % 3;
        c.rd[j] = rdisp(t, j);
        if (q != MPI_PROC_NULL)
            put_block((int *)c.expect + c.rd[j], c.rc[j], 1, q, -1, -1);
    }
    widen(&c, 0);
    run_modes(&c, issue_allgatherv, NULL);
    free_call(&c);
}

static void test_alltoallv(topo_t *t)
{
    call_t c = new_call(t, "alltoallv", (size_t)t->nout * MAXB, (size_t)t->nin * MAXB + 1);
    for (int k = 0; k < t->nout; k++) {
        int d = t->out[k];
        c.sc[k] = d == MPI_PROC_NULL ? 1 : vlen(t->me, k, d);
        c.sd[k] = k * MAXB;
        put_block((int *)c.sbuf + c.sd[k], c.sc[k], 1, t->me, k, d);
    }
    for (int j = 0; j < t->nin; j++) {
        int q = t->in[j], s = q == MPI_PROC_NULL ? -1 : sender_slot(t, j);
        c.rc[j] = q == MPI_PROC_NULL ? 2 : vlen(q, s, t->me);
        c.rd[j] = rdisp(t, j);
        if (q != MPI_PROC_NULL)
            put_block((int *)c.expect + c.rd[j], c.rc[j], 1, q, s, t->me);
    }
    widen(&c, 0);
    run_modes(&c, issue_alltoallv, NULL);
    free_call(&c);
}

/*
 * alltoallw: even send blocks go as one strided vector (every other int), odd ones as plain
 * ints; even receive blocks arrive as one contiguous derived type, odd ones as plain ints. The
 * type signatures agree whichever way the blocks pair up. Displacements are in bytes.
 */
static void make_w_types(call_t *c)
{
    const topo_t *t = c->t;
    for (int k = 0; k < t->nout; k++) {
        c->stypes[k] = MPI_INT;
        if (k % 2 == 0 && c->sc[k] > 0) {
            CHECK_MPI(MPI_Type_vector(c->sc[k], 1, 2, MPI_INT, &c->stypes[k]));
            CHECK_MPI(MPI_Type_commit(&c->stypes[k]));
        }
    }
    for (int j = 0; j < t->nin; j++) {
        c->rtypes[j] = MPI_INT;
        if (j % 2 == 0) {
            CHECK_MPI(MPI_Type_contiguous(c->rc[j], MPI_INT, &c->rtypes[j]));
            CHECK_MPI(MPI_Type_commit(&c->rtypes[j]));
        }
    }
    c->types_freed = 0;
    /* the counts the calls take: 1 derived element, or n ints */
    for (int k = 0; k < t->nout; k++)
        c->scc[k] = c->wsc[k] = c->stypes[k] == MPI_INT ? c->sc[k] : 1;
    for (int j = 0; j < t->nin; j++)
        c->rcc[j] = c->wrc[j] = c->rtypes[j] == MPI_INT ? c->rc[j] : 1;
}

static void test_alltoallw(topo_t *t)
{
    call_t c = new_call(t, "alltoallw", (size_t)t->nout * MAXB * 2, (size_t)t->nin * MAXB + 1);
    c.stypes = calloc((size_t)t->nout + 1, sizeof(MPI_Datatype));
    c.rtypes = calloc((size_t)t->nin + 1, sizeof(MPI_Datatype));
    c.ntypes_s = t->nout;
    c.ntypes_r = t->nin;
    c.types_freed = 1;
    for (int k = 0; k < t->nout; k++) {
        int d = t->out[k];
        c.sc[k] = d == MPI_PROC_NULL ? 1 : vlen(t->me, k, d);
        c.sdc[k] = (MPI_Aint)k * MAXB * 2 * (MPI_Aint)sizeof(int);
        put_block((int *)((char *)c.sbuf + c.sdc[k]), c.sc[k], k % 2 == 0 ? 2 : 1, t->me, k, d);
    }
    for (int j = 0; j < t->nin; j++) {
        int q = t->in[j], s = q == MPI_PROC_NULL ? -1 : sender_slot(t, j);
        c.rc[j] = q == MPI_PROC_NULL ? 2 : vlen(q, s, t->me);
        c.rdc[j] = (MPI_Aint)rdisp(t, j) * (MPI_Aint)sizeof(int);
        if (q != MPI_PROC_NULL)
            put_block((int *)((char *)c.expect + c.rdc[j]), c.rc[j], 1, q, s, t->me);
    }
    run_modes(&c, issue_alltoallw, make_w_types);
    free_call(&c);
}

static void test_topology(topo_t *t)
{
    if (t->comm == MPI_COMM_NULL)
        return;
    read_lists(t);
    test_allgather(t);
    test_alltoall(t);
    test_allgatherv(t);
    test_alltoallv(t);
    test_alltoallw(t);
    free(t->all_out);
    free(t->all_nout);
    CHECK_MPI(MPI_Comm_free(&t->comm));
}

/* ---------------------------------------------------------------- the topologies */

static MPI_Comm cart(int ndims, const int *dims_in, const int *periods)
{
    int dims[3] = {0, 0, 0};
    for (int d = 0; d < ndims; d++)
        dims[d] = dims_in ? dims_in[d] : 0;
    CHECK_MPI(MPI_Dims_create(empi_size(), ndims, dims));
    MPI_Comm c;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &c));
    return c;
}

/* Out-edges of rank i of p in the distributed-graph tests: repeats and a self-loop. */
static int dist_out(int i, int p, int *out)
{
    out[0] = (i + 1) % p;
    out[1] = (i + 3) % p;
    out[2] = i;
    out[3] = (i + 1) % p;
    return 4;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p = empi_size(), me = empi_rank();

    int one_p[1] = {1}, one_n[1] = {0}, pp[3] = {1, 1, 1}, pn[3] = {1, 0, 1};
    int two[3] = {2, 0, 0};
    topo_t ts[16];
    int nt = 0;
    ts[nt++] = (topo_t){.name = "cart1d_periodic", .comm = cart(1, NULL, one_p)};
    ts[nt++] = (topo_t){.name = "cart1d_open", .comm = cart(1, NULL, one_n)};
    ts[nt++] = (topo_t){.name = "cart2d", .comm = cart(2, NULL, pn)};
    ts[nt++] = (topo_t){.name = "cart3d_periodic", .comm = cart(3, NULL, pp)};
    if (p % 2 == 0)
        ts[nt++] = (topo_t){.name = "cart3d_2xNx1", .comm = cart(3, two, pn)};
    {
        MPI_Comm c;
        CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &c));
        ts[nt++] = (topo_t){.name = "cart0d", .comm = c};
    }
    {
        /* graph: ring neighbors at distance 1 and 2 (repeats when p is small) */
        int *index = malloc((size_t)p * sizeof(int)), *edges = malloc((size_t)p * 4 * sizeof(int));
        for (int i = 0; i < p; i++) {
            index[i] = 4 * (i + 1);
            edges[4 * i] = (i + 1) % p;
            edges[4 * i + 1] = (i - 1 + p) % p;
            edges[4 * i + 2] = (i + 2) % p;
            edges[4 * i + 3] = (i - 2 + 2 * p) % p;
        }
        MPI_Comm c;
        CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, p, index, edges, 0, &c));
        ts[nt++] = (topo_t){.name = "graph", .comm = c};
        free(index);
        free(edges);
    }
    {
        /* distributed graph, adjacent, weighted; in-edges listed from the highest rank down */
        int out[4], outw[4], in[64], inw[64], nin = 0;
        int nout = dist_out(me, p, out);
        for (int k = 0; k < nout; k++)
            outw[k] = 10 * me + k;
        for (int j = p - 1; j >= 0; j--) {
            int jo[4], n = dist_out(j, p, jo);
            for (int k = 0; k < n; k++)
                if (jo[k] == me) {
                    inw[nin] = 10 * j + k;
                    in[nin++] = j;
                }
        }
        MPI_Comm c;
        CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, inw, nout, out, outw, MPI_INFO_NULL, 0, &c));
        ts[nt++] = (topo_t){.name = "dist_graph_adjacent", .comm = c};
    }
    {
        /* distributed graph given entirely by rank 0, unweighted */
        int n = me == 0 ? p : 0;
        int *src = malloc((size_t)p * sizeof(int)), *deg = malloc((size_t)p * sizeof(int));
        int *dst = malloc((size_t)p * 4 * sizeof(int));
        for (int i = 0; i < p; i++) {
            src[i] = i;
            deg[i] = dist_out(i, p, dst + 4 * i);
        }
        MPI_Comm c;
        CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, deg, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
        ts[nt++] = (topo_t){.name = "dist_graph_create", .comm = c};
        free(src);
        free(deg);
        free(dst);
    }
    {
        /* a duplicate carries the topology: neighborhood collectives work on it */
        MPI_Comm c = cart(2, NULL, pp), d;
        CHECK_MPI(MPI_Comm_dup(c, &d));
        CHECK_MPI(MPI_Comm_free(&c));
        ts[nt++] = (topo_t){.name = "cart2d_dup", .comm = d};
    }
    for (int i = 0; i < nt; i++)
        test_topology(&ts[i]);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
