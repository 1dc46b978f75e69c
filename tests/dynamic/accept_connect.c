/*
 * MPI_Open_port / MPI_Comm_accept / MPI_Comm_connect and the name service.
 *
 * Without arguments (one job, 2 or more ranks): MPI_COMM_WORLD is split into a server half (the
 * lower world ranks) and a client half.
 *   round 1: the server root opens a port and sends its name to the client root over
 *            MPI_COMM_WORLD; the halves accept/connect twice in a row on the same port (roots:
 *            local rank 0), then the port is closed
 *   round 2: the server root (its half's last rank) opens a port and publishes it under a service
 *            name unique to the run; the client root (its half's last rank) finds it with
 *            MPI_Lookup_name; after the connection the server unpublishes it, and a lookup then
 *            fails with MPI_ERR_NAME
 * Every connection is checked: the intercommunicator's shape, the remote group being exactly the
 * other half's processes, messages between every pair of ranks (8 B, 64 KiB, 1 MiB, verified),
 * MPI_Intercomm_merge with an allreduce and a bcast, collectives on the intercommunicator, and
 * MPI_Comm_disconnect.
 *
 * "server SERVICE CLIENTS" / "client SERVICE SERVERS" (tests/dynamic/two_jobs.sh): two separate
 * mpiexec jobs. The server job's rank 0 opens a port, publishes it as SERVICE and prints
 * "published"; the client job looks SERVICE up and connects; the same checks run across the jobs.
 * Rank 0 of each prints "jobid <id>" (from the launcher's environment, when set) so the script can
 * look for leftovers, and "server PASS" / "client PASS" at the end. Extra arguments are ignored.
 */
#include "dynamic_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const size_t sizes[] = {8, 65536, 1u << 20};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/*
 * Checks of one established connection. side 0 = accepting group, 1 = connecting group. The
 * remote group must be world ranks rbase .. rbase+rsize-1 of a connection inside the job; with
 * rbase < 0 (another job) none of its processes may be in this job's MPI_COMM_WORLD.
 */
static void check_connection(MPI_Comm inter, int side, int lsize_want, int rsize_want, int rbase, const char *what)
{
    dyn_errors_return(inter);
    int lsize, lrank, rsize;
    dyn_inter_shape(inter, &lsize, &lrank, &rsize);
    CHECK(lsize == lsize_want && rsize == rsize_want, "%s: local/remote size %d/%d, expected %d/%d", what, lsize, rsize,
          lsize_want, rsize_want);
    dyn_check_remote_world_ranks(inter, rbase, what);
    dyn_exchange(inter, side, sizes, NSIZES, 400, what);
    dyn_check_merge(inter, side, side, what); /* the connecting group high */
    dyn_check_inter_coll(inter, side, what);
}

static void check_port_name(const char *port, const char *what)
{
    size_t len = strnlen(port, MPI_MAX_PORT_NAME);
    CHECK(len > 0 && len < MPI_MAX_PORT_NAME, "%s: port name of length %zu", what, len);
}

