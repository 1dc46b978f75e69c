/*
 * Alltoallv with blocks of very different sizes in one call: empty, 8 bytes, a few elements, some KiB (the
 * shared-memory algorithm passes these through its slot) and hundreds of KiB (read from the
 * sender's buffer), so every pair of ranks takes its own path. Contiguous and vector types on
 * either side, blocking, nonblocking and persistent (started twice on new data), and a receive
 * that is one element short, which must give MPI_ERR_TRUNCATE at that rank only.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, failures;

#define CHECK(cond, ...)                                                                                        \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "rank %d: ", rank);                                                                \
            fprintf(stderr, __VA_ARGS__);                                                                      \
            fputc('\n', stderr);                                                                               \
            if (++failures > 10)                                                                               \
                MPI_Abort(MPI_COMM_WORLD, 1);                                                                  \
        }                                                                                                      \
    } while (0)

/* Elements (ints) rank i sends to rank j. */
static int elems(int i, int j)
{
    static const int choice[] = {0, 2, 4, 1500, 9000, 70000};   /* even: whole vector elements */
    return choice[(i * 8 + j * 5) % 6];
}

static int value(int from, int to, int k, int round)
{
    return from * 1000003 + to * 10007 + k * 3 + round;
}

enum { BLOCKING, NONBLOCKING, PERSISTENT };

/* Vector type of 2 ints with stride 3: `count` of them carry 2 * count ints. */
static MPI_Datatype pair_vector(void)
{
    MPI_Datatype v, r;
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 6 * (MPI_Aint)sizeof(int), &r);
    MPI_Type_commit(&r);
    MPI_Type_free(&v);
    return r;
}

/* Buffer of `n` ints laid out as type `vec` (2 per element, 6-int extent) or plainly. */
static size_t span_ints(int n, int vec)
{
    return vec ? (size_t)n * 3 + 6 : (size_t)n + 1;
}

static int *slot_of(int *buf, int index, int vec)
{
    return vec ? buf + (index / 2) * 6 + (index % 2) * 3 : buf + index;
}

static void run(int form, int svec, int rvec, int short_by_one)
{
    MPI_Datatype vt = pair_vector();
    MPI_Datatype st = svec ? vt : MPI_INT, rt = rvec ? vt : MPI_INT;
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
    int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    int *sfirst = malloc(sizeof(int) * size), *rfirst = malloc(sizeof(int) * size);
    int stotal = 0, rtotal = 0;
    /* blocks in reverse rank order with a gap, displacements in units of the type's extent */
    for (int j = size - 1; j >= 0; j--) {
        int out = elems(rank, j), in = elems(j, rank);
        sc[j] = svec ? out / 2 : out;
        sd[j] = svec ? stotal / 2 : stotal;
        sfirst[j] = stotal;
        stotal += out + 2;
        rc[j] = rvec ? in / 2 : in;
        rd[j] = rvec ? rtotal / 2 : rtotal;
        rfirst[j] = rtotal;
        rtotal += in + 2;
    }
    int victim = short_by_one ? size - 1 : -1, culprit = 0;
    int tail = -1;
    if (rank == victim && elems(culprit, victim) > 0) {
        rc[culprit] -= 1;   /* one element (of rt) short */
        tail = rfirst[culprit] + rc[culprit] * (rvec ? 2 : 1);
    }
    int *s = malloc(sizeof(int) * span_ints(stotal, svec));
    int *r = malloc(sizeof(int) * span_ints(rtotal, rvec));
    MPI_Request req = MPI_REQUEST_NULL;
    int rounds = form == PERSISTENT ? 2 : 1;
    if (form == PERSISTENT)
        MPI_Alltoallv_init(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int round = 0; round < rounds; round++) {
        for (int j = 0; j < size; j++)
            for (int k = 0; k < elems(rank, j); k++)
                *slot_of(s, sfirst[j] + k, svec) = value(rank, j, k, round);
        for (size_t k = 0; k < span_ints(rtotal, rvec); k++)
            r[k] = -1;
        int rc_call;
        if (form == BLOCKING)
            rc_call = MPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD);
        else if (form == NONBLOCKING)
            rc_call = MPI_Ialltoallv(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD, &req);
        else
            rc_call = MPI_Start(&req);
        if (rc_call == MPI_SUCCESS && form != BLOCKING)
            rc_call = MPI_Wait(&req, MPI_STATUS_IGNORE);
        int cls = MPI_SUCCESS;
        if (rc_call != MPI_SUCCESS)
            MPI_Error_class(rc_call, &cls);
        int expect_cls = tail >= 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
        CHECK(cls == expect_cls, "form %d svec %d rvec %d: error class %d, expected %d", form, svec, rvec, cls,
              expect_cls);
        for (int i = 0; i < size; i++) {
            int got = rc[i] * (rvec ? 2 : 1);
            for (int k = 0; k < got; k++) {
                int v = *slot_of(r, rfirst[i] + k, rvec);
                if (v != value(i, rank, k, round)) {
                    CHECK(0, "form %d svec %d rvec %d round %d: from %d element %d is %d, expected %d", form, svec,
                          rvec, round, i, k, v, value(i, rank, k, round));
                    break;
                }
            }
            /* the gap after each block (and the cut-off element) stays untouched */
            int after = rfirst[i] + got;
            CHECK(*slot_of(r, after, rvec) == -1, "form %d: the int after the block from %d was written", form, i);
        }
    }
    if (form == PERSISTENT)
        MPI_Request_free(&req);
    MPI_Type_free(&vt);
    free(s);
    free(r);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sfirst);
    free(rfirst);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int form = BLOCKING; form <= PERSISTENT; form++)
        for (int svec = 0; svec < 2; svec++)
            for (int rvec = 0; rvec < 2; rvec++)
                run(form, svec, rvec, 0);
    for (int form = BLOCKING; form <= NONBLOCKING; form++)
        run(form, 0, 0, 1);
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "FAILED (%d)\n" : "alltoallv blocks: OK\n", total);
    MPI_Finalize();
    return total != 0;
}
