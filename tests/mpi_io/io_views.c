/*
 * File views: interleaved (vector) and block-column (subarray) filetypes written by every rank,
 * then the whole file checked element by element through the default view; noncontiguous memory
 * types; individual file pointers (advance, seek, get_position, get_byte_offset); get_view; the
 * external32 representation; nonblocking and split collective access through views.
 */
#include <string.h>

#include "io_test.h"

#define BLK 7      /* ints of a rank per round in the interleaved layout */
#define ROUNDS 50

/* File of ROUNDS * size * BLK ints, int i holding i; rank r owns blocks r, r+size, ... */
static void interleaved_view(MPI_File fh, MPI_Datatype *ft)
{
    int rank = empi_rank(), size = empi_size();
    MPI_Datatype blk;
    MPI_Type_contiguous(BLK, MPI_INT, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)size * BLK * sizeof(int), ft);
    MPI_Type_commit(ft);
    MPI_Type_free(&blk);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * BLK * sizeof(int), MPI_INT, *ft, "native", MPI_INFO_NULL));
}

static void check_whole_file(const char *path, int n)
{
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_Offset sz;
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK(sz == (MPI_Offset)n * (MPI_Offset)sizeof(int), "file size %lld, want %lld", (long long)sz,
          (long long)n * 4);
    int *all = malloc((size_t)n * sizeof(int));
    MPI_Status st;
    int count;
    CHECK_MPI(MPI_File_read_at_all(fh, 0, all, n, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == n, "read %d of %d ints", count, n);
    for (int i = 0; i < n; i++)
        CHECK(all[i] == i, "file int %d is %d", i, all[i]);
    free(all);
    CHECK_MPI(MPI_File_close(&fh));
}

/* Close fh, free its filetype, check the whole file holds 0..n-1 and remove it. */
static void close_and_verify(MPI_File *fh, MPI_Datatype *ft, const char *path, int n)
{
    CHECK_MPI(MPI_File_close(fh));
    MPI_Type_free(ft);
    check_whole_file(path, n);
    io_test_remove(path);
}

/* Values of the interleaved layout that rank owns, in its view's order. */
static void my_values(int *v, int n)
{
    int rank = empi_rank(), size = empi_size();
    for (int i = 0; i < n; i++)
        v[i] = (i / BLK) * size * BLK + rank * BLK + i % BLK;
}

static void test_interleaved(const char *path)
{
    int size = empi_size(), n = ROUNDS * BLK;
    int *v = malloc((size_t)n * sizeof(int)), *in = malloc((size_t)n * sizeof(int));
    my_values(v, n);
    MPI_File fh;
    MPI_Datatype ft;
    MPI_Status st;
    int count;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    interleaved_view(fh, &ft);

    /* get_view hands back what was set (derived types as new handles) */
    MPI_Offset disp;
    MPI_Datatype et, ft2;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_MPI(MPI_File_get_view(fh, &disp, &et, &ft2, rep));
    CHECK(disp == (MPI_Offset)empi_rank() * BLK * 4 && et == MPI_INT && !strcmp(rep, "native"), "get_view");
    MPI_Aint lb, ext;
    MPI_Type_get_extent(ft2, &lb, &ext);
    CHECK(ext == (MPI_Aint)size * BLK * 4, "get_view filetype extent %ld", (long)ext);
    MPI_Type_free(&ft2);

    /* collective write through the view, in two calls with the individual pointer */
    CHECK_MPI(MPI_File_write_all(fh, v, n / 2, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == n / 2, "write_all count %d", count);
    MPI_Offset pos, byte;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == n / 2, "position %lld after writing %d etypes", (long long)pos, n / 2);
    CHECK_MPI(MPI_File_get_byte_offset(fh, pos, &byte));
    MPI_Offset want = (MPI_Offset)(v[n / 2]) * 4;
    CHECK(byte == want, "byte offset %lld, want %lld", (long long)byte, (long long)want);
    CHECK_MPI(MPI_File_write_all(fh, v + n / 2, n - n / 2, MPI_INT, MPI_STATUS_IGNORE));
    io_test_sync(fh);

    /* read back through the view with seeks */
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read(fh, in, 3, MPI_INT, &st));
    CHECK_MPI(MPI_File_seek(fh, -3, MPI_SEEK_CUR));
    CHECK_MPI(MPI_File_read_all(fh, in, n, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == n && !memcmp(in, v, (size_t)n * 4), "read_all through the view (count %d)", count);
    CHECK_MPI(MPI_File_seek(fh, -BLK, MPI_SEEK_END));
    CHECK_MPI(MPI_File_read(fh, in, BLK, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == BLK && !memcmp(in, v + n - BLK, BLK * 4), "read after SEEK_END (count %d)", count);
    close_and_verify(&fh, &ft, path, n * size);
    free(v);
    free(in);
}

/* A rows x cols int array split in column blocks; memory holds each block with a one-int halo. */
static void test_subarray(const char *path)
{
    int rank = empi_rank(), size = empi_size();
    const int rows = 33, w = 5, cols = w * size, hw = w + 2;
    int gs[2] = {rows, cols}, ls[2] = {rows, w}, st[2] = {0, rank * w};
    int ms[2] = {rows, hw}, mst[2] = {0, 1};
    MPI_Datatype ft, mt;
    MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_INT, &ft);
    MPI_Type_create_subarray(2, ms, ls, mst, MPI_ORDER_C, MPI_INT, &mt);
    MPI_Type_commit(&ft);
    MPI_Type_commit(&mt);
    int *local = malloc((size_t)rows * hw * sizeof(int));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < hw; c++)
            local[r * hw + c] = (c == 0 || c == hw - 1) ? -1 : r * cols + rank * w + c - 1;
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_write_at_all(fh, 0, local, 1, mt, MPI_STATUS_IGNORE));
    io_test_sync(fh);
    /* read back into a cleared halo buffer through the same types: the halo stays untouched */
    int *back = malloc((size_t)rows * hw * sizeof(int));
    for (int i = 0; i < rows * hw; i++)
        back[i] = -1;
    MPI_Status status;
    int count;
    CHECK_MPI(MPI_File_read_at(fh, 0, back, 1, mt, &status));
    CHECK_MPI(MPI_Get_count(&status, mt, &count));
    CHECK(count == 1 && !memcmp(back, local, (size_t)rows * hw * sizeof(int)), "subarray read back (count %d)", count);
    CHECK_MPI(MPI_File_close(&fh));
    check_whole_file(path, rows * cols);
    io_test_remove(path);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    free(local);
    free(back);
}