static void one_job(void)
{
    int rank = empi_rank(), size = empi_size(), half = size / 2;
    if (size < 2) {
        empi_note("accept_connect needs at least 2 ranks; nothing to do");
        return;
    }
    int side = rank >= half; /* 0: server half [0, half), 1: client half [half, size) */
    int lsize = side ? size - half : half, rsize = side ? half : size - half, rbase = side ? 0 : half;
    MPI_Comm local, inter = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local));
    int lrank;
    CHECK_MPI(MPI_Comm_rank(local, &lrank));

    /* Round 1: the port name travels over MPI_COMM_WORLD; two connections through one port. */
    char port[MPI_MAX_PORT_NAME] = "";
    if (rank == 0) {
        CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        check_port_name(port, "MPI_Open_port");
        CHECK_MPI(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, half, 7, MPI_COMM_WORLD));
    } else if (rank == half) {
        CHECK_MPI(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    for (int again = 0; again < 2; again++) {
        char what[64];
        snprintf(what, sizeof what, "%s, round 1 connection %d", side ? "client" : "server", again);
        if (side == 0)
            CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, local, &inter));
        else
            CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, local, &inter));
        check_connection(inter, side, lsize, rsize, rbase, what);
        dyn_disconnect(&inter, what);
    }
    if (rank == 0)
        CHECK_MPI(MPI_Close_port(port));

    /* Round 2: the name service instead of MPI_COMM_WORLD; roots are the halves' last ranks. */
    long pid = (long)getpid();
    CHECK_MPI(MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    char service[128];
    snprintf(service, sizeof service, "empi-test-accept-connect-%ld-np%d", pid, size);
    int root = lsize - 1, is_root = lrank == root;
    char what[64];
    snprintf(what, sizeof what, "%s, round 2 (name service)", side ? "client" : "server");
    memset(port, 0, sizeof port);
    if (side == 0 && is_root) {
        CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        check_port_name(port, "MPI_Open_port");
        CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* published before anyone looks */
    if (side == 1 && is_root) {
        CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, port));
        check_port_name(port, "MPI_Lookup_name");
    }
    if (side == 0)
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, root, local, &inter));
    else
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, root, local, &inter));
    /* The looked-up name must be exactly the published one. */
    char theirs[MPI_MAX_PORT_NAME];
    if (side == 0 && is_root)
        CHECK_MPI(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, rsize - 1, 9, inter));
    if (side == 1 && is_root) {
        CHECK_MPI(MPI_Recv(theirs, MPI_MAX_PORT_NAME, MPI_CHAR, rsize - 1, 9, inter, MPI_STATUS_IGNORE));
        CHECK(strcmp(theirs, port) == 0, "MPI_Lookup_name gave \"%s\", the server published \"%s\"", port, theirs);
    }
    check_connection(inter, side, lsize, rsize, rbase, what);
    dyn_disconnect(&inter, what);
    if (side == 0 && is_root) {
        CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
        CHECK_ERR(MPI_Lookup_name(service, MPI_INFO_NULL, theirs), MPI_ERR_NAME);
        CHECK_MPI(MPI_Close_port(port));
    }
    CHECK_MPI(MPI_Comm_free(&local));
    TEST_PASS();
}

/* Rank 0 of a job started by two_jobs.sh. */
static void print_jobid(void)
{
    const char *id = getenv("EMPI_JOBID");
    if (id)
        printf("jobid %s\n", id);
    fflush(stdout);
}

static void two_jobs(int server, const char *service, int remote_np)
{
    int rank = empi_rank(), size = empi_size();
    const char *me = server ? "server" : "client";
    char port[MPI_MAX_PORT_NAME] = "", theirs[MPI_MAX_PORT_NAME];
    CHECK(remote_np > 0, "%s: bad remote job size %d", me, remote_np);
    if (rank == 0)
        print_jobid();
    MPI_Comm inter = MPI_COMM_NULL;
    if (server) {
        if (rank == 0) {
            CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
            check_port_name(port, "MPI_Open_port");
            CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
            printf("published %s\n", service);
            fflush(stdout);
        }
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
        if (rank == 0)
            CHECK_MPI(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 9, inter));
    } else {
        if (rank == 0) {
            CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, port));
            check_port_name(port, "MPI_Lookup_name");
        }
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
        if (rank == 0) {
            CHECK_MPI(MPI_Recv(theirs, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 9, inter, MPI_STATUS_IGNORE));
            CHECK(strcmp(theirs, port) == 0, "MPI_Lookup_name gave \"%s\", the server published \"%s\"", port, theirs);
        }
    }
    check_connection(inter, server ? 0 : 1, size, remote_np, -1, me);
    dyn_disconnect(&inter, me);
    if (server && rank == 0) {
        CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
        CHECK_ERR(MPI_Lookup_name(service, MPI_INFO_NULL, theirs), MPI_ERR_NAME);
        CHECK_MPI(MPI_Close_port(port));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        printf("%s PASS\n", me);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    dyn_init_errors();
    if (argc >= 4 && (strcmp(argv[1], "server") == 0 || strcmp(argv[1], "client") == 0))
        two_jobs(strcmp(argv[1], "server") == 0, argv[2], atoi(argv[3]));
    else if (argc == 1)
        one_job();
    else
        CHECK(0, "usage: %s [server|client SERVICE REMOTE_NP [ignored...]]", argv[0]);
    CHECK_MPI(MPI_Finalize());
    return 0;
}
