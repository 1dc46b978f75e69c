/*
 * Point-to-point patterns for a lossy datagram network (written against the MPI standard only):
 * every pair exchanges streams of small messages of many sizes, messages around the usual eager
 * and datagram boundaries, large messages both ways at once, a burst of outstanding nonblocking
 * messages, and a fan-in received with MPI_ANY_SOURCE. Every message carries a byte pattern that
 * depends on (source, destination, sequence), so a lost, duplicated, reordered or corrupted
 * message fails the check at the receiver.
 *   udp_pt2pt_patterns [scale]   scale (default 1) multiplies the message counts
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static int rank, size, scale = 1;

static void send_pattern(int dst, int seq, size_t len, int tag)
{
    unsigned char *buf = malloc(len + 1);
    empi_fill(buf, len, empi_seed(rank, dst, seq));
    CHECK_MPI(MPI_Send(buf, (int)len, MPI_BYTE, dst, tag, MPI_COMM_WORLD));
    free(buf);
}

static void recv_pattern(int src, int seq, size_t len, int tag)
{
    unsigned char *buf = malloc(len + 1);
    MPI_Status st;
    CHECK_MPI(MPI_Recv(buf, (int)len, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK((size_t)count == len, "message %d from %d: %d bytes, expected %zu", seq, src, count, len);
    CHECK_PATTERN(buf, len, empi_seed(src, rank, seq));
    free(buf);
}

/* Pairs (r, r^k) for every k: each exchanges the listed sizes, lower rank sending first. */
static void pairwise(const size_t *sizes, int nsizes, int rounds, int seq0)
{
    for (int k = 1; k < size; k++) {
        int peer = rank ^ k;
        if (peer >= size)
            continue;
        for (int r = 0; r < rounds; r++)
            for (int i = 0; i < nsizes; i++) {
                int seq = seq0 + r * nsizes + i;
                if (rank < peer) {
                    send_pattern(peer, seq, sizes[i], i);
                    recv_pattern(peer, seq, sizes[i], i);
                } else {
                    recv_pattern(peer, seq, sizes[i], i);
                    send_pattern(peer, seq, sizes[i], i);
                }
            }
    }
}

/* Large messages in both directions at once between every pair. */
static void large_both_ways(size_t len)
{
    unsigned char *out = malloc(len), *in = malloc(len);
    for (int k = 1; k < size; k++) {
        int peer = rank ^ k;
        if (peer >= size)
            continue;
        MPI_Request req[2];
        empi_fill(out, len, empi_seed(rank, peer, 1000 + k));
        CHECK_MPI(MPI_Irecv(in, (int)len, MPI_BYTE, peer, 77, MPI_COMM_WORLD, &req[0]));
        CHECK_MPI(MPI_Isend(out, (int)len, MPI_BYTE, peer, 77, MPI_COMM_WORLD, &req[1]));
        CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        CHECK_PATTERN(in, len, empi_seed(peer, rank, 1000 + k));
    }
    free(out);
    free(in);
}

/* Everyone posts n receives from its left neighbour and n sends to its right one, then waits:
   same tag, so non-overtaking fixes which receive gets which message. */
static void many_outstanding(int n, size_t len)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *out = malloc((size_t)n * len), *in = malloc((size_t)n * len);
    MPI_Request *req = malloc(2 * (size_t)n * sizeof *req);
    for (int i = 0; i < n; i++) {
        empi_fill(out + (size_t)i * len, len, empi_seed(rank, right, 5000 + i));
        CHECK_MPI(MPI_Irecv(in + (size_t)i * len, (int)len, MPI_BYTE, left, 5, MPI_COMM_WORLD, &req[i]));
    }
    for (int i = 0; i < n; i++)
        CHECK_MPI(MPI_Isend(out + (size_t)i * len, (int)len, MPI_BYTE, right, 5, MPI_COMM_WORLD, &req[n + i]));
    CHECK_MPI(MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK_PATTERN(in + (size_t)i * len, len, empi_seed(left, rank, 5000 + i));
    free(out);
    free(in);
    free(req);
}

/* Rank 0 receives n messages from every other rank with MPI_ANY_SOURCE; each source's messages
   must come in the order sent. */
static void any_source_fan_in(int n)
{
    enum { LEN = 3000 };
    unsigned char buf[LEN];
    if (rank != 0) {
        for (int i = 0; i < n; i++)
            send_pattern(0, 9000 + i, (size_t)(LEN - i % 7), 9);
        return;
    }
    int *next = calloc((size_t)size, sizeof *next);
    for (int m = 0; m < n * (size - 1); m++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, LEN, MPI_BYTE, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st));
        int src = st.MPI_SOURCE, count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        int i = next[src]++;
        CHECK(count == LEN - i % 7, "any-source message %d from %d: %d bytes", i, src, count);
        CHECK_PATTERN(buf, (size_t)count, empi_seed(src, 0, 9000 + i));
    }
    for (int r = 1; r < size; r++)
        CHECK(next[r] == n, "%d messages from %d, expected %d", next[r], r, n);
    free(next);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        scale = atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;

    static const size_t small[] = {0, 1, 8, 100, 1000, 1399, 1400, 1401, 1440, 1441, 2900, 4000, 8192};
    pairwise(small, (int)(sizeof small / sizeof small[0]), 5 * scale, 0);
    /* Around the common eager limits and one and two loopback/jumbo datagrams. */
    static const size_t edges[] = {8175, 8176, 8192, 8193, 16367, 16368, 16383, 16384, 16385,
                                   32768, 65439, 65440, 65475, 65476, 65536, 65537, 130950, 131072};
    pairwise(edges, (int)(sizeof edges / sizeof edges[0]), scale, 100000);
    large_both_ways(1 << 20);
    large_both_ways((4 << 20) + 3);
    many_outstanding(300 * scale, 700);
    many_outstanding(20 * scale, 70000);
    any_source_fan_in(200 * scale);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
