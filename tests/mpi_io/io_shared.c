/*
 * The shared file pointer and file modes: write_shared / read_shared from every rank (each record
 * lands exactly once), ordered access giving rank order, seek_shared / get_position_shared,
 * nonblocking and split shared forms, atomic mode under concurrent conflicting writes,
 * MPI_MODE_SEQUENTIAL and MPI_MODE_APPEND.
 */
#include <string.h>

#include "io_test.h"

#define REC 16   /* ints per record: rank, sequence number, then a pattern */

static void make_record(int *rec, int rank, int seq)
{
    rec[0] = rank;
    rec[1] = seq;
    for (int i = 2; i < REC; i++)
        rec[i] = rank * 1000 + seq * 100 + i;
}

static int record_ok(const int *rec)
{
    int want[REC];
    make_record(want, rec[0], rec[1]);
    return !memcmp(want, rec, sizeof want);
}

static void test_shared(const char *path)
{
    int rank = empi_rank(), size = empi_size(), per = 3;
    MPI_File fh;
    MPI_Status st;
    int count, rec[REC];
    MPI_Request req;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    make_record(rec, rank, 0);
    CHECK_MPI(MPI_File_write_shared(fh, rec, REC, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == REC, "write_shared count %d", count);
    make_record(rec, rank, 1);
    CHECK_MPI(MPI_File_iwrite_shared(fh, rec, REC, MPI_INT, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    make_record(rec, rank, 2);
    CHECK_MPI(MPI_File_write_shared_c(fh, rec, REC, MPI_INT, MPI_STATUS_IGNORE));
    io_test_sync(fh);
    MPI_Offset pos;
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == (MPI_Offset)size * per * REC, "shared position %lld", (long long)pos);

    /* every record is in the file once, whole */
    int n = size * per * REC;
    int *all = malloc((size_t)n * sizeof(int));
    CHECK_MPI(MPI_File_read_at(fh, 0, all, n, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == n, "file holds %d ints, want %d", count, n);
    int *seen = calloc((size_t)size * per, sizeof(int));
    for (int r = 0; r < size * per; r++) {
        int *p = all + r * REC;
        CHECK(p[0] >= 0 && p[0] < size && p[1] >= 0 && p[1] < per && record_ok(p), "record %d is torn", r);
        seen[p[0] * per + p[1]]++;
    }
    for (int i = 0; i < size * per; i++)
        CHECK(seen[i] == 1, "record (%d, %d) appears %d times", i / per, i % per, seen[i]);

    /* read them back through the shared pointer: together the ranks read every record once */
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 0, "position after seek_shared %lld", (long long)pos);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));   /* everyone looked before anyone moves it */
    int got[3][REC];
    CHECK_MPI(MPI_File_read_shared(fh, got[0], REC, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_iread_shared(fh, got[1], REC, MPI_INT, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == REC, "iread_shared count %d", count);
    CHECK_MPI(MPI_File_read_shared(fh, got[2], REC, MPI_INT, MPI_STATUS_IGNORE));
    int ids[3];
    for (int i = 0; i < 3; i++) {
        CHECK(record_ok(got[i]), "read_shared record %d is torn", i);
        ids[i] = got[i][0] * per + got[i][1];
    }
    int *allids = malloc((size_t)size * 3 * sizeof(int));
    CHECK_MPI(MPI_Allgather(ids, 3, MPI_INT, allids, 3, MPI_INT, MPI_COMM_WORLD));
    memset(seen, 0, (size_t)size * per * sizeof(int));
    for (int i = 0; i < size * 3; i++)
        seen[allids[i]]++;
    for (int i = 0; i < size * per; i++)
        CHECK(seen[i] == 1, "record %d read %d times", i, seen[i]);
    /* reading at the end: nothing */
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    CHECK_MPI(MPI_File_read_shared(fh, got[0], REC, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 0, "read_shared at the end read %d ints", count);
    CHECK_MPI(MPI_File_close(&fh));
    free(all);
    free(seen);
    free(allids);
    io_test_remove(path);
}

/* Rank r writes r+1 ints of value r: the file is 0 1 1 2 2 2 ... in rank order. */
static void test_ordered(const char *path)
{
    int rank = empi_rank(), size = empi_size();
    MPI_File fh;
    MPI_Status st;
    int count;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int mine[64], back[64];
    for (int i = 0; i <= rank; i++)
        mine[i] = rank;
    CHECK_MPI(MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == rank + 1, "write_ordered count %d", count);
    /* a second round with the split form lands after the first */
    CHECK_MPI(MPI_File_write_ordered_begin(fh, mine, rank + 1, MPI_INT));
    CHECK_MPI(MPI_File_write_ordered_end(fh, mine, MPI_STATUS_IGNORE));
    io_test_sync(fh);
    int half = size * (size + 1) / 2, n = 2 * half;
    MPI_Offset pos;
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == n, "shared position after ordered writes %lld, want %d", (long long)pos, n);
    int *all = malloc((size_t)n * sizeof(int));
    CHECK_MPI(MPI_File_read_at_all(fh, 0, all, n, MPI_INT, MPI_STATUS_IGNORE));
    for (int round = 0, i = 0; round < 2; round++)
        for (int r = 0; r < size; r++)
            for (int k = 0; k <= r; k++, i++)
                CHECK(all[i] == r, "ordered file int %d is %d, want %d", i, all[i], r);
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read_ordered(fh, back, rank + 1, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == rank + 1 && !memcmp(back, mine, (size_t)(rank + 1) * sizeof(int)), "read_ordered");
    memset(back, 0, sizeof back);
    CHECK_MPI(MPI_File_read_ordered_begin(fh, back, rank + 1, MPI_INT));
    CHECK_MPI(MPI_File_read_ordered_end(fh, back, &st));
    CHECK(!memcmp(back, mine, (size_t)(rank + 1) * sizeof(int)), "read_ordered split");
    CHECK_MPI(MPI_File_close(&fh));
    free(all);
    io_test_remove(path);
}

/*
 * Atomic mode: every rank writes the same strided region (one int in two, through a view) with
 * its own rank as value, all at once. Atomicity means the result is one rank's write, whole.
 */
static void test_atomic(const char *path)
{
    int rank = empi_rank(), n = 20000;
    MPI_File fh;
    MPI_Datatype ft;
    MPI_Type_vector(1, 1, 2, MPI_INT, &ft);
    MPI_Datatype fts;
    MPI_Type_create_resized(ft, 0, 2 * sizeof(int), &fts);
    MPI_Type_commit(&fts);
    MPI_Type_free(&ft);
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    int flag;
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity flag %d", flag);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, fts, "native", MPI_INFO_NULL));
    int *v = malloc((size_t)n * sizeof(int));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < n; i++)
            v[i] = rank + 100 * round;
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_File_write_at(fh, 0, v, n, MPI_INT, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_File_read_at(fh, 0, v, n, MPI_INT, MPI_STATUS_IGNORE));
        for (int i = 1; i < n; i++)
            CHECK(v[i] == v[0], "round %d: int %d is %d but int 0 is %d: writes mixed", round, i, v[i], v[0]);
        CHECK(v[0] % 100 < empi_size() && v[0] / 100 == round, "round %d: value %d", round, v[0]);
    }
    CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "atomicity flag %d after clearing", flag);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&fts);
    free(v);
    io_test_remove(path);
}

