/*
 * A program that only uses the standard ABI. Built once against our mpi.h and once against
 * MPICH's standard-ABI header (mpicc_abi), it must run on either library: the proof that the
 * ABI, not the source, is what the two share.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, what)                                                              \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "abi_prog: rank %d: check failed: %s (line %d)\n", rank, what, \
                    __LINE__);                                                         \
            MPI_Abort(MPI_COMM_WORLD, 2);                                              \
        }                                                                              \
    } while (0)

int main(int argc, char **argv)
{
    int rank = -1, size = 0, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int major = 0, minor = -1;
    MPI_Abi_get_version(&major, &minor);
    CHECK(major == 1 && minor == 0, "MPI_Abi_get_version is 1.0");

    /* a ring of point-to-point messages with statuses */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[4] = {rank, rank * 10, -rank, 42}, in[4] = {0};
    MPI_Status st;
    MPI_Sendrecv(out, 4, MPI_INT, next, 7, in, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 7 && count == 4, "status of the ring message");
    CHECK(in[0] == prev && in[1] == prev * 10 && in[3] == 42, "ring payload");

    /* nonblocking with a derived datatype */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    double dout[2] = {rank + 0.5, rank + 0.25}, din[2] = {0};
    MPI_Request reqs[2];
    MPI_Irecv(din, 1, pair, prev, 9, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(dout, 1, pair, next, 9, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    CHECK(din[0] == prev + 0.5 && din[1] == prev + 0.25 && reqs[0] == MPI_REQUEST_NULL, "typed nonblocking pair");
    MPI_Type_free(&pair);

    /* collectives on a split communicator */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    int hrank, hsize, sum = 0;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    int expect = 0;
    for (int r = rank % 2; r < size; r += 2)
        expect += r;
    CHECK(sum == expect, "allreduce over the split communicator");
    CHECK(hrank == hsize - 1 - rank / 2, "split ordered by key");
    MPI_Comm_free(&half);
    CHECK(half == MPI_COMM_NULL, "Comm_free sets MPI_COMM_NULL");

    /* errors come back as the standard's classes */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Send(out, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_RANK, "invalid rank gives MPI_ERR_RANK");

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    if (rank == 0)
        printf("abi_prog: running on: %.60s\nabi_prog: PASS\n", lib);
    MPI_Finalize();
    return 0;
}
