/*
 * Collective I/O edge cases, with collective buffering left to the library and forced on:
 * - a rank with nothing to write or read passes (NULL, 0) while the others move data: everyone
 *   succeeds (it used to fail alone with MPI_ERR_NO_MEM and leave the others waiting);
 * - an erroneous NULL buffer with elements fails that rank alone with MPI_ERR_BUFFER, no hang;
 * - a filetype whose lower bound is above 0 (one int at byte 8, extent 4): MPI_SEEK_END and
 *   MPI_File_get_byte_offset count only the data before the end of the file, and a collective
 *   read past it returns what is there, not bytes of zeros.
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
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
