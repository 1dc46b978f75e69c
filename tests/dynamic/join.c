/*
 * MPI_Comm_join over a TCP socket on 127.0.0.1. World ranks pair up (2k, 2k+1; an odd last rank
 * sits out): the even rank listens on port 0 and sends the port number to the odd rank with
 * MPI_Send, the odd rank connects, and both call MPI_Comm_join on their end. Checked: the result
 * is an intercommunicator of local and remote size 1 whose remote process is the partner, messages
 * of 8 B, 64 KiB and 4 MiB both ways, a merge, MPI_Comm_disconnect. The socket is quiescent again
 * when MPI_Comm_join returns, so it is joined a second time, and afterwards carries a few bytes of
 * the program's own each way that must arrive exactly (no handshake bytes left in the stream).
 */
#include "dynamic_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SOCKET_WAIT_MS 20000

static const size_t sizes[] = {8, 65536, 4u << 20};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void wait_fd(int fd, short events, const char *what)
{
    struct pollfd p = {fd, events, 0};
    int n;
    do {
        n = poll(&p, 1, SOCKET_WAIT_MS);
    } while (n < 0 && errno == EINTR);
    CHECK(n == 1, "%s: socket not ready after %d ms (poll %d, errno %d)", what, SOCKET_WAIT_MS, n, errno);
}

/* The even rank of a pair: listen, tell the partner the port, accept. Returns the connected fd. */
static int listen_and_accept(int partner)
{
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(lfd >= 0, "socket: %s", strerror(errno));
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    CHECK(bind(lfd, (struct sockaddr *)&a, sizeof a) == 0, "bind: %s", strerror(errno));
    CHECK(listen(lfd, 1) == 0, "listen: %s", strerror(errno));
    socklen_t len = sizeof a;
    CHECK(getsockname(lfd, (struct sockaddr *)&a, &len) == 0, "getsockname: %s", strerror(errno));
    int port = ntohs(a.sin_port);
    CHECK_MPI(MPI_Send(&port, 1, MPI_INT, partner, 1, MPI_COMM_WORLD));
    wait_fd(lfd, POLLIN, "accept");
    int fd = accept(lfd, NULL, NULL);
    CHECK(fd >= 0, "accept: %s", strerror(errno));
    close(lfd);
    return fd;
}

/* The odd rank of a pair: receive the port, connect. */
static int connect_to_partner(int partner)
{
    int port = -1;
    CHECK_MPI(MPI_Recv(&port, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(port > 0 && port < 65536, "port %d from rank %d", port, partner);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0, "socket: %s", strerror(errno));
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect to 127.0.0.1:%d: %s", port, strerror(errno));
    return fd;
}

static void join_once(int fd, int side, int partner, const char *what)
{
    MPI_Comm inter = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_join(fd, &inter));
    dyn_errors_return(inter);
    int lsize, lrank, rsize;
    dyn_inter_shape(inter, &lsize, &lrank, &rsize);
    CHECK(lsize == 1 && lrank == 0 && rsize == 1, "%s: local size %d rank %d, remote size %d; expected 1, 0, 1", what,
          lsize, lrank, rsize);
    /* The remote process is the partner: its world rank, sent over the new communicator. */
    int mine = empi_rank(), theirs = -1;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 5, &theirs, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE));
    CHECK(theirs == partner, "%s: joined to world rank %d, expected %d", what, theirs, partner);
    dyn_check_remote_world_ranks(inter, partner, what);
    dyn_exchange(inter, side, sizes, NSIZES, 500, what);
    dyn_check_merge(inter, side, side, what);
    dyn_disconnect(&inter, what);
}

static void write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        CHECK(n > 0, "write to the joined socket: %s", strerror(errno));
        p += n;
        len -= (size_t)n;
    }
}

static void read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        wait_fd(fd, POLLIN, "read from the joined socket");
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        CHECK(n > 0, "read from the joined socket: %s", n == 0 ? "end of stream" : strerror(errno));
        p += n;
        len -= (size_t)n;
    }
}

/* After the joins the socket belongs to the program again: 8 bytes each way, exactly. */
static void socket_still_ours(int fd, int side)
{
    static const char marks[2][9] = {"even->od", "odd->evn"};
    char got[8];
    if (side == 0) {
        write_all(fd, marks[0], 8);
        read_all(fd, got, 8);
    } else {
        read_all(fd, got, 8);
        write_all(fd, marks[1], 8);
    }
    CHECK(memcmp(got, marks[1 - side], 8) == 0, "socket after MPI_Comm_join: read \"%.8s\", expected \"%.8s\"", got,
          marks[1 - side]);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    dyn_init_errors();
    int rank = empi_rank(), size = empi_size();
    int side = rank % 2, partner = side ? rank - 1 : rank + 1;
    if (partner >= size) {
        empi_note("join: world rank %d has no partner and sits out", rank);
    } else {
        int fd = side ? connect_to_partner(partner) : listen_and_accept(partner);
        join_once(fd, side, partner, side ? "odd rank, first join" : "even rank, first join");
        join_once(fd, side, partner, side ? "odd rank, second join" : "even rank, second join");
        socket_still_ours(fd, side);
        CHECK(close(fd) == 0, "close: %s", strerror(errno));
    }
    TEST_PASS();
    CHECK_MPI(MPI_Finalize());
    return 0;
}
