/*
 * Many persistent neighborhood requests, and one neighborhood collective with many neighbors:
 * - 500 MPI_Neighbor_alltoall_init on a ring must not each map a shared-memory segment (they used
 *   a 4 MiB one apiece that their point-to-point schedules never touch: address space and the
 *   kernel's mapping limit ran out after some thousands); started together, each delivers;
 * - a distributed graph in which every process has every other process as a neighbor 2000 times
 *   over delivers each block in edge order (the schedule engine rescanned every message of a round
 *   on each pass: quadratic in the degree).
 */
#include <stdio.h>
#include <stdlib.h>

#include "empi_test.h"

#define NREQ 500
#define REPEAT 2000

static int count_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void many_requests(int me, int n)
{
    int left = (me + n - 1) % n, right = (me + 1) % n, src[2] = {left, right}, dst[2] = {left, right};
    MPI_Comm ring;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED,
                                             MPI_INFO_NULL, 0, &ring));
    static int sbuf[NREQ][2], rbuf[NREQ][2];
    static MPI_Request req[NREQ];
    int before = count_mappings();
    for (int i = 0; i < NREQ; i++) {
        sbuf[i][0] = me * 100000 + i * 2;     /* to the left */
        sbuf[i][1] = me * 100000 + i * 2 + 1; /* to the right */
        CHECK_MPI(MPI_Neighbor_alltoall_init(sbuf[i], 1, MPI_INT, rbuf[i], 1, MPI_INT, ring, MPI_INFO_NULL,
                                             &req[i]));
    }
    int after = count_mappings();
    CHECK(before < 0 || after - before < NREQ / 10, "%d persistent requests added %d mappings", NREQ,
          after - before);
    CHECK_MPI(MPI_Startall(NREQ, req));
    CHECK_MPI(MPI_Waitall(NREQ, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NREQ; i++) {
        /* from the left neighbor its block to the right, from the right its block to the left;
           with n <= 2 both edges join the same pair and arrive in the order they were sent */
        int w0 = left * 100000 + i * 2 + (n > 2), w1 = right * 100000 + i * 2 + (n <= 2);
        CHECK(rbuf[i][0] == w0 && rbuf[i][1] == w1, "request %d received %d %d, not %d %d", i, rbuf[i][0],
              rbuf[i][1], w0, w1);
        CHECK_MPI(MPI_Request_free(&req[i]));
    }
    CHECK_MPI(MPI_Comm_free(&ring));
}

static void many_neighbors(int me, int n)
{
    int deg = n * REPEAT;
    int *nb = malloc((size_t)deg * sizeof *nb), *sbuf = malloc((size_t)deg * sizeof *sbuf),
        *rbuf = malloc((size_t)deg * sizeof *rbuf);
    CHECK(nb && sbuf && rbuf, "malloc");
    for (int k = 0; k < deg; k++) {
        nb[k] = k % n;
        sbuf[k] = me * deg + k; /* the k-th edge out of me */
        rbuf[k] = -1;
    }
    MPI_Comm g;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, nb, MPI_UNWEIGHTED, deg, nb, MPI_UNWEIGHTED,
                                             MPI_INFO_NULL, 0, &g));
    CHECK_MPI(MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, g));
    /* receive slot k is the (k / n)-th edge from k % n, which that process sent as its edge to me
       number k / n, its out-slot (k / n) * n + me */
    for (int k = 0; k < deg; k++) {
        int from = k % n, want = from * deg + (k / n) * n + me;
        CHECK(rbuf[k] == want, "slot %d holds %d, not %d", k, rbuf[k], want);
    }
    CHECK_MPI(MPI_Comm_free(&g));
    free(nb);
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int me = empi_rank(), n = empi_size();
    many_requests(me, n);
    many_neighbors(me, n);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