/* Nonblocking and split collective forms through the interleaved view. */
static void test_nonblocking_split(const char *path)
{
    int size = empi_size(), n = ROUNDS * BLK;
    int *v = malloc((size_t)n * sizeof(int)), *in = malloc((size_t)n * sizeof(int));
    my_values(v, n);
    MPI_File fh;
    MPI_Datatype ft;
    MPI_Request req[2];
    MPI_Status st[2];
    int count;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    interleaved_view(fh, &ft);
    CHECK_MPI(MPI_File_iwrite(fh, v, BLK, MPI_INT, &req[0]));
    CHECK_MPI(MPI_File_iwrite_all(fh, v + BLK, BLK, MPI_INT, &req[1]));
    CHECK_MPI(MPI_Waitall(2, req, st));
    CHECK_MPI(MPI_Get_count(&st[1], MPI_INT, &count));
    CHECK(count == BLK, "iwrite_all count %d", count);
    CHECK_MPI(MPI_File_write_all_begin(fh, v + 2 * BLK, n / 2 - 2 * BLK, MPI_INT));
    CHECK_MPI(MPI_File_write_all_end(fh, v + 2 * BLK, &st[0]));
    CHECK_MPI(MPI_Get_count(&st[0], MPI_INT, &count));
    CHECK(count == n / 2 - 2 * BLK, "write_all_end count %d", count);
    CHECK_MPI(MPI_File_write_at_all_begin(fh, n / 2, v + n / 2, n - n / 2, MPI_INT));
    CHECK_MPI(MPI_File_write_at_all_end(fh, v + n / 2, MPI_STATUS_IGNORE));
    io_test_sync(fh);
    CHECK_MPI(MPI_File_iread_at(fh, 0, in, n / 2, MPI_INT, &req[0]));
    CHECK_MPI(MPI_File_iread_at_all(fh, n / 2, in + n / 2, n - n / 2, MPI_INT, &req[1]));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    CHECK(!memcmp(in, v, (size_t)n * 4), "nonblocking reads through the view");
    memset(in, 0, (size_t)n * 4);
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read_all_begin(fh, in, n, MPI_INT));
    CHECK_MPI(MPI_File_read_all_end(fh, in, &st[0]));
    CHECK(!memcmp(in, v, (size_t)n * 4), "split collective read");
    memset(in, 0, (size_t)n * 4);
    CHECK_MPI(MPI_File_read_at_all_begin(fh, 0, in, n, MPI_INT));
    CHECK_MPI(MPI_File_read_at_all_end(fh, in, MPI_STATUS_IGNORE));
    CHECK(!memcmp(in, v, (size_t)n * 4), "split collective read_at");
    CHECK_MPI(MPI_File_iread(fh, in, 1, MPI_INT, &req[0]));   /* at the end: nothing to read */
    CHECK_MPI(MPI_Wait(&req[0], &st[0]));
    CHECK_MPI(MPI_Get_count(&st[0], MPI_INT, &count));
    CHECK(count == 0, "iread at end of file read %d ints", count);
    close_and_verify(&fh, &ft, path, n * size);
    free(v);
    free(in);
}

