/*
 * The standard makes MPI_Cancel erroneous for a collective operation's request and MPI_Request_free
 * erroneous while it runs: both must give MPI_ERR_REQUEST (raised on MPI_COMM_SELF, set to return
 * here) and leave the request intact, so that the operation still completes on every rank.
 * Covers a nonblocking barrier and allreduce, a persistent barrier (inactive and active) and
 * Comm_idup. Rank 0 joins each operation only after every other rank has tried the misuse, so the
 * others' requests are certainly still running.
 */
#include "empi_test.h"

static void others_done(void)
{
    /* rank 0 waits for every other rank's word before it joins the collective */
    int me = empi_rank(), p = empi_size(), word = 1;
    if (me == 0)
        for (int r = 1; r < p; r++)
            CHECK_MPI(MPI_Recv(&word, 1, MPI_INT, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    else
        CHECK_MPI(MPI_Send(&word, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
}

static void misuse_running(MPI_Request *rq, const char *what)
{
    MPI_Request before = *rq;
    CHECK_ERR(MPI_Cancel(rq), MPI_ERR_REQUEST);
    CHECK(*rq == before, "%s: MPI_Cancel changed the request", what);
    CHECK_ERR(MPI_Request_free(rq), MPI_ERR_REQUEST);
    CHECK(*rq == before, "%s: a failed MPI_Request_free changed the request", what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int me = empi_rank(), p = empi_size();
    MPI_Request rq;

    /* nonblocking barrier */
    if (me != 0) {
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
        misuse_running(&rq, "MPI_Ibarrier");
        others_done();
    } else {
        others_done();
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
        CHECK_ERR(MPI_Cancel(&rq), MPI_ERR_REQUEST);
    }
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rq == MPI_REQUEST_NULL, "MPI_Wait left the barrier's request");

    /* nonblocking allreduce: the result still arrives whole */
    int in = me + 1, out = -1;
    if (me != 0) {
        CHECK_MPI(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
        misuse_running(&rq, "MPI_Iallreduce");
        others_done();
    } else {
        others_done();
        CHECK_MPI(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    }
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(out == p * (p + 1) / 2, "MPI_Iallreduce gave %d, want %d", out, p * (p + 1) / 2);

    /* persistent barrier: no cancel even while inactive; freeing it then is fine */
    CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    CHECK_ERR(MPI_Cancel(&rq), MPI_ERR_REQUEST);
    if (me != 0) {
        CHECK_MPI(MPI_Start(&rq));
        misuse_running(&rq, "MPI_Barrier_init (started)");
        others_done();
    } else {
        others_done();
        CHECK_MPI(MPI_Start(&rq));
    }
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rq != MPI_REQUEST_NULL, "MPI_Wait freed a persistent request");
    CHECK_MPI(MPI_Request_free(&rq));
    CHECK(rq == MPI_REQUEST_NULL, "MPI_Request_free of an inactive persistent barrier left the handle");

    /* Comm_idup */
    MPI_Comm dup;
    if (me != 0) {
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &rq));
        misuse_running(&rq, "MPI_Comm_idup");
        others_done();
    } else {
        others_done();
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &rq));
    }
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    int size = -1;
    CHECK_MPI(MPI_Allreduce(&me, &size, 1, MPI_INT, MPI_MAX, dup));
    CHECK(size == p - 1, "the duplicate's allreduce gave %d, want %d", size, p - 1);
    CHECK_MPI(MPI_Comm_free(&dup));

    /* point-to-point requests are still cancelled and freed as before */
    int buf;
    CHECK_MPI(MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Cancel(&rq));
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&rq, &st));
    int cancelled = 0;
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "a posted receive was not cancelled");

    TEST_PASS();
    MPI_Finalize();
    return 0;
}
