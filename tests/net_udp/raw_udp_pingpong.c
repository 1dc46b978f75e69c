/*
 * Baseline for docs/NETWORK-UDP.md, not a test: a raw busy-polling UDP ping-pong with no MPI and
 * no reliability, the floor the udp transport's latency is compared with.
 *   raw_udp_pingpong server PORT [SIZE] [ITERS]        (bound to 0.0.0.0:PORT)
 *   raw_udp_pingpong client HOST PORT [SIZE] [ITERS]   prints the one-way latency in us
 * Both sides poll with nonblocking recv, as the transport does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static ssize_t spin_recv(int fd, char *buf, size_t len, struct sockaddr_in *from)
{
    socklen_t fl = sizeof *from;
    for (;;) {
        ssize_t n = recvfrom(fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)from, &fl);
        if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            return n;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s server PORT [SIZE] [ITERS] | client HOST PORT [SIZE] [ITERS]\n", argv[0]);
        return 2;
    }
    int server = strcmp(argv[1], "server") == 0;
    int a = server ? 3 : 4;
    size_t size = argc > a ? (size_t)atol(argv[a]) : 8;
    long iters = argc > a + 1 ? atol(argv[a + 1]) : 100000;
    char *buf = calloc(1, size + 1 > 65536 ? size + 1 : 65536);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in me = {.sin_family = AF_INET}, peer = {.sin_family = AF_INET};
    if (server) {
        me.sin_port = htons((uint16_t)atoi(argv[2]));
        if (bind(fd, (struct sockaddr *)&me, sizeof me) != 0)
            return perror("bind"), 1;
        for (long i = 0; i < iters + 1000; i++) {
            ssize_t n = spin_recv(fd, buf, 65536, &peer);
            if (n < 0 || sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&peer, sizeof peer) != n)
                return perror("server"), 1;
        }
        return 0;
    }
    peer.sin_port = htons((uint16_t)atoi(argv[3]));
    if (inet_pton(AF_INET, argv[2], &peer.sin_addr) != 1)
        return fprintf(stderr, "bad address %s\n", argv[2]), 1;
    double t0 = 0;
    for (long i = 0; i < iters + 1000; i++) {
        if (i == 1000)
            t0 = now_us();
        struct sockaddr_in from;
        if (sendto(fd, buf, size, 0, (struct sockaddr *)&peer, sizeof peer) != (ssize_t)size ||
            spin_recv(fd, buf, 65536, &from) < 0)
            return perror("client"), 1;
    }
    printf("%zu bytes: %.2f us one-way\n", size, (now_us() - t0) / iters / 2);
    return 0;
}
