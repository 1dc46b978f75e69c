/*
 * Collective I/O edge cases, with collective buffering left to the library and forced on:
 * - a rank with nothing to write or read passes (NULL, 0) while the others move data: everyone
 *   succeeds (it used to fail alone with MPI_ERR_NO_MEM and leave the others waiting);
 * - an erroneous NULL buffer with elements fails that rank alone with MPI_ERR_BUFFER, no hang;
 * - a filetype whose lower bound is above 0 (one int at byte 8, extent 4): MPI_SEEK_END and
 *   MPI_File_get_byte_offset count only the data before the end of the file, and a collective
 *   read past it returns what is there, not bytes of zeros;
 * - a darray over more processes than blocks: the processes that own none set a view of an empty
 *   filetype and take part in the collective write with no data (the view was refused);
 * - tiles of a filetype that reach into the next tile's span ({bytes 0-1, 6-7} of extent 4, and
 *   {0-3, 8-11} of extent 4 on a file open read-only): every read returns the bytes the view
 *   maps to (the sieving read copied from before its buffer, and read zeros).
 */
#include <string.h>

#include "io_test.h"

static void zero_counts(const char *path, MPI_Info info, int me, int n)
{
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    int data[4] = {10 * me + 1, 10 * me + 2, 10 * me + 3, 10 * me + 4}, back[4] = {0};
    int active = me % 2 == 0;   /* odd ranks have nothing */
    MPI_Offset at = (MPI_Offset)me * sizeof data;
    CHECK_MPI(MPI_File_write_at_all(fh, at, active ? data : NULL, active ? 4 : 0, MPI_INT, MPI_STATUS_IGNORE));
    io_test_sync(fh);
    CHECK_MPI(MPI_File_read_at_all(fh, at, active ? back : NULL, active ? 4 : 0, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(!active || memcmp(back, data, sizeof data) == 0, "rank %d read back %d %d %d %d", me, back[0], back[1],
          back[2], back[3]);
    /* the bad buffer: only the last rank passes NULL with elements */
    int bad = n > 1 && me == n - 1;
    int rc = MPI_File_write_at_all(fh, at, bad ? NULL : data, 4, MPI_INT, MPI_STATUS_IGNORE);
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == (bad ? MPI_ERR_BUFFER : MPI_SUCCESS), "rank %d: NULL-buffer write gave class %d", me, cls);
    CHECK_MPI(MPI_File_close(&fh));
}

static void lb_above_zero(const char *path, int me)
{
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Aint disp = 8;
    int len = 1;
    MPI_Datatype ft;
    CHECK_MPI(MPI_Type_create_hindexed(1, &len, &disp, MPI_INT, &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    /* tiles at 0, 4, 8, ...: data ints at bytes 8, 12, 16, 20; four of them end the file at 24 */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    int data[4] = {11, 22, 33, 44};
    if (me == 0)
        CHECK_MPI(MPI_File_write_at(fh, 0, data, 4, MPI_INT, MPI_STATUS_IGNORE));
    io_test_sync(fh);
    MPI_Offset size, pos, byte;
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECK(size == 24, "file size %lld, expected 24", (long long)size);
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == 4, "MPI_SEEK_END at %lld etypes, expected 4", (long long)pos);
    CHECK_MPI(MPI_File_get_byte_offset(fh, pos, &byte));
    CHECK(byte == 24, "byte offset of the end %lld, expected 24", (long long)byte);
    int back[6] = {-1, -1, -1, -1, -1, -1};
    MPI_Status st;
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, 6, MPI_INT, &st));
    int got = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
    CHECK(got == 4 && memcmp(back, data, sizeof data) == 0 && back[4] == -1,
          "collective read past the end: count %d, %d %d %d %d %d", got, back[0], back[1], back[2], back[3], back[4]);
    CHECK_MPI(MPI_File_close(&fh));
    CHECK_MPI(MPI_Type_free(&ft));
}

