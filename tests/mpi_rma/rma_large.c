/*
 * Large puts and gets, whose copies switch to non-temporal stores above the
 * EMPI_RMA_PUT/GET_STREAM_THRESHOLD sizes: lengths on both sides of each threshold with odd tails,
 * contiguous and as a vector of large blocks on the target, on allocated and created windows,
 * under lock/flush. Every byte is checked, and the bytes around the target range must not move.
 * Each rank puts into and gets from its right neighbour's window.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

#define GUARD 64

static unsigned char pattern(int rank, size_t i, int round)
{
    return (unsigned char)(rank * 37 + round * 11 + i * 7 + (i >> 9));
}

/* lengths around 128 KiB (the put threshold: the first large put to a place streams, the next
   one there takes cached stores up to 1 MiB, EMPI_RMA_PUT_REPEAT_CACHED, and streams above), below
   and above 256 KiB (the get threshold: the first large get into `buf` streams, the next one into
   the same buffer takes cached stores), and a short one */
static const size_t lengths[] = {3000, 128 * 1024 - 8, 128 * 1024 + 13, 1024 * 1024 - 4, 1024 * 1024 + 36};
#define NLEN (sizeof lengths / sizeof lengths[0])
#define WIN_BYTES (2 * 1024 * 1024 + 4 * GUARD)

static void check_target(const unsigned char *mem, size_t off, size_t len, int writer, int round,
                         const char *what)
{
    for (size_t i = 0; i < GUARD; i++)
        CHECK(mem[off - GUARD + i] == 0xEE && mem[off + len + i] == 0xEE, "%s %zu: guard byte touched", what, len);
    for (size_t i = 0; i < len; i++)
        CHECK(mem[off + i] == pattern(writer, i, round), "%s %zu: byte %zu is %u", what, len, i, mem[off + i]);
}

/* Contiguous put then get of every length. */
static void contiguous(MPI_Win win, unsigned char *mem, int flavor)
{
    int rank = empi_rank(), size = empi_size();
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *buf = malloc(WIN_BYTES);
    for (size_t k = 0; k < NLEN; k++) {
        size_t len = lengths[k];
        int round = (int)k + 10 * flavor;
        memset(mem, 0xEE, WIN_BYTES);
        for (size_t i = 0; i < len; i++)
            buf[i] = pattern(rank, i, round);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        CHECK_MPI(MPI_Put(buf, (int)len, MPI_BYTE, right, GUARD, (int)len, MPI_BYTE, win));
        CHECK_MPI(MPI_Win_unlock(right, win));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        check_target(mem, GUARD, len, left, round, "put");
        CHECK_MPI(MPI_Win_unlock(rank, win));
        /* read back from the right neighbour what this rank put there */
        memset(buf, 0, len + GUARD);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        CHECK_MPI(MPI_Get(buf, (int)len, MPI_BYTE, right, GUARD, (int)len, MPI_BYTE, win));
        CHECK_MPI(MPI_Win_flush(right, win));
        CHECK_MPI(MPI_Win_unlock(right, win));
        for (size_t i = 0; i < len; i++)
            CHECK(buf[i] == pattern(rank, i, round), "get %zu: byte %zu is %u", len, i, buf[i]);
        for (size_t i = 0; i < GUARD; i++)
            CHECK(buf[len + i] == 0, "get %zu: byte past the end written", len);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(buf);
}

/* Three blocks of 160 KiB + 5 bytes, 200 KiB apart on the target: each run above the put threshold. */
static void strided(MPI_Win win, unsigned char *mem, int flavor)
{
    enum { BLOCK = 160 * 1024 + 5, STRIDE = 200 * 1024, NBLK = 3 };
    int rank = empi_rank(), size = empi_size();
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    size_t len = (size_t)NBLK * BLOCK;
    int round = 100 + flavor;
    unsigned char *buf = malloc(len);
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(NBLK, BLOCK, STRIDE, MPI_BYTE, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    memset(mem, 0xEE, WIN_BYTES);
    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(rank, i, round);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    CHECK_MPI(MPI_Put(buf, (int)len, MPI_BYTE, right, GUARD, 1, vec, win));
    CHECK_MPI(MPI_Win_unlock(right, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    for (int b = 0; b < NBLK; b++)
        for (size_t i = 0; i < BLOCK; i++)
            CHECK(mem[GUARD + (size_t)b * STRIDE + i] == pattern(left, (size_t)b * BLOCK + i, round),
                  "strided put: block %d byte %zu", b, i);
    for (int b = 0; b + 1 < NBLK; b++)
        for (size_t i = GUARD + (size_t)b * STRIDE + BLOCK; i < GUARD + (size_t)(b + 1) * STRIDE; i++)
            CHECK(mem[i] == 0xEE, "strided put: gap byte %zu touched", i);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Type_free(&vec));
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int flavor = 0; flavor < 2; flavor++) {
        unsigned char *mem;
        MPI_Win win;
        if (flavor == 0) {
            CHECK_MPI(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        } else {
            mem = malloc(WIN_BYTES);
            CHECK_MPI(MPI_Win_create(mem, WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        }
        contiguous(win, mem, flavor);
        strided(win, mem, flavor);
        CHECK_MPI(MPI_Win_free(&win));
        if (flavor == 1)
            free(mem);
    }
    empi_test_pass();
    MPI_Finalize();
    return 0;
}
