/*
 * Once a spawned job and its parent have disconnected, the two are independent (MPI 4.1,
 * 11.10.4): the children call MPI_Abort on their own world right after MPI_Comm_disconnect, while
 * parent processes may still be inside theirs, and the parent job must carry on. Three rounds of
 * spawn (2 children), an exchange with every child, disconnect. The parent job ended with "ended
 * without MPI_Finalize" in 9 of 12 runs of a reviewer's program before the disconnect stopped
 * counting such a departure as a failure.
 */
#include <unistd.h>

#include "empi_test.h"

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm parent;
    CHECK_MPI(MPI_Comm_get_parent(&parent));
    int rank = empi_rank();
    MPI_Comm inter = parent;
    for (int round = 0; round < (parent == MPI_COMM_NULL ? 3 : 1); round++) {
        if (parent == MPI_COMM_NULL)
            CHECK_MPI(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                                     MPI_ERRCODES_IGNORE));
        int remote;
        CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
        for (int r = 0; r < remote; r++) {
            int mine = 1000 * rank + r, theirs = -1;
            CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, r, 0, &theirs, 1, MPI_INT, r, 0, inter, MPI_STATUS_IGNORE));
            CHECK(theirs == 1000 * r + rank, "round %d: rank %d got %d from remote %d", round, rank, theirs, r);
        }
        CHECK_MPI(MPI_Comm_disconnect(&inter));
        if (parent != MPI_COMM_NULL)
            MPI_Abort(MPI_COMM_WORLD, 3);
    }
    usleep(300000); /* the last children's abort arrives meanwhile */
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
