/*
 * Microbenchmark (not a test): ping-pong through the shm transport's own API (am_send with a 16-byte
 * header + payload in two iov pieces, progress, deliver) between two forked processes pinned to
 * different CPUs, with a fake bootstrap. Usage: shm_pingpong [payload=8] [iterations=1000000]
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/tunables.h"
#include "fake_bootstrap.h"
#include "ring_shared.h"
#include "transport/transport.h"
#include "unit_check.h"

static long arrived;
static unsigned char landing[4096];

static void on_packet(int src, const void *pkt, size_t len)
{
    (void)src;
    memcpy(landing, pkt, len);
    arrived++;
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void send_to(int peer, const void *hdr, const void *payload, size_t len)
{
    struct iovec iov[2] = {{(void *)hdr, 16}, {(void *)payload, len}};
    while (empi_transport_shm.am_send(peer, iov, 2) == EMPI_AGAIN)
        empi_transport_shm.progress();
}

int main(int argc, char **argv)
{
    size_t payload = argc > 1 ? strtoul(argv[1], NULL, 0) : 8;
    long iters = argc > 2 ? strtol(argv[2], NULL, 0) : 1000000;
    UCHECK(payload <= 2048, "payload too large");
    UCHECK(empi_tunables_load() == 0 && fake_boot_setup(2) == 0, "setup");
    char jobid[32];
    snprintf(jobid, sizeof jobid, "bench%x", (unsigned)getpid());
    pid_t child = fork();
    UCHECK(child >= 0, "fork");
    int me = child == 0;
    ring_pin_cpu(me);
    empi_boot_info_t boot = {0};
    boot.rank = boot.local_rank = me;
    boot.size = boot.local_size = 2;
    snprintf(boot.jobid, sizeof boot.jobid, "%s", jobid);
    UCHECK(empi_transport_shm.init(&boot, on_packet) == EMPI_OK, "init");

    unsigned char hdr[16] = {0}, data[2048] = {0};
    long warmup = iters / 10;
    double start = 0;
    for (long i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            start = now_sec();
        if (me == 0)
            send_to(1, hdr, data, payload);
        while (arrived <= i)
            empi_transport_shm.progress();
        if (me == 1)
            send_to(0, hdr, data, payload);
    }
    double elapsed = now_sec() - start;
    empi_boot_fence();
    empi_transport_shm.finalize();
    if (me == 1)
        _exit(0);
    waitpid(child, NULL, 0);
    printf("shm transport: %zu-byte payload (+16 header): %.3f us one-way\n", payload,
           elapsed / (2.0 * (double)iters) * 1e6);
    return 0;
}