/* A filetype whose blocks overlap (ints at 0, 4, 4, 8 of each 16 bytes) is a legal view of a
   file opened read-only, and refused for one open for writing (MPI 4.1, 14.3); read
   independently and collectively, with collective buffering on. */
static void test_overlapping_view(const char *path)
{
    int rank = empi_rank(), n = 16;
    if (rank == 0) {
        MPI_File one;
        int v[16];
        for (int i = 0; i < n; i++)
            v[i] = 1000 + i;
        CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &one));
        CHECK_MPI(MPI_File_write(one, v, n, MPI_INT, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_File_close(&one));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int bl[2] = {2, 2}, disp[2] = {0, 1};
    MPI_Datatype idx, ft;
    MPI_Type_indexed(2, bl, disp, MPI_INT, &idx);
    MPI_Type_create_resized(idx, 0, 16, &ft);
    MPI_Type_commit(&ft);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "collective_buffering", "true");
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", info));
    int got[8], want[8] = {1000, 1001, 1001, 1002, 1004, 1005, 1005, 1006};
    for (int collective = 0; collective < 2; collective++) {
        memset(got, 0, sizeof got);
        if (collective)
            CHECK_MPI(MPI_File_read_at_all(fh, 0, got, 8, MPI_INT, MPI_STATUS_IGNORE));
        else
            CHECK_MPI(MPI_File_read_at(fh, 0, got, 8, MPI_INT, MPI_STATUS_IGNORE));
        CHECK(!memcmp(got, want, sizeof got), "overlapping view, %s read: %d %d %d %d", collective ? "collective" : "independent",
              got[0], got[1], got[2], got[3]);
    }
    CHECK_MPI(MPI_File_close(&fh));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_ERR(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
    MPI_Type_free(&idx);
    MPI_Type_free(&ft);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    io_test_remove(path);
}

static void expect_extent(MPI_File fh, MPI_Datatype t, MPI_Aint want, const char *what)
{
    MPI_Aint ext = -1;
    MPI_Count ext_c = -1;
    CHECK_MPI(MPI_File_get_type_extent(fh, t, &ext));
    CHECK_MPI(MPI_File_get_type_extent_c(fh, t, &ext_c));
    CHECK(ext == want && ext_c == want, "file extent of %s: %ld (_c %lld), want %ld", what, (long)ext,
          (long long)ext_c, (long)want);
    CHECK_MPI(MPI_Type_free(&t));
}

/* Derived types in a representation that widens MPI_INT to 8 bytes (the view's, set by the
   caller): the constructors are replayed on the file extents, element strides scale and byte
   displacements stay (MPI 4.1, 14.5.1); struct padding is a memory notion. */
