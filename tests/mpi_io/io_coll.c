/*
 * Collective access under the collective-buffering hints: interleaved views written and read with
 * write_all / read_at_all while the aggregation window (cb_buffer_size) is small enough that
 * blocks straddle windows and many rounds run, with one or several aggregators (cb_nodes), with
 * collective buffering off, with a noncontiguous memory type, with ranks that access nothing, and
 * reads running past the end of the file. Every byte of the file is checked.
 */
#include <string.h>

#include "io_test.h"

#define BLK 5   /* doubles per block: 40 bytes, so blocks straddle 64-byte windows */

/* Global double i of the file holds i + 0.5. Rank r owns blocks r, r+size, ... */
static double value_at(long i)
{
    return (double)i + 0.5;
}

static void run(const char *path, const char *cb, const char *nodes, const char *bufsize, int rounds)
{
    int rank = empi_rank(), size = empi_size();
    /* the last rank writes nothing when there are several: zero-count participants */
    int mine = (size > 1 && rank == size - 1) ? 0 : rounds;
    int writers = size > 1 ? size - 1 : 1;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "collective_buffering", cb);
    MPI_Info_set(info, "cb_nodes", nodes);
    MPI_Info_set(info, "cb_buffer_size", bufsize);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Datatype blk, ft, mt;
    MPI_Type_contiguous(BLK, MPI_DOUBLE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)writers * BLK * sizeof(double), &ft);
    MPI_Type_commit(&ft);
    /* memory: every block followed by one unused double */
    MPI_Type_vector(mine ? mine : 1, BLK, BLK + 1, MPI_DOUBLE, &mt);
    MPI_Type_commit(&mt);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(rank % writers) * BLK * sizeof(double), MPI_DOUBLE, ft, "native",
                                info));
    MPI_Info_free(&info);
    size_t mem = (size_t)(mine ? mine : 1) * (BLK + 1);
    double *buf = malloc(mem * sizeof(double)), *back = malloc(mem * sizeof(double));
    for (int b = 0; b < mine; b++)
        for (int k = 0; k <= BLK; k++)
            buf[b * (BLK + 1) + k] = k == BLK ? -1.0 : value_at(((long)b * writers + rank) * BLK + k);
    MPI_Status st;
    int count;
    CHECK_MPI(MPI_File_write_all(fh, buf, mine ? 1 : 0, mt, &st));
    CHECK_MPI(MPI_Get_count(&st, mt, &count));
    CHECK(count == (mine ? 1 : 0), "write_all count %d", count);
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_sync(fh));

    /* read back through the views, asking for one block more than there is */
    for (size_t i = 0; i < mem; i++)
        back[i] = -1.0;
    double extra[BLK + BLK];
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, mine ? 1 : 0, mt, &st));
    CHECK(!memcmp(back, buf, mem * sizeof(double)) || !mine, "read_at_all through the view differs");
    CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)(mine ? mine - 1 : 0) * BLK, extra, 2 * BLK, MPI_DOUBLE, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
    /* a writer reads its last block and then the end; the non-writer's view is rank 0's, from its start */
    CHECK(count == (mine ? BLK : 2 * BLK), "read past the end gave %d doubles", count);
    if (mine)
        CHECK(!memcmp(extra, buf + (size_t)(mine - 1) * (BLK + 1), BLK * sizeof(double)), "last block differs");
    for (int k = 0; !mine && k < 2 * BLK; k++)
        CHECK(extra[k] == value_at((long)(k / BLK) * writers * BLK + k % BLK), "non-writer read double %d", k);

    /* the whole file through the default view */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    long n = (long)rounds * writers * BLK;
    double *all = malloc((size_t)n * sizeof(double));
    CHECK_MPI(MPI_File_read_all(fh, all, (int)n, MPI_DOUBLE, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK(count == n, "file holds %d doubles, want %ld", count, n);
    for (long i = 0; i < n; i++)
        CHECK(all[i] == value_at(i), "[cb=%s nodes=%s buf=%s] double %ld is %g", cb, nodes, bufsize, i, all[i]);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&blk);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    free(buf), free(back), free(all);
    io_test_remove(path);
}

/* Small blocks far apart (64 GiB between ranks' blocks, a sparse file) through 4 KiB windows: the
   rounds with no data anywhere are skipped, or the call would walk millions of windows. */
static void sparse(const char *path)
{
    int rank = empi_rank(), size = empi_size();
    const MPI_Offset gap = (MPI_Offset)1 << 36;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "collective_buffering", "true");
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    /* two ints per rank, at rank * gap and 8 KiB further (a window between them is empty too) */
    MPI_Datatype two;
    MPI_Type_create_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){0, 8192}, MPI_INT, &two);
    MPI_Type_commit(&two);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * gap, MPI_INT, two, "native", info));
    int v[2] = {7 * rank + 1, 7 * rank + 2}, back[2] = {0, 0};
    CHECK_MPI(MPI_File_write_at_all(fh, 0, v, 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(back[0] == v[0] && back[1] == v[1], "sparse collective write/read: %d %d", back[0], back[1]);
    MPI_Offset fsize = 0;
    CHECK_MPI(MPI_File_get_size(fh, &fsize));
    CHECK(fsize == (MPI_Offset)(size - 1) * gap + 8192 + 4, "sparse file size %lld", (long long)fsize);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&two);
    MPI_Info_free(&info);
    io_test_remove(path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char path[IO_PATH_MAX];
    io_test_path(path, "coll");
    run(path, "true", "1", "64", 40);
    run(path, "true", "2", "100", 40);
    run(path, "true", "64", "4096", 300);
    run(path, "false", "1", "64", 40);
    run(path, "automatic", "3", "1000", 200);
    sparse(path);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