static void empty_darray_block(const char *path, int me, int n)
{
    int gsize = 2, distrib = MPI_DISTRIBUTE_BLOCK, darg = MPI_DISTRIBUTE_DFLT_DARG;
    MPI_Datatype ft;
    CHECK_MPI(MPI_Type_create_darray(n, me, 1, &gsize, &distrib, &darg, &n, MPI_ORDER_C, MPI_INT, &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    int size;
    CHECK_MPI(MPI_Type_size(ft, &size));
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    int mine[2] = {100 + me, 200 + me}, back[2] = {-1, -1}; /* a lone process owns both */
    CHECK_MPI(MPI_File_write_all(fh, mine, size / 4, MPI_INT, MPI_STATUS_IGNORE));
    io_test_sync(fh);
    MPI_Offset at = -1;
    CHECK_MPI(MPI_File_get_position(fh, &at));
    CHECK(at == size / 4, "rank %d: position %lld after writing %d ints", me, (long long)at, size / 4);
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, size / 4, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++)
        CHECK(back[i] == (i < size / 4 ? mine[i] : -1), "rank %d read back %d at %d", me, back[i], i);
    if (size == 0) { /* data through a view that holds none is an error, not a hang */
        CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
        int cls = MPI_SUCCESS, rc = MPI_File_read_at(fh, 0, back, 1, MPI_INT, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "rank %d: reading an int through an empty view gave class %d", me, cls);
    }
    CHECK_MPI(MPI_File_close(&fh));
    CHECK_MPI(MPI_Type_free(&ft));
}

/* Stream byte s of a view of {(d0, len), (d1, len)} resized to extent 4, from file offset 0. */
static long tiled_offset(long s, int d1, int len)
{
    long tile = s / (2 * len), w = s % (2 * len);
    return 4 * tile + (w < len ? w : d1 + w - len);
}

static void overlapping_tiles(const char *path, int me, int d1, int len, int amode)
{
    enum { FILE_BYTES = 96, STREAM = 40 };
    unsigned char raw[FILE_BYTES], back[STREAM];
    for (int i = 0; i < FILE_BYTES; i++)
        raw[i] = (unsigned char)(7 * i + 1);
    if (me == 0) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(raw, 1, sizeof raw, f) == sizeof raw && fclose(f) == 0, "cannot write %s", path);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int blens[2] = {len, len}, disps[2] = {0, d1};
    MPI_Datatype pair, ft;
    CHECK_MPI(MPI_Type_indexed(2, blens, disps, MPI_BYTE, &pair));
    CHECK_MPI(MPI_Type_create_resized(pair, 0, 4, &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, amode, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    for (int start = 0; start < 12; start++) {
        int want = STREAM - start, got = -1;
        memset(back, 0xEE, sizeof back);
        MPI_Status st;
        CHECK_MPI(MPI_File_read_at(fh, start, back, want, MPI_BYTE, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &got));
        CHECK(got == want, "tiles {0,%d}x%d: read at %d returned %d of %d bytes", d1, len, start, got, want);
        for (int i = 0; i < want; i++)
            CHECK(back[i] == raw[tiled_offset(start + i, d1, len)], "tiles {0,%d}x%d: read at %d: byte %d is %d, not %d",
                  d1, len, start, i, back[i], raw[tiled_offset(start + i, d1, len)]);
    }
    CHECK_MPI(MPI_File_close(&fh));
    CHECK_MPI(MPI_Type_free(&ft));
    CHECK_MPI(MPI_Type_free(&pair));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* before rank 0 rewrites the file */
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int me = empi_rank(), n = empi_size();
    char path[IO_PATH_MAX];
    MPI_Info forced;
    CHECK_MPI(MPI_Info_create(&forced));
    CHECK_MPI(MPI_Info_set(forced, "collective_buffering", "true"));
    MPI_Info infos[2] = {MPI_INFO_NULL, forced};
    for (int i = 0; i < 2; i++) {
        io_test_path(path, "edges");
        zero_counts(path, infos[i], me, n);
        io_test_remove(path);
    }
    CHECK_MPI(MPI_Info_free(&forced));
    io_test_path(path, "lb");
    lb_above_zero(path, me);
    io_test_remove(path);
    io_test_path(path, "darray");
    empty_darray_block(path, me, n);
    io_test_remove(path);
    io_test_path(path, "tiles");
    overlapping_tiles(path, me, 6, 2, MPI_MODE_RDWR);
    overlapping_tiles(path, me, 8, 4, MPI_MODE_RDONLY);
    io_test_remove(path);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