static void test_modes(const char *path)
{
    int rank = empi_rank(), size = empi_size();
    MPI_File fh;
    /* sequential: only the shared pointer */
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                            MPI_INFO_NULL, &fh));
    char c = (char)('a' + rank);
    CHECK_ERR(MPI_File_write_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_MPI(MPI_File_write_ordered(fh, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_close(&fh));

    /* append: both pointers start at the end */
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
    MPI_Offset pos, shpos;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK_MPI(MPI_File_get_position_shared(fh, &shpos));
    CHECK(pos == size && shpos == size, "append mode starts at %lld / %lld, want %d", (long long)pos,
          (long long)shpos, size);
    CHECK_MPI(MPI_File_write_ordered(fh, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE));
    io_test_sync(fh);
    char *all = malloc((size_t)2 * size);
    MPI_Status st;
    int count;
    CHECK_MPI(MPI_File_read_at(fh, 0, all, 2 * size, MPI_CHAR, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_CHAR, &count));
    CHECK(count == 2 * size, "file holds %d chars", count);
    for (int i = 0; i < 2 * size; i++)
        CHECK(all[i] == 'a' + i % size, "char %d is %c", i, all[i]);
    free(all);
    CHECK_MPI(MPI_File_close(&fh));
    io_test_remove(path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char path[IO_PATH_MAX];
    io_test_path(path, "shared");
    test_shared(path);
    test_ordered(path);
    test_atomic(path);
    test_modes(path);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
