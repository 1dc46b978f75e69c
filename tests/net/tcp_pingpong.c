/*
 * The baseline for the tcp transport: a raw ping-pong over one TCP connection with TCP_NODELAY,
 * both sides busy-polling nonblocking recv (no epoll, no MPI). Its one-way latency is the floor
 * EtherMPI's tcp latency is compared with (docs/NETWORK.md).
 *   server: tcp_pingpong -s PORT [size] [iters]
 *   client: tcp_pingpong -c IP PORT [size] [iters]     prints size and one-way latency in us
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void xfer(int fd, char *buf, size_t size, int sending)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = sending ? send(fd, buf + done, size - done, MSG_DONTWAIT)
                            : recv(fd, buf + done, size - done, MSG_DONTWAIT);
        if (n > 0)
            done += (size_t)n;
        else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            perror("tcp_pingpong");
            exit(1);
        }
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int server = argc >= 3 && !strcmp(argv[1], "-s");
    int client = argc >= 4 && !strcmp(argv[1], "-c");
    if (!server && !client) {
        fprintf(stderr, "usage: %s -s PORT [size] [iters] | -c IP PORT [size] [iters]\n", argv[0]);
        return 2;
    }
    int a = server ? 3 : 4;
    size_t size = argc > a ? (size_t)atol(argv[a]) : 8;
    long iters = argc > a + 1 ? atol(argv[a + 1]) : 100000;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_port = htons((uint16_t)atoi(argv[server ? 2 : 3]));
    int one = 1, fd;
    if (server) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(l, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(l, 1) != 0) {
            perror("tcp_pingpong: listen");
            return 1;
        }
        fd = accept(l, NULL, NULL);
        close(l);
    } else {
        inet_pton(AF_INET, argv[2], &sa.sin_addr);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        for (int tries = 0; connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0; tries++) {
            if (tries > 100) {
                perror("tcp_pingpong: connect");
                return 1;
            }
            usleep(20000);
        }
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char *buf = calloc(1, size ? size : 1);
    long warm = iters / 10;
    double t0 = 0;
    for (long i = 0; i < iters + warm; i++) {
        if (i == warm)
            t0 = now();
        if (client) {
            xfer(fd, buf, size, 1);
            xfer(fd, buf, size, 0);
        } else {
            xfer(fd, buf, size, 0);
            xfer(fd, buf, size, 1);
        }
    }
    if (client)
        printf("%zu %.2f\n", size, (now() - t0) * 1e6 / (2.0 * (double)iters));
    close(fd);
    return 0;
}
