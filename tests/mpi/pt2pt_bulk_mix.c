/*
 * Large messages on the rendezvous paths under contention: every rank Ssends 3 MiB to rank 0 at
 * once (Mprobe with MPI_ANY_SOURCE, Mrecv), a 3 MiB message truncated into half the room
 * (MPI_ERR_TRUNCATE, the first half intact, the pair usable afterwards), a ring of 3 MiB vectors
 * (packing on both sides, gaps untouched) and all pairs exchanging 300 KB at once.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

#define N (3 * 1024 * 1024 + 7)

static void many_to_one(unsigned char *a, unsigned char *b, int rank, int size)
{
    if (rank) {
        empi_fill(a, N, empi_seed(rank, 0, 1));
        CHECK_MPI(MPI_Ssend(a, N, MPI_BYTE, 0, 5, MPI_COMM_WORLD));
        return;
    }
    for (int k = 1; k < size; k++) {
        MPI_Status st;
        MPI_Message msg;
        int count;
        CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &msg, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == N, "mprobe count %d, want %d", count, N);
        CHECK_MPI(MPI_Mrecv(b, N, MPI_BYTE, &msg, &st));
        CHECK_PATTERN(b, N, empi_seed(st.MPI_SOURCE, 0, 1));
    }
}

static void truncated(unsigned char *a, unsigned char *b, int rank)
{
    int peer = 1 - rank;
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (rank == 0) {
        empi_fill(a, N, empi_seed(0, 1, 2));
        CHECK_MPI(MPI_Send(a, N, MPI_BYTE, peer, 6, MPI_COMM_WORLD));
    } else {
        CHECK_ERR(MPI_Recv(b, N / 2, MPI_BYTE, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
        CHECK_PATTERN(b, N / 2, empi_seed(0, 1, 2));
    }
    empi_fill(a, N, empi_seed(rank, peer, 3));
    CHECK_MPI(MPI_Sendrecv_replace(a, N, MPI_BYTE, peer, 7, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_PATTERN(a, N, empi_seed(peer, rank, 3));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void vector_ring(unsigned char *a, unsigned char *b, int rank, int size)
{
    enum { BLOCK = 200, STRIDE = 512 };
    int nblocks = N / STRIDE, to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Datatype v;
    CHECK_MPI(MPI_Type_vector(nblocks, BLOCK, STRIDE, MPI_BYTE, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    for (int i = 0; i < N; i++)
        a[i] = (unsigned char)(i * 13 + rank);
    memset(b, 0xEE, N);
    CHECK_MPI(MPI_Sendrecv(a, 1, v, to, 8, b, 1, v, from, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < nblocks * STRIDE; i++) {
        unsigned char want = i % STRIDE < BLOCK ? (unsigned char)(i * 13 + from) : 0xEE;
        CHECK(b[i] == want, "vector from %d: byte %d is %d, want %d", from, i, b[i], want);
    }
    CHECK_MPI(MPI_Type_free(&v));
}

static void all_pairs(int rank, int size)
{
    enum { M = 300000 };
    unsigned char *sb = malloc(M), *rb = malloc((size_t)M * size);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
    CHECK(sb && rb && rq, "out of memory");
    empi_fill(sb, M, empi_seed(rank, -1, 4));
    int n = 0;
    for (int p = 0; p < size; p++)
        if (p != rank)
            CHECK_MPI(MPI_Irecv(rb + (size_t)p * M, M, MPI_BYTE, p, 9, MPI_COMM_WORLD, &rq[n++]));
    for (int p = 0; p < size; p++)
        if (p != rank)
            CHECK_MPI(MPI_Isend(sb, M, MPI_BYTE, p, 9, MPI_COMM_WORLD, &rq[n++]));
    CHECK_MPI(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
    for (int p = 0; p < size; p++)
        if (p != rank)
            CHECK_PATTERN(rb + (size_t)p * M, M, empi_seed(p, -1, 4));
    free(sb), free(rb), free(rq);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = empi_rank(), size = empi_size();
    unsigned char *a = malloc(N), *b = malloc(N);
    CHECK(a && b, "out of memory");
    many_to_one(a, b, rank, size);
    if (size >= 2 && rank < 2)
        truncated(a, b, rank);
    vector_ring(a, b, rank, size);
    all_pairs(rank, size);
    free(a), free(b);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
