/*
 * The deadlock watch (core/progress.c). argv[1] picks the program:
 *   legit      long computations while the others wait in MPI, longer than EMPI_DEADLOCK_TIMEOUT:
 *              must finish normally (the watch must not mistake a computing process for a stuck one)
 *   slowop     one MPI_Allreduce with a user operation slow enough that the call takes several
 *              timeouts, in pieces that arrive without a packet (shared-memory collectives): also
 *              legitimate
 *   mismatch   MPI_Allreduce with a count on rank 0 that the others do not pass: they wait forever
 *   cycle      every rank receives from the next first: nobody ever sends
 *   finalized  rank 0 receives from rank 1, which goes straight to MPI_Finalize with the others
 * The last three must end the job with the watch's message (tests/mpi/deadlock_watch.sh checks it).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "empi_test.h"

/* A sum that takes 100 ms a call. */
static void slow_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    usleep(100000);
    for (int i = 0; i < *len; i++)
        ((long *)inout)[i] += ((long *)in)[i];
}

static void slow_allreduce(void)
{
    enum { N = 1 << 21 };
    long *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    int size = empi_size(), rank = empi_rank();
    for (int i = 0; i < N; i++)
        in[i] = rank + i;
    MPI_Op op;
    CHECK_MPI(MPI_Op_create(slow_sum, 1, &op));
    CHECK_MPI(MPI_Allreduce(in, out, N, MPI_LONG, op, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        if (out[i] != (long)size * (size - 1) / 2 + (long)size * i) {
            CHECK(0, "element %d is %ld", i, out[i]);
            break;
        }
    MPI_Op_free(&op);
    free(in), free(out);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int rank = empi_rank(), size = empi_size(), x[1000] = {0}, y[1000];
    const char *mode = argc > 1 ? argv[1] : "legit";
    if (!strcmp(mode, "legit")) {
        if (rank == 0)
            sleep(3);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == size - 1) {
            sleep(3);
            x[0] = 42;
            CHECK_MPI(MPI_Send(x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        }
        if (rank == 0) {
            CHECK_MPI(MPI_Recv(y, 1, MPI_INT, size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(y[0] == 42, "received %d, expected 42", y[0]);
        }
        TEST_PASS();
    } else if (!strcmp(mode, "slowop")) {
        slow_allreduce();
        TEST_PASS();
    } else if (!strcmp(mode, "mismatch")) {
        MPI_Allreduce(x, y, rank == 0 ? 10 : 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(mode, "cycle")) {
        MPI_Recv(y, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "finalized") && rank == 0) {
        MPI_Recv(y, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    CHECK_MPI(MPI_Finalize());
    return 0;
}
