/*
 * Derived datatypes through point-to-point: the type signatures match while the layouts differ
 * (vector in, contiguous out and back; struct in, subarray out), small and above the eager limit
 * (so the pipelined pack/unpack runs with offsets), a type freed while its send is pending,
 * MPI_Get_count/MPI_Get_elements on what arrived, truncation, and MPI_Pack + MPI_PACKED.
 * Ranks pair up (r with r^1); an odd rank out talks to itself.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static int peer_of(int rank, int size)
{
    int p = rank ^ 1;
    return p < size ? p : rank;
}

/* vector of n doubles, every other one, against n contiguous doubles */
static void vector_vs_contiguous(int peer, int n, int tag)
{
    double *strided = malloc(2 * (size_t)n * sizeof(double)), *flat = malloc((size_t)n * sizeof(double));
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    int me = empi_rank();
    for (int i = 0; i < 2 * n; i++)
        strided[i] = me * 1e6 + i;
    MPI_Request rq[2];
    MPI_Status st;
    /* direction 1: my vector -> peer's contiguous */
    CHECK_MPI(MPI_Irecv(flat, n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend(strided, 1, vec, peer, tag, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Wait(&rq[0], &st));
    CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(flat[i] == peer * 1e6 + 2 * i, "vector->contiguous [%d] = %g", i, flat[i]);
    int count;
    CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK(count == n, "get_count %d, want %d", count, n);
    CHECK_MPI(MPI_Get_count(&st, vec, &count));
    CHECK(count == 1, "get_count in vectors %d", count);
    /* direction 2: my contiguous -> peer's vector: the gaps must stay untouched */
    for (int i = 0; i < n; i++)
        flat[i] = -(me * 1e6 + i);
    for (int i = 0; i < 2 * n; i++)
        strided[i] = 0.5;
    CHECK_MPI(MPI_Irecv(strided, 1, vec, peer, tag + 1, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend(flat, n, MPI_DOUBLE, peer, tag + 1, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 2 * n; i++)
        CHECK(strided[i] == (i % 2 ? 0.5 : -(peer * 1e6 + i / 2)), "contiguous->vector [%d] = %g", i, strided[i]);
    CHECK_MPI(MPI_Type_free(&vec));
    free(strided), free(flat);
}

/* struct {int; double; char[3]} records sent packed tight, received two slots apart through a
   resized struct: same signature, different layout. */
static void struct_vs_resized(int peer)
{
    struct rec { int i; double d; char c[3]; } out[4], in[8];
    int bl[] = {1, 1, 3};
    MPI_Aint di[] = {offsetof(struct rec, i), offsetof(struct rec, d), offsetof(struct rec, c)};
    MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, st, wide;
    CHECK_MPI(MPI_Type_create_struct(3, bl, di, ty, &st));
    CHECK_MPI(MPI_Type_commit(&st));
    MPI_Aint lb, ext;
    CHECK_MPI(MPI_Type_get_extent(st, &lb, &ext));
    CHECK(ext == sizeof(struct rec), "struct extent %ld, want %zu", (long)ext, sizeof(struct rec));
    /* the receiver spreads the records two slots apart */
    CHECK_MPI(MPI_Type_create_resized(st, 0, 2 * (MPI_Aint)sizeof(struct rec), &wide));
    CHECK_MPI(MPI_Type_commit(&wide));
    int me = empi_rank();
    for (int k = 0; k < 4; k++)
        out[k] = (struct rec){me * 100 + k, k * 0.25, {'a', (char)('b' + k), 'z'}};
    memset(in, 0, sizeof in);
    MPI_Status s;
    CHECK_MPI(MPI_Sendrecv(out, 4, st, peer, 77, in, 4, wide, peer, 77, MPI_COMM_WORLD, &s));
    for (int k = 0; k < 4; k++) {
        struct rec *r = &in[2 * k];
        CHECK(r->i == peer * 100 + k && r->d == k * 0.25 && r->c[1] == 'b' + k && r->c[2] == 'z', "record %d", k);
        CHECK(in[2 * k + 1].i == 0, "gap record %d touched", k);
    }
    int elems;
    CHECK_MPI(MPI_Get_elements(&s, st, &elems));
    CHECK(elems == 4 * 5, "get_elements %d, want 20", elems);
    CHECK_MPI(MPI_Type_free(&st));
    CHECK_MPI(MPI_Type_free(&wide));
}

/* Many 15-byte records (24-byte extent) one way, received as packed bytes: the message goes in
   pieces (eager ring cells, or bulk chunks of 64 KiB) that start in the middle of a record, so
   the sender packs from mid-element offsets straight into the transport's buffer. */
static void records_in_pieces(int peer, int n, int tag)
{
    struct rec { int i; double d; char c[3]; } *out = malloc((size_t)n * sizeof *out);
    unsigned char *in = malloc((size_t)n * 15);
    int bl[] = {1, 1, 3};
    MPI_Aint di[] = {offsetof(struct rec, i), offsetof(struct rec, d), offsetof(struct rec, c)};
    MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, st;
    CHECK_MPI(MPI_Type_create_struct(3, bl, di, ty, &st));
    CHECK_MPI(MPI_Type_commit(&st));
    int me = empi_rank();
    for (int k = 0; k < n; k++)
        out[k] = (struct rec){me * 1000000 + k, k * 0.5, {(char)k, (char)(k >> 8), (char)me}};
    MPI_Request rq;
    CHECK_MPI(MPI_Irecv(in, n * 15, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Send(out, n, st, peer, tag, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++) {
        const unsigned char *r = in + (size_t)k * 15;
        int i;
        double d;
        memcpy(&i, r, 4), memcpy(&d, r + 4, 8);
        CHECK(i == peer * 1000000 + k && d == k * 0.5 && r[12] == (unsigned char)k &&
                  r[13] == (unsigned char)(k >> 8) && r[14] == (unsigned char)peer,
              "%d records: record %d arrived as %d %g", n, k, i, d);
    }
    CHECK_MPI(MPI_Type_free(&st));
    free(out), free(in);
}

/* A type freed right after Isend must stay valid until the send completes. */
static void free_while_pending(int peer)
{
    enum { M = 100000 };
    int *src = malloc(3 * M * sizeof(int)), *dst = malloc(M * sizeof(int));
    for (int i = 0; i < 3 * M; i++)
        src[i] = i;
    MPI_Datatype v;
    CHECK_MPI(MPI_Type_vector(M, 1, 3, MPI_INT, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    MPI_Request rq[2];
    CHECK_MPI(MPI_Irecv(dst, M, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Isend(src, 1, v, peer, 5, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Type_free(&v));
    CHECK(v == MPI_DATATYPE_NULL, "Type_free sets MPI_DATATYPE_NULL");
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < M; i++)
        CHECK(dst[i] == 3 * i, "pending-free vector [%d] = %d", i, dst[i]);
    free(src), free(dst);
}

/* A longer message than the receive type holds: MPI_ERR_TRUNCATE; a shorter one: partial counts. */
static void truncation_and_partial(int peer)
{
    int buf[16], got[16];
    for (int i = 0; i < 16; i++)
        buf[i] = i;
    MPI_Datatype pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    MPI_Status st;
    /* 5 ints into room for 4 pairs: fits; count in pairs is undefined, elements are 5 */
    CHECK_MPI(MPI_Sendrecv(buf, 5, MPI_INT, peer, 9, got, 4, pair, peer, 9, MPI_COMM_WORLD, &st));
    int c;
    CHECK_MPI(MPI_Get_count(&st, pair, &c));
    CHECK(c == MPI_UNDEFINED, "5 ints as pairs: count %d", c);
    CHECK_MPI(MPI_Get_elements(&st, pair, &c));
    CHECK(c == 5, "5 ints as pairs: elements %d", c);
    /* 10 ints into room for 4 pairs: truncation */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Request rq;
    CHECK_MPI(MPI_Isend(buf, 10, MPI_INT, peer, 10, MPI_COMM_WORLD, &rq));
    int rc = MPI_Recv(got, 4, pair, peer, 10, MPI_COMM_WORLD, &st);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncation gives class %d", cls);
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_MPI(MPI_Type_free(&pair));
}

/* MPI_Pack a vector and a header, ship it as MPI_PACKED, MPI_Unpack on the other side. */
static void packed_messages(int peer)
{
    int me = empi_rank(), hdr = me + 1000, data[12], back[12] = {0}, hdr_in = 0;
    for (int i = 0; i < 12; i++)
        data[i] = me * 50 + i;
    MPI_Datatype v;
    CHECK_MPI(MPI_Type_vector(4, 2, 3, MPI_INT, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    int sz1, sz2;
    CHECK_MPI(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &sz1));
    CHECK_MPI(MPI_Pack_size(1, v, MPI_COMM_WORLD, &sz2));
    char out[256], in[256];
    int pos = 0;
    CHECK_MPI(MPI_Pack(&hdr, 1, MPI_INT, out, sizeof out, &pos, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Pack(data, 1, v, out, sizeof out, &pos, MPI_COMM_WORLD));
    CHECK(pos == sz1 + sz2, "packed %d bytes, Pack_size says %d", pos, sz1 + sz2);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(out, pos, MPI_PACKED, peer, 11, in, sizeof in, MPI_PACKED, peer, 11, MPI_COMM_WORLD, &st));
    int n, ip = 0;
    CHECK_MPI(MPI_Get_count(&st, MPI_PACKED, &n));
    CHECK_MPI(MPI_Unpack(in, n, &ip, &hdr_in, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Unpack(in, n, &ip, back, 1, v, MPI_COMM_WORLD));
    CHECK(hdr_in == peer + 1000, "header %d", hdr_in);
    for (int i = 0; i < 12; i++)
        CHECK(back[i] == (i < 11 && i % 3 < 2 ? peer * 50 + i : 0), "unpacked [%d] = %d", i, back[i]);
    CHECK_MPI(MPI_Type_free(&v));
}

/* Pack_size of more bytes than an int holds is MPI_UNDEFINED (the _c form gives the number), and
   a failing Pack calls the handler of its communicator, not MPI_COMM_SELF's (still fatal here). */
static void pack_sizes_and_handlers(void)
{
    MPI_Datatype mib, four_gib;
    CHECK_MPI(MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib));
    CHECK_MPI(MPI_Type_contiguous(4096, mib, &four_gib));   /* never allocated */
    CHECK_MPI(MPI_Type_commit(&four_gib));
    int size = 0;
    MPI_Count size_c = 0;
    CHECK_MPI(MPI_Pack_size(1, four_gib, MPI_COMM_WORLD, &size));
    CHECK(size == MPI_UNDEFINED, "Pack_size of 4 GiB gave %d, not MPI_UNDEFINED", size);
    CHECK_MPI(MPI_Pack_size_c(1, four_gib, MPI_COMM_WORLD, &size_c));
    CHECK(size_c == (MPI_Count)1 << 32, "Pack_size_c of 4 GiB gave %lld", (long long)size_c);
    MPI_Comm quiet;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &quiet));
    CHECK_MPI(MPI_Comm_set_errhandler(quiet, MPI_ERRORS_RETURN));
    int data[4] = {1, 2, 3, 4}, pos = 0;
    char out[8];
    CHECK_ERR(MPI_Pack(data, 4, MPI_INT, out, sizeof out, &pos, quiet), MPI_ERR_TRUNCATE);
    CHECK_ERR(MPI_Pack_size(-1, MPI_INT, quiet, &size), MPI_ERR_COUNT);
    CHECK_MPI(MPI_Comm_free(&quiet));
    /* a type of more than 2^63 bytes is refused, not wrapped (it used to become size 0 or
       negative, and a send of it hung); every kind of constructor that multiplies */
    MPI_Datatype huge, over = MPI_DATATYPE_NULL;
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Type_contiguous_c((MPI_Count)1 << 60, MPI_INT, &huge));   /* 2^62 bytes: fits */
    MPI_Count hs = 0;
    CHECK_MPI(MPI_Type_size_c(huge, &hs));
    CHECK(hs == (MPI_Count)1 << 62, "2^60 ints: size %lld", (long long)hs);
    CHECK_ERR(MPI_Type_contiguous(4, huge, &over), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_vector(5, 1, 1, huge, &over), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_indexed(2, (int[]){2, 2}, (int[]){0, 4}, huge, &over), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_contiguous_c((MPI_Count)1 << 62, MPI_DOUBLE, &over), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_subarray(1, (int[]){8}, (int[]){8}, (int[]){0}, MPI_ORDER_C, huge, &over),
              MPI_ERR_ARG);
    /* bounds that overflow though the size fits: a stride, a resize, a struct displacement */
    CHECK_ERR(MPI_Type_create_hvector(3, 1, (MPI_Aint)1 << 62, MPI_INT, &over), MPI_ERR_ARG);
    /* an element stride whose bytes overflow (it wrapped: 2^62 ints made an extent of 4) */
    CHECK_ERR(MPI_Type_vector_c(2, 1, (MPI_Count)1 << 62, MPI_INT, &over), MPI_ERR_ARG);
    MPI_Datatype spaced;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)1 << 40, &spaced));
    CHECK_ERR(MPI_Type_vector(2, 1, 1 << 24, spaced, &over), MPI_ERR_ARG);
    CHECK_MPI(MPI_Type_free(&spaced));
    CHECK_ERR(MPI_Type_create_resized(MPI_INT, INT64_MAX - 2, 8, &over), MPI_ERR_ARG);
    MPI_Aint far[] = {0, (MPI_Aint)1 << 62};
    CHECK_ERR(MPI_Type_create_struct(2, (int[]){1, 1}, far, (MPI_Datatype[]){MPI_INT, huge}, &over), MPI_ERR_ARG);
    int g30 = 1 << 30, none = MPI_DISTRIBUTE_NONE, dflt = MPI_DISTRIBUTE_DFLT_DARG, one = 1;
    CHECK_ERR(MPI_Type_create_darray(1, 0, 3, (int[]){g30, g30, g30}, (int[]){none, none, none},
                                     (int[]){dflt, dflt, dflt}, (int[]){one, one, one}, MPI_ORDER_C, MPI_DOUBLE,
                                     &over),
              MPI_ERR_ARG);
    CHECK(over == MPI_DATATYPE_NULL, "a refused constructor set newtype");
    /* counts whose bytes overflow are refused too (MPI_Pack_c used to advance by a wrapped size) */
    MPI_Count cpos = 0;
    CHECK_MPI(MPI_Type_commit(&huge));
    CHECK_ERR(MPI_Pack_c(data, 4, huge, out, sizeof out, &cpos, MPI_COMM_SELF), MPI_ERR_COUNT);
    CHECK(cpos == 0, "a refused pack moved the position to %lld", (long long)cpos);
    CHECK_ERR(MPI_Pack_size_c(8, huge, MPI_COMM_SELF, &size_c), MPI_ERR_COUNT);
    CHECK_MPI(MPI_Type_free(&huge));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    CHECK_MPI(MPI_Type_free(&four_gib));
    CHECK_MPI(MPI_Type_free(&mib));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int peer = peer_of(empi_rank(), empi_size());
    vector_vs_contiguous(peer, 10, 1);
    vector_vs_contiguous(peer, 300000, 3);   /* 2.4 MB: rendezvous, pipelined */
    struct_vs_resized(peer);
    records_in_pieces(peer, 1000, 20);     /* 15 KB: eager */
    records_in_pieces(peer, 70001, 21);    /* 1 MB: rendezvous, bulk chunks */
    free_while_pending(peer);
    truncation_and_partial(peer);
    packed_messages(peer);
    pack_sizes_and_handlers();
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
