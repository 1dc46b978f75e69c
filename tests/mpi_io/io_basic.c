/*
 * MPI-IO basics: open/close with the amode flags, explicit-offset reads and writes verified byte
 * for byte, short reads at end of file, sizes (set_size, preallocate, get_size), DELETE_ON_CLOSE,
 * MPI_File_delete, the error classes of failing opens and accesses, file error handlers, info,
 * handle conversion and nonblocking explicit-offset access.
 */
#include <string.h>

#include "io_test.h"

#define BLOCK 1000

static int handler_calls, handler_class;

static void count_errors(MPI_File *fh, int *code, ...)
{
    (void)fh;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

static void test_open_errors(const char *path)
{
    MPI_File fh;
    /* MPI_FILE_NULL's handler is MPI_ERRORS_RETURN unless someone changed it */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "the default file error handler is not MPI_ERRORS_RETURN");
    CHECK_MPI(MPI_Errhandler_free(&eh));

    CHECK_ERR(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
    CHECK_ERR(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_ERR(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
              MPI_ERR_AMODE);
    CHECK_ERR(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_ERR(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    /* files are opened over intracommunicators */
    if (empi_size() > 1) {
        int rank = empi_rank();
        MPI_Comm half, inter;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
        CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 3, &inter));
        CHECK_ERR(MPI_File_open(inter, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_COMM);
        CHECK_MPI(MPI_Comm_free(&inter));
        CHECK_MPI(MPI_Comm_free(&half));
    }
}

/* Every rank writes its block at offset rank*BLOCK; then every rank reads the whole file. */
static void test_explicit(const char *path)
{
    int rank = empi_rank(), size = empi_size();
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh));
    int amode;
    CHECK_MPI(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR), "amode %d", amode);
    MPI_Group fg, wg;
    int cmp;
    CHECK_MPI(MPI_File_get_group(fh, &fg));
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_MPI(MPI_Group_compare(fg, wg, &cmp));
    CHECK(cmp == MPI_IDENT, "file group differs from the communicator's");
    MPI_Group_free(&fg);
    MPI_Group_free(&wg);

    unsigned char out[BLOCK];
    empi_fill(out, BLOCK, (uint32_t)rank + 1);
    MPI_Status st;
    int count;
    CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * BLOCK, out, BLOCK, MPI_BYTE, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == BLOCK, "write_at count %d", count);
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_sync(fh));

    MPI_Offset fsize;
    CHECK_MPI(MPI_File_get_size(fh, &fsize));
    CHECK(fsize == (MPI_Offset)size * BLOCK, "size %lld", (long long)fsize);
    unsigned char *all = malloc((size_t)size * BLOCK);
    CHECK_MPI(MPI_File_read_at(fh, 0, all, size * BLOCK, MPI_BYTE, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == size * BLOCK, "read_at count %d", count);
    for (int r = 0; r < size; r++)
        CHECK_PATTERN(all + (size_t)r * BLOCK, BLOCK, (uint32_t)r + 1);

    /* a read past the end stops at the end: 10 bytes */
    CHECK_MPI(MPI_File_read_at(fh, fsize - 10, all, 100, MPI_BYTE, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 10, "short read count %d", count);
    for (int i = 0; i < 10; i++)
        CHECK(all[i] == empi_pattern_byte((uint32_t)size, BLOCK - 10 + i), "short read byte %d", i);
    free(all);
    CHECK_MPI(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close did not reset the handle");

    CHECK_ERR(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL,
                            &fh),
              MPI_ERR_FILE_EXISTS);
}

static void test_sizes(const char *path)
{
    MPI_File fh;
    MPI_Offset sz;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_size(fh, 100));
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK(sz == 100, "size after set_size(100): %lld", (long long)sz);
    CHECK_MPI(MPI_File_set_size(fh, 10));
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK(sz == 10, "size after set_size(10): %lld", (long long)sz);
    CHECK_MPI(MPI_File_preallocate(fh, 50));
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK(sz == 50, "size after preallocate(50): %lld", (long long)sz);
    CHECK_MPI(MPI_File_preallocate(fh, 20));   /* never shrinks */
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK(sz == 50, "size after preallocate(20): %lld", (long long)sz);
    CHECK_MPI(MPI_File_close(&fh));

    /* read-only: writes and size changes are refused */
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    char c = 1;
    int rc = MPI_File_write_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_READ_ONLY || cls == MPI_ERR_ACCESS, "write on a read-only file: class %d", cls);
    CHECK_MPI(MPI_File_close(&fh));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    rc = MPI_File_read_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ACCESS, "read on a write-only file: class %d", cls);
    rc = MPI_File_write_at(fh, 0, NULL, 4, MPI_INT, MPI_STATUS_IGNORE);   /* no buffer to write from */
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "write from a NULL buffer: class %d", cls);
    CHECK_MPI(MPI_File_close(&fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (empi_rank() == 0)
        CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(!io_test_exists(path), "MPI_File_delete left the file");
}

static void test_delete_on_close(const char *path)
{
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                            MPI_INFO_NULL, &fh));
    int v = empi_rank();
    CHECK_MPI(MPI_File_write_at(fh, empi_rank() * (MPI_Offset)sizeof v, &v, 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(io_test_exists(path), "the file is gone before close");
    CHECK_MPI(MPI_File_close(&fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(!io_test_exists(path), "MPI_MODE_DELETE_ON_CLOSE left the file");
}

static void test_handlers_info(const char *path)
{
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info,
                            &fh));
    MPI_Info_free(&info);
    MPI_Info used;
    CHECK_MPI(MPI_File_get_info(fh, &used));
    int nkeys;
    CHECK_MPI(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys >= 0, "nkeys %d", nkeys);
    MPI_Info_free(&used);
    MPI_Info_create(&info);
    MPI_Info_set(info, "collective_buffering", "true");
    CHECK_MPI(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);

    /* a file starts with MPI_FILE_NULL's handler; a user handler sees the file's errors */
    MPI_Errhandler eh, got;
    CHECK_MPI(MPI_File_get_errhandler(fh, &got));
    CHECK(got == MPI_ERRORS_RETURN, "a new file's handler is not MPI_ERRORS_RETURN");
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_File_create_errhandler(count_errors, &eh));
    CHECK_MPI(MPI_File_set_errhandler(fh, eh));
    CHECK_MPI(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh, "get_errhandler does not return the handler set");
    CHECK_MPI(MPI_Errhandler_free(&got));
    char c;
    MPI_File_read_at(fh, -1, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE);   /* negative offset */
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_ARG, "handler calls %d class %d", handler_calls,
          handler_class);
    CHECK_MPI(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_IO, "call_errhandler: calls %d class %d", handler_calls,
          handler_class);
    CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Errhandler_free(&eh));

    /* integer handles */
    int fi = MPI_File_toint(fh);
    CHECK(MPI_File_fromint(fi) == fh, "toint/fromint round trip");
    CHECK(MPI_File_fromint(MPI_File_toint(MPI_FILE_NULL)) == MPI_FILE_NULL, "MPI_FILE_NULL round trip");

    /* nonblocking explicit offsets */
    int rank = empi_rank();
    double out[64], in[64];
    for (int i = 0; i < 64; i++)
        out[i] = rank * 1000.0 + i;
    MPI_Request req;
    MPI_Status st;
    int count, flag = 0;
    CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)rank * sizeof out, out, 64, MPI_DOUBLE, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK(count == 64, "iwrite_at count %d", count);
    CHECK_MPI(MPI_File_iread_at(fh, (MPI_Offset)rank * sizeof out, in, 64, MPI_DOUBLE, &req));
    while (!flag)
        CHECK_MPI(MPI_Test(&req, &flag, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK(count == 64 && !memcmp(in, out, sizeof out), "iread_at returned wrong data (count %d)", count);
    CHECK_MPI(MPI_File_iwrite_at_all(fh, (MPI_Offset)rank * sizeof out, out, 32, MPI_DOUBLE, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_iread_at_all(fh, (MPI_Offset)rank * sizeof out, in, 32, MPI_DOUBLE, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK(count == 32 && !memcmp(in, out, 32 * sizeof(double)), "iread_at_all (count %d)", count);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char path[IO_PATH_MAX];
    io_test_path(path, "basic");
    test_open_errors(path);
    test_explicit(path);
    io_test_remove(path);
    test_sizes(path);
    test_delete_on_close(path);
    test_handlers_info(path);
    io_test_remove(path);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
