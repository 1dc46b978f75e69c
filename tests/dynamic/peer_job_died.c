/*
 * A process of a connected job dies (tests/dynamic/peer_job_died.sh runs two jobs).
 *   server PORTFILE MODE: opens a port, writes its name to PORTFILE, accepts; then every server
 *                         rank waits for a message from client rank 0 (MODE "connected"), or, after
 *                         MPI_Comm_disconnect, computes for 1 s while calling MPI_Iprobe on
 *                         MPI_COMM_WORLD, then prints "server PASS" (MODE "disconnected")
 *   client PORTFILE MODE: connects; one round of messages proves the connection; then rank 0 exits
 *                         without MPI_Finalize (MODE "connected"), or every client rank does so
 *                         right after MPI_Comm_disconnect (MODE "disconnected"), while server ranks
 *                         may still be inside theirs: that is their right (MPI 4.1, 11.10.4)
 * While connected, the server job must end with a message naming the dead process instead of
 * waiting forever; once disconnected, the two jobs are independent and the server finishes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "empi_test.h"

static void read_port(const char *file, char *port)
{
    for (int i = 0; i < 600; i++) {
        FILE *f = fopen(file, "r");
        if (f) {
            int ok = fgets(port, MPI_MAX_PORT_NAME, f) != NULL && strchr(port, '\n');
            fclose(f);
            if (ok) {
                *strchr(port, '\n') = '\0';
                return;
            }
        }
        usleep(50000);
    }
    CHECK(0, "no port name appeared in %s", file);
}

/* Each server rank sends its rank to client rank 0, which answers each: the link is up. */
static void round_trip(MPI_Comm inter, int server)
{
    int me = empi_rank(), v = -1, remote;
    CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
    if (server) {
        CHECK_MPI(MPI_Send(&me, 1, MPI_INT, 0, 1, inter));
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 2, inter, MPI_STATUS_IGNORE));
        CHECK(v == 1000 + me, "server %d got %d", me, v);
    } else if (me == 0) {
        for (int r = 0; r < remote; r++) {
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, r, 1, inter, MPI_STATUS_IGNORE));
            CHECK(v == r, "client got %d from %d", v, r);
            v += 1000;
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, r, 2, inter));
        }
    }
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK(argc >= 4, "usage: peer_job_died server|client PORTFILE connected|disconnected [marker]");
    int server = strcmp(argv[1], "server") == 0, connected = strcmp(argv[3], "connected") == 0;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    if (server) {
        if (empi_rank() == 0) {
            CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
            char tmp[4096];
            snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
            FILE *f = fopen(tmp, "w");
            CHECK(f && fprintf(f, "%s\n", port) > 0 && fclose(f) == 0 && rename(tmp, argv[2]) == 0, "port file");
        }
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    } else {
        if (empi_rank() == 0)
            read_port(argv[2], port);
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    }
    round_trip(inter, server);
    if (!connected)
        CHECK_MPI(MPI_Comm_disconnect(&inter));
    if (!server) {
        if (empi_rank() == 0 || !connected) {
            printf("client rank 0 exits without MPI_Finalize\n");
            fflush(stdout);
            _exit(7);
        }
        MPI_Finalize();
        return 0;
    }
    if (connected) {
        int v;
        MPI_Recv(&v, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE); /* never sent */
        printf("FAIL: the receive from the dead process returned\n");
        return 1;
    }
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 1.0) {
        int flag;
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        usleep(1000);
    }
    if (empi_rank() == 0) {
        CHECK_MPI(MPI_Close_port(port));
        printf("server PASS\n");
    }
    MPI_Finalize();
    return 0;
}