static void test_file_extents(MPI_File fh)
{
    MPI_Datatype t, types[2] = {MPI_CHAR, MPI_INT};
    int bl[2] = {1, 2}, idisp[2] = {0, 5}, sizes[2] = {3, 4}, sub[2] = {2, 2}, starts[2] = {1, 1};
    MPI_Aint adisp[2] = {0, 1};
    MPI_Type_contiguous(4, MPI_INT, &t);
    expect_extent(fh, t, 32, "contiguous(4, int)");
    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    expect_extent(fh, t, 80, "vector(3, 2, 4, int)");
    MPI_Type_create_hvector(2, 1, 100, MPI_INT, &t);
    expect_extent(fh, t, 108, "hvector(2, 1, 100 bytes, int)");
    MPI_Type_indexed(2, bl, idisp, MPI_INT, &t);
    expect_extent(fh, t, 56, "indexed({1, 2}, {0, 5}, int)");
    MPI_Type_create_struct(2, (int[]){1, 1}, adisp, types, &t);
    expect_extent(fh, t, 9, "struct{char@0, int@1}");
    MPI_Type_create_resized(MPI_INT, -4, 20, &t);
    expect_extent(fh, t, 20, "resized(int, -4, 20)");
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
    expect_extent(fh, t, 96, "subarray 3x4 of int");
    MPI_Datatype inner;
    MPI_Type_contiguous(2, MPI_INT, &inner);
    MPI_Type_create_hvector_c(3, 1, 40, inner, &t);
    MPI_Type_free(&inner);
    expect_extent(fh, t, 96, "hvector_c(3, 1, 40 bytes, contiguous(2, int))");
}

/* external32: big-endian ints in the file, native values in memory. */
static void test_external32(const char *path)
{
    int rank = empi_rank();
    int v[4] = {0x01020304 + rank, -2, rank, 0x7f000000};
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_ERR(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-representation", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    MPI_Aint ext;
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    CHECK(ext == 4, "external32 extent of MPI_INT %ld", (long)ext);
    CHECK_MPI(MPI_File_write_at_all(fh, rank * 4, v, 4, MPI_INT, MPI_STATUS_IGNORE));
    io_test_sync(fh);
    int back[4];
    CHECK_MPI(MPI_File_read_at(fh, rank * 4, back, 4, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(!memcmp(back, v, sizeof v), "external32 round trip");
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    unsigned char raw[16];
    CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)rank * 16, raw, 16, MPI_BYTE, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++) {
        unsigned u = (unsigned)v[i];
        CHECK(raw[4 * i] == (u >> 24) && raw[4 * i + 1] == ((u >> 16) & 255) && raw[4 * i + 2] == ((u >> 8) & 255) &&
                  raw[4 * i + 3] == (u & 255),
              "int %d is not big-endian in the file", i);
    }
    /* a read cut short by the end of the file delivers every whole int it got, even inside an
       element of two: 3 pairs asked for, the file's ints 4 * size of them */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    MPI_Datatype pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    int tail[6] = {-9, -9, -9, -9, -9, -9}, n = 4 * empi_size();
    MPI_Status st;
    CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)(n - 3) * 4, tail, 3, pair, &st));
    int elems = -1;
    CHECK_MPI(MPI_Get_elements(&st, pair, &elems));
    int last = empi_size() - 1;
    CHECK(elems == 3 && tail[0] == -2 && tail[1] == last && tail[2] == 0x7f000000 && tail[3] == -9,
          "short external32 read: %d ints, %d %d %d %d", elems, tail[0], tail[1], tail[2], tail[3]);
    CHECK_MPI(MPI_Type_free(&pair));
    /* a user representation that widens MPI_INT with MPI_CONVERSION_FN_NULL (which copies bytes as
       they are) is refused, also inside a derived memory type (io_datarep has working ones) */
    CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Register_datarep("empi-test-wide", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, io_test_int64_extent,
                                   NULL));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "empi-test-wide", MPI_INFO_NULL));
    MPI_Datatype four;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &four));
    CHECK_MPI(MPI_Type_commit(&four));
    CHECK_ERR(MPI_File_write_at(fh, 0, v, 1, four, MPI_STATUS_IGNORE), MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_ERR(MPI_File_write_at(fh, 0, v, 4, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_MPI(MPI_Type_free(&four));
    test_file_extents(fh);
    CHECK_MPI(MPI_File_close(&fh));
    io_test_remove(path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char path[IO_PATH_MAX];
    io_test_path(path, "views");
    test_interleaved(path);
    test_subarray(path);
    test_nonblocking_split(path);
    test_external32(path);
    test_overlapping_view(path);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
