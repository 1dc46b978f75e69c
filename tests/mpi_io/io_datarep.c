/*
 * Data representations that change the size of types in the file (MPI 4.1, 14.5): external32
 * stores MPI_LONG in 4 bytes, and a user representation here stores each int in 8. Views built on
 * such types are laid out in file bytes (offsets count file etypes, a vector filetype leaves its
 * holes at file extents), accesses convert, statuses count memory elements, file pointers move
 * by file etypes, and the files hold exactly the bytes the representation defines. A user
 * representation with MPI_CONVERSION_FN_NULL that widens a type is refused, not written wrong.
 */
#include <stdint.h>
#include <string.h>

#include "io_test.h"

static long value(int rank, int i)
{
    return (long)(rank + 1) * 1000 + i - 500 * (i % 2);   /* some negative */
}

/* The file's bytes [off, off + n) through a native byte view. */
static void raw_read(MPI_File fh, MPI_Offset off, unsigned char *raw, int n)
{
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_read_at(fh, off, raw, n, MPI_BYTE, MPI_STATUS_IGNORE));
}

static int32_t be32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

/* Each rank writes 3 longs at etype offset 3 * rank of an MPI_LONG view, then reads them back,
   with the individual pointer too; the file holds 4-byte big-endian integers. */
static void external32_long(const char *path)
{
    int rank = empi_rank(), size = empi_size();
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
    long mine[3] = {value(rank, 0), value(rank, 1), value(rank, 2)};
    MPI_Status st;
    CHECK_MPI(MPI_File_write_at(fh, 3 * rank, mine, 3, MPI_LONG, &st));
    int count = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_LONG, &count));
    CHECK(count == 3, "external32 write of 3 longs: status count %d", count);
    io_test_sync(fh);
    long back[3] = {0, 0, 0};
    CHECK_MPI(MPI_File_read_at(fh, 3 * rank, back, 3, MPI_LONG, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_LONG, &count));
    CHECK(count == 3 && !memcmp(back, mine, sizeof mine), "external32 longs back: count %d, %ld %ld %ld", count,
          back[0], back[1], back[2]);
    /* the individual pointer counts file etypes: after 2 longs it is at etype 2, byte 8 */
    CHECK_MPI(MPI_File_seek(fh, 3 * rank, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read(fh, back, 2, MPI_LONG, MPI_STATUS_IGNORE));
    MPI_Offset pos = -1, byte = -1;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK_MPI(MPI_File_get_byte_offset(fh, pos, &byte));
    CHECK(pos == 3 * rank + 2 && byte == 4 * pos, "after reading 2 longs: position %lld, byte %lld",
          (long long)pos, (long long)byte);
    /* a read past the end delivers the whole longs there are */
    long tail[4] = {-1, -1, -1, -1};
    CHECK_MPI(MPI_File_read_at(fh, 3 * size - 2, tail, 4, MPI_LONG, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_LONG, &count));
    CHECK(count == 2 && tail[0] == value(size - 1, 1) && tail[1] == value(size - 1, 2) && tail[2] == -1,
          "short external32 read: count %d, %ld %ld %ld", count, tail[0], tail[1], tail[2]);
    io_test_sync(fh);
    unsigned char raw[12];
    raw_read(fh, 12 * rank, raw, 12);
    for (int i = 0; i < 3; i++)
        CHECK(be32(raw + 4 * i) == mine[i], "long %d of rank %d in the file: %d, expected %ld", i, rank,
              be32(raw + 4 * i), mine[i]);
    CHECK_MPI(MPI_File_close(&fh));
    io_test_remove(path);
}

/* A filetype of longs with holes (vector 2 x 1, stride size, resized to 16 * size bytes, which stay
   bytes in the file: each filetype covers 16 * size file bytes, this rank's longs at 0 and 4 *
   size) interleaved between ranks by the displacement 4 * rank. */
