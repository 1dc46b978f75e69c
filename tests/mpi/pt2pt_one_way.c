/*
 * Windows of eager messages sent one way without answers between (the shm transport writes those
 * from EMPI_SHM_STREAM_ONE_WAY bytes past the caches, into the ring instead of a cell), then the
 * same sizes as a ping-pong (never streamed), then every rank streaming to its right neighbour at
 * once while receiving from its left. Every byte is checked, and the order within a tag.
 */
#include <stdlib.h>

#include "empi_test.h"

#define WINDOW 64
#define MAXLEN (16 * 1024)

static const int sizes[] = {2047, 2048, 4095, 4096, 4097, 8192 + 3, 12000, 16384};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void one_way(unsigned char *buf, int from, int to, int rank, int round)
{
    MPI_Request req[WINDOW];
    for (int i = 0; i < WINDOW; i++) {
        int len = sizes[i % NSIZES];
        unsigned char *b = buf + (size_t)i * MAXLEN;
        if (rank == from) {
            empi_fill(b, len, empi_seed(from, round, i));
            CHECK_MPI(MPI_Isend(b, len, MPI_BYTE, to, 7, MPI_COMM_WORLD, &req[i]));
        } else {
            CHECK_MPI(MPI_Irecv(b, MAXLEN, MPI_BYTE, from, 7, MPI_COMM_WORLD, &req[i]));
        }
    }
    MPI_Status st[WINDOW];
    CHECK_MPI(MPI_Waitall(WINDOW, req, st));
    if (rank != to)
        return;
    for (int i = 0; i < WINDOW; i++) {
        int count;
        CHECK_MPI(MPI_Get_count(&st[i], MPI_BYTE, &count));
        CHECK(count == sizes[i % NSIZES], "message %d: %d bytes, want %d", i, count, sizes[i % NSIZES]);
        CHECK_PATTERN(buf + (size_t)i * MAXLEN, count, empi_seed(from, round, i));
    }
}

static void ping_pong(unsigned char *buf, int rank, int round)
{
    for (int i = 0; i < NSIZES; i++) {
        int len = sizes[i];
        if (rank == 0) {
            empi_fill(buf, len, empi_seed(0, round, i));
            CHECK_MPI(MPI_Send(buf, len, MPI_BYTE, 1, 8, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Recv(buf, len, MPI_BYTE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_PATTERN(buf, len, empi_seed(1, round, i));
        } else if (rank == 1) {
            CHECK_MPI(MPI_Recv(buf, len, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_PATTERN(buf, len, empi_seed(0, round, i));
            empi_fill(buf, len, empi_seed(1, round, i));
            CHECK_MPI(MPI_Send(buf, len, MPI_BYTE, 0, 8, MPI_COMM_WORLD));
        }
    }
}

static void ring(unsigned char *out, unsigned char *in, int rank, int size, int round)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request req[2 * WINDOW];
    for (int i = 0; i < WINDOW; i++) {
        CHECK_MPI(MPI_Irecv(in + (size_t)i * MAXLEN, MAXLEN, MPI_BYTE, left, 9, MPI_COMM_WORLD, &req[i]));
        empi_fill(out + (size_t)i * MAXLEN, sizes[i % NSIZES], empi_seed(rank, round, i));
        CHECK_MPI(MPI_Isend(out + (size_t)i * MAXLEN, sizes[i % NSIZES], MPI_BYTE, right, 9, MPI_COMM_WORLD,
                            &req[WINDOW + i]));
    }
    CHECK_MPI(MPI_Waitall(2 * WINDOW, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < WINDOW; i++)
        CHECK_PATTERN(in + (size_t)i * MAXLEN, sizes[i % NSIZES], empi_seed(left, round, i));
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    unsigned char *a = malloc((size_t)WINDOW * MAXLEN), *b = malloc((size_t)WINDOW * MAXLEN);
    CHECK(a && b, "out of memory");
    for (int round = 0; round < 20 && size > 1; round++) {
        if (rank < 2) {
            one_way(a, 0, 1, rank, round);
            one_way(a, 1, 0, rank, round + 100);
            ping_pong(a, rank, round);
        }
        ring(a, b, rank, size, round + 200);
    }
    free(a);
    free(b);
    TEST_PASS();
    CHECK_MPI(MPI_Finalize());
    return 0;
}
