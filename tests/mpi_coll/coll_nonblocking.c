/*
 * Nonblocking collectives interleaved with point-to-point traffic and with each other, on
 * several communicators at once; several outstanding on one communicator; a blocking
 * collective while nonblocking ones are pending; persistent collectives restarted; Comm_idup.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static int rank, size;

static void check_sum(const int *v, int n, int base, int commsize, const char *what)
{
    /* element e of rank r is base + r + e: sum over ranks */
    for (int e = 0; e < n; e++) {
        int want = commsize * (base + e) + commsize * (commsize - 1) / 2;
        CHECK(v[e] == want, "%s: element %d got %d want %d", what, e, v[e], want);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm dup, half, rev;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    int hrank, hsize, rrank;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    MPI_Comm_rank(rev, &rrank);

    for (int iter = 0; iter < 200; iter++) {
        enum { N = 37 };
        int a_in[N], a_out[N], b_in[N], b_out[N], c_out[N], bc[N], p2p_s = rank * 1000 + iter, p2p_r = -1;
        for (int e = 0; e < N; e++) {
            a_in[e] = iter + rank + e;
            b_in[e] = iter * 2 + hrank + e;
            bc[e] = rrank == iter % size ? iter * 7 + e : -1;
        }
        MPI_Request reqs[8];
        int nr = 0;
        CHECK_MPI(MPI_Iallreduce(a_in, a_out, N, MPI_INT, MPI_SUM, dup, &reqs[nr++]));
        CHECK_MPI(MPI_Irecv(&p2p_r, 1, MPI_INT, (rank - 1 + size) % size, iter, MPI_COMM_WORLD, &reqs[nr++]));
        CHECK_MPI(MPI_Iallreduce(b_in, b_out, N, MPI_INT, MPI_SUM, half, &reqs[nr++]));
        CHECK_MPI(MPI_Ibcast(bc, N, MPI_INT, iter % size, rev, &reqs[nr++]));
        CHECK_MPI(MPI_Isend(&p2p_s, 1, MPI_INT, (rank + 1) % size, iter, MPI_COMM_WORLD, &reqs[nr++]));
        /* a second one on dup, outstanding together with the first */
        CHECK_MPI(MPI_Iallreduce(a_in, c_out, N, MPI_INT, MPI_SUM, dup, &reqs[nr++]));
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[nr++]));
        /* a blocking collective on the same communicator while those are pending */
        int x = 1, y = 0;
        CHECK_MPI(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup));
        CHECK(y == size, "blocking allreduce under pending nonblocking ones: %d", y);
        if (iter % 2) {
            CHECK_MPI(MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE));
        } else {
            for (int i = nr - 1; i >= 0; i--) {
                int flag = 0;
                while (!flag)
                    CHECK_MPI(MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE));
            }
        }
        check_sum(a_out, N, iter, size, "iallreduce dup");
        check_sum(c_out, N, iter, size, "iallreduce dup #2");
        check_sum(b_out, N, iter * 2, hsize, "iallreduce half");
        for (int e = 0; e < N; e++)
            CHECK(bc[e] == iter * 7 + e, "ibcast rev: %d", bc[e]);
        CHECK(p2p_r == ((rank - 1 + size) % size) * 1000 + iter, "pt2pt mixed in: %d", p2p_r);
    }

    /* overlap: computation between start and completion, progressed by Test */
    {
        double v = rank, r = 0;
        MPI_Request req;
        CHECK_MPI(MPI_Iallreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req));
        int flag = 0;
        volatile double work = 0;
        while (!flag) {
            for (int i = 0; i < 1000; i++)
                work += i;
            CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        }
        CHECK(r == size - 1, "iallreduce max %f", r);
    }

    /* persistent collectives restarted many times, interleaved on two communicators */
    {
        int in = rank, out = -1, bin = -1;
        MPI_Request pr[2];
        CHECK_MPI(MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &pr[0]));
        CHECK_MPI(MPI_Bcast_init(&bin, 1, MPI_INT, 0, half, MPI_INFO_NULL, &pr[1]));
        for (int i = 0; i < 100; i++) {
            in = rank + i;
            bin = hrank == 0 ? i * 3 : -1;
            CHECK_MPI(MPI_Startall(2, pr));
            CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
            CHECK(out == size * i + size * (size - 1) / 2, "persistent allreduce %d", out);
            CHECK(bin == i * 3, "persistent bcast %d", bin);
        }
        CHECK_MPI(MPI_Request_free(&pr[0]));
        CHECK_MPI(MPI_Request_free(&pr[1]));
    }

    /* Comm_idup */
    {
        MPI_Comm nc;
        MPI_Request req;
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &nc, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        int s = 0, one = 1;
        CHECK_MPI(MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, nc));
        CHECK(s == size, "allreduce on idup'ed comm: %d", s);
        CHECK_MPI(MPI_Comm_free(&nc));
    }

    /* the large-count (_c) forms */
    {
        MPI_Count n = 5;
        int in[5], out[5], *all = malloc(sizeof(int) * 5 * (size_t)size);
        MPI_Count *cnt = malloc(sizeof(MPI_Count) * (size_t)size);
        MPI_Aint *dsp = malloc(sizeof(MPI_Aint) * (size_t)size);
        MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)size);
        for (int i = 0; i < 5; i++)
            in[i] = rank + i;
        CHECK_MPI(MPI_Allreduce_c(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < 5; i++)
            CHECK(out[i] == size * i + size * (size - 1) / 2, "allreduce_c");
        for (int j = 0; j < size; j++) {
            cnt[j] = 5;
            dsp[j] = (MPI_Aint)(5 * (size - 1 - j));
        }
        CHECK_MPI(MPI_Allgatherv_c(in, n, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 5; i++)
                CHECK(all[5 * (size - 1 - j) + i] == j + i, "allgatherv_c");
        MPI_Request req;
        CHECK_MPI(MPI_Ibcast_c(all, 5 * (MPI_Count)size, MPI_INT, size - 1, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        /* alltoallw_c with byte displacements: one int to every rank */
        int *sbw = malloc(sizeof(int) * (size_t)size), *rbw = malloc(sizeof(int) * (size_t)size);
        for (int j = 0; j < size; j++) {
            sbw[j] = rank * 100 + j;
            cnt[j] = 1;
            dsp[j] = (MPI_Aint)(sizeof(int) * (size_t)j);
            types[j] = MPI_INT;
        }
        CHECK_MPI(MPI_Alltoallw_c(sbw, cnt, dsp, types, rbw, cnt, dsp, types, MPI_COMM_WORLD));
        for (int j = 0; j < size; j++)
            CHECK(rbw[j] == j * 100 + rank, "alltoallw_c");
        free(sbw);
        free(rbw);
        free(all);
        free(cnt);
        free(dsp);
        free(types);
    }

    /* argument errors are raised on the communicator, with the right class */
    {
        MPI_Comm ec;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ec));
        CHECK_MPI(MPI_Comm_set_errhandler(ec, MPI_ERRORS_RETURN));
        int v = 0, w = 0;
        CHECK_ERR(MPI_Bcast(&v, 1, MPI_INT, size, ec), MPI_ERR_ROOT);
        CHECK_ERR(MPI_Reduce(&v, &w, 1, MPI_INT, MPI_SUM, -1, ec), MPI_ERR_ROOT);
        CHECK_ERR(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_OP_NULL, ec), MPI_ERR_OP);
        CHECK_ERR(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_REPLACE, ec), MPI_ERR_OP);   /* one-sided only */
        CHECK_ERR(MPI_Reduce(&v, &w, 1, MPI_INT, MPI_NO_OP, 0, ec), MPI_ERR_OP);
        CHECK_ERR(MPI_Allreduce(&v, &w, -1, MPI_INT, MPI_SUM, ec), MPI_ERR_COUNT);
        CHECK_ERR(MPI_Allreduce(&v, &w, 1, MPI_DATATYPE_NULL, MPI_SUM, ec), MPI_ERR_TYPE);
        /* an invalid communicator is reported on MPI_COMM_SELF's handler */
        CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        CHECK_ERR(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
        CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
        CHECK_MPI(MPI_Barrier(ec));   /* still in step after the errors */
        CHECK_MPI(MPI_Comm_free(&ec));
    }

    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Comm_free(&half));
    CHECK_MPI(MPI_Comm_free(&rev));
    if (rank == 0)
        printf("coll_nonblocking: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