static void external32_holes(const char *path)
{
    int rank = empi_rank(), size = empi_size();
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Datatype vec, ft;
    CHECK_MPI(MPI_Type_vector(2, 1, size, MPI_LONG, &vec));
    CHECK_MPI(MPI_Type_create_resized(vec, 0, 2 * size * 8, &ft));   /* bytes stay bytes in the file */
    CHECK_MPI(MPI_Type_commit(&ft));
    MPI_Aint ext = 0;
    CHECK_MPI(MPI_File_get_type_extent(fh, vec, &ext));   /* native view: memory extent */
    CHECK(ext == (MPI_Aint)((size + 1) * sizeof(long)), "native extent of the vector %ld", (long)ext);
    CHECK_MPI(MPI_File_set_view(fh, 4 * rank, MPI_LONG, ft, "external32", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_get_type_extent(fh, vec, &ext));
    CHECK(ext == 4 * (size + 1), "external32 extent of the vector %ld, expected %d", (long)ext, 4 * (size + 1));
    long mine[4] = {value(rank, 0), value(rank, 1), value(rank, 2), value(rank, 3)};
    CHECK_MPI(MPI_File_write_all(fh, mine, 4, MPI_LONG, MPI_STATUS_IGNORE));
    io_test_sync(fh);
    /* file: filetype k at 16 * size * k, its two longs at 4 * rank and 4 * rank + 4 * size */
    int n = 2 * 16 * size;   /* two filetypes */
    unsigned char raw[2 * 16 * 8];
    raw_read(fh, 0, raw, n);
    for (int i = 0; i < 4; i++) {
        int off = 16 * size * (i / 2) + 4 * rank + 4 * size * (i % 2);
        CHECK(be32(raw + off) == mine[i], "rank %d's long %d at file byte %d: %d, expected %ld", rank, i, off,
              be32(raw + off), mine[i]);
    }
    CHECK_MPI(MPI_File_set_view(fh, 4 * rank, MPI_LONG, ft, "external32", MPI_INFO_NULL));
    long back[4] = {0, 0, 0, 0};
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, 4, MPI_LONG, MPI_STATUS_IGNORE));
    CHECK(!memcmp(back, mine, sizeof mine), "external32 longs through holes: %ld %ld %ld %ld", back[0], back[1],
          back[2], back[3]);
    CHECK_MPI(MPI_Type_free(&vec));
    CHECK_MPI(MPI_Type_free(&ft));
    CHECK_MPI(MPI_File_close(&fh));
    io_test_remove(path);
}

/* "empi-test-int64": every int is a little-endian 8-byte integer in the file (extent function
   io_test_int64_extent). */
static int int64_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position, void *state)
{
    (void)state;
    if (dt != MPI_INT)
        return MPI_ERR_TYPE;
    for (int i = 0; i < count; i++) {
        int64_t v = ((const int *)userbuf)[position + i];
        memcpy((char *)filebuf + 8 * i, &v, 8);
    }
    return MPI_SUCCESS;
}

static int int64_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position, void *state)
{
    (void)state;
    if (dt != MPI_INT)
        return MPI_ERR_TYPE;
    for (int i = 0; i < count; i++) {
        int64_t v;
        memcpy(&v, (const char *)filebuf + 8 * i, 8);
        ((int *)userbuf)[position + i] = (int)v;
    }
    return MPI_SUCCESS;
}

static void user_widening(const char *path)
{
    int rank = empi_rank();
    MPI_File fh;
    CHECK_MPI(MPI_Register_datarep("empi-test-int64", int64_read, int64_write, io_test_int64_extent, NULL));
    CHECK_MPI(MPI_Register_datarep("empi-test-nullwide", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, io_test_int64_extent,
                                   NULL));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "empi-test-int64", MPI_INFO_NULL));
    int mine[2] = {-rank - 1, 0x12345678 + rank};
    MPI_Status st;
    CHECK_MPI(MPI_File_write_at(fh, 2 * rank, mine, 2, MPI_INT, &st));
    int count = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 2, "int64 representation: write status count %d", count);
    io_test_sync(fh);
    int back[2] = {0, 0};
    CHECK_MPI(MPI_File_read_at(fh, 2 * rank, back, 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(back[0] == mine[0] && back[1] == mine[1], "int64 representation: back %d %d", back[0], back[1]);
    unsigned char raw[16];
    raw_read(fh, 16 * rank, raw, 16);
    for (int i = 0; i < 2; i++) {
        int64_t v;
        memcpy(&v, raw + 8 * i, 8);
        CHECK(v == mine[i], "int %d of rank %d in the file: %lld", i, rank, (long long)v);
    }
    /* MPI_CONVERSION_FN_NULL copies bytes: a representation that widens ints cannot use it */
    CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "empi-test-nullwide", MPI_INFO_NULL));
    CHECK_ERR(MPI_File_write_at(fh, 0, mine, 2, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_MPI(MPI_File_close(&fh));
    io_test_remove(path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char path[IO_PATH_MAX];
    io_test_path(path, "datarep");
    external32_long(path);
    external32_holes(path);
    user_widening(path);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
