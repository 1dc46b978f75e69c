/*
 * A communicator freed while operations on it are pending: they complete normally (MPI 4.1 7.4.3),
 * even when the freed communicator's memory would be reused by the next one created. Rank 0 queues
 * many sends on a split communicator (where its rank differs from its world rank), frees it and
 * creates another; rank 1 receives them with the right source, tag and data. Then a receive freed
 * before its message arrives completes truncated, raised on the freed communicator's handler
 * (MPI_ERRORS_RETURN), while the communicator made after it keeps MPI_ERRORS_ARE_FATAL.
 */
#include <mpi.h>
#include <stdlib.h>

#include "empi_test.h"

#define NMSG 64

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int me = empi_rank(), n = empi_size();
    if (n < 2) {
        TEST_PASS();
        MPI_Finalize();
        return 0;
    }
    /* ranks 0 and 1 in reverse order: world rank 0 is rank 1 of `pair` */
    MPI_Comm pair;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me < 2 ? 0 : MPI_UNDEFINED, -me, &pair));
    if (me == 0) {
        int data[NMSG];
        MPI_Request reqs[NMSG];
        for (int i = 0; i < NMSG; i++) {
            data[i] = 1000 + i;
            CHECK_MPI(MPI_Isend(&data[i], 1, MPI_INT, 0, i, pair, &reqs[i]));
        }
        CHECK_MPI(MPI_Comm_free(&pair));
        MPI_Comm other;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &other));
        CHECK_MPI(MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
        CHECK_MPI(MPI_Comm_free(&other));
    } else if (me == 1) {
        for (int i = 0; i < NMSG; i++) {
            int v = -1;
            MPI_Status st;
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, pair, &st));
            CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == i && v == 1000 + i, "message %d: source %d tag %d value %d", i,
                  st.MPI_SOURCE, st.MPI_TAG, v);
        }
        CHECK_MPI(MPI_Comm_free(&pair));
    }

    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    if (me == 1) {
        int small = 0;
        MPI_Request r;
        CHECK_MPI(MPI_Irecv(&small, 1, MPI_INT, 0, 5, dup, &r));
        CHECK_MPI(MPI_Comm_free(&dup));
        MPI_Comm other;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &other));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_ERR(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
        CHECK_MPI(MPI_Comm_free(&other));
    } else {
        if (me == 0) {
            int big[4] = {1, 2, 3, 4};
            CHECK_MPI(MPI_Send(big, 4, MPI_INT, 1, 5, dup));
        }
        CHECK_MPI(MPI_Comm_free(&dup));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
