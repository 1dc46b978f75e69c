/*
 * A connection to an open port that never says anything (a port scanner, a stray telnet) does
 * not hold up MPI_Comm_accept: rank 0 opens a port, connects a raw socket to it that stays
 * silent, and rank 1 then connects through MPI. The accept waited for the stray one's knock for
 * its whole 20 s timeout before looking at the next connection; now the two wait side by side.
 * The bound here is 10 s, far above the fraction of a second it takes.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "empi_test.h"

/* The TCP port of "empi:<nonce>.<stack>@<ip>[,<ip>...]:<port>". */
static int tcp_port_of(const char *name)
{
    const char *colon = strrchr(name, ':');
    return colon ? atoi(colon + 1) : -1;
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int me = empi_rank(), n = empi_size();
    CHECK(n == 2, "run with 2 processes");
    char port[MPI_MAX_PORT_NAME] = "";
    int stray = -1;
    if (me == 0) {
        CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)tcp_port_of(port))};
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        stray = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(stray >= 0 && connect(stray, (struct sockaddr *)&sa, sizeof sa) == 0, "the silent connection");
    }
    CHECK_MPI(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    MPI_Comm inter;
    if (me == 0)
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
    else
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
    double took = MPI_Wtime() - t0;
    CHECK(took < 10.0, "accept/connect took %.1f s behind a silent connection", took);
    int v = me == 0 ? 42 : 0;
    if (me == 0)
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 1, inter));
    else
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE));
    CHECK(v == 42, "received %d", v);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    if (me == 0) {
        close(stray);
        CHECK_MPI(MPI_Close_port(port));
    }
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
