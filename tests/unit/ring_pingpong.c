/*
 * Microbenchmark (not a test): two processes pinned to different CPUs.
 *   latency:    ping-pong packets of `size` bytes through two rings; prints one-way latency.
 *   throughput: one side streams packets of each size, the other copies each out; packets/s, MB/s.
 *   reference:  the same ping-pong on a bare flag word, the hardware floor, for comparison.
 * Usage: ring_pingpong [size=24] [iterations=1000000] [ring_bytes=65536]
 * 24 bytes = a 16-byte pt2pt header + an 8-byte MPI message.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ring_shared.h"
#include "unit_check.h"

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void send_spin(empi_ring_tx_t *tx, const void *buf, size_t len)
{
    struct iovec iov = {(void *)buf, len};
    while (empi_ring_send(tx, &iov, 1, len) != 0)
        ring_cpu_relax();
}

/* Copies the payload out, as the pt2pt layer's deliver does. */
static void recv_spin(empi_ring_rx_t *rx, void *copy_to)
{
    const void *pkt = NULL;
    long len;
    while ((len = empi_ring_peek(rx, &pkt)) < 0)
        ;
    memcpy(copy_to, pkt, (size_t)len);
    empi_ring_release(rx, (size_t)len);
}

/* Reference: the same ping-pong with a bare flag word per direction, the floor for any ring. */
static void raw_pingpong(long iters)
{
    unsigned char *mem = ring_shared_alloc(4096);
    UCHECK(mem, "mmap");
    _Atomic uint64_t *flag[2] = {(_Atomic uint64_t *)(void *)mem, (_Atomic uint64_t *)(void *)(mem + 2048)};
    pid_t child = fork();
    UCHECK(child >= 0, "fork");
    int me = child == 0;
    ring_pin_cpu(me);
    double start = now_sec();
    for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
        if (me == 0) {
            atomic_store_explicit(flag[0], i, memory_order_release);
            while (atomic_load_explicit(flag[1], memory_order_acquire) != i)
                ;
        } else {
            while (atomic_load_explicit(flag[0], memory_order_acquire) != i)
                ;
            atomic_store_explicit(flag[1], i, memory_order_release);
        }
    }
    double elapsed = now_sec() - start;
    if (me == 1)
        _exit(0);
    waitpid(child, NULL, 0);
    printf("reference  bare flag  : %.3f us one-way (cache-line round trip / 2)\n",
           elapsed / (2.0 * (double)iters) * 1e6);
    munmap(mem, 4096);
}

static void pingpong(size_t size, long iters, size_t ring_bytes)
{
    size_t ring_shared = empi_ring_shared_bytes(ring_bytes);
    unsigned char *mem = ring_shared_alloc(2 * ring_shared);
    UCHECK(mem, "mmap");
    unsigned char buf[4096] = {0};
    long warmup = iters / 10;
    pid_t child = fork();
    UCHECK(child >= 0, "fork");
    int me = child == 0;
    ring_pin_cpu(me);
    empi_ring_tx_t tx;
    empi_ring_rx_t rx;
    UCHECK(empi_ring_tx_init(&tx, mem + (size_t)me * ring_shared, ring_bytes) == 0, "tx");
    empi_ring_rx_init(&rx, mem + (size_t)!me * ring_shared, ring_bytes);
    double start = 0;
    for (long i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            start = now_sec();
        if (me == 0) {
            send_spin(&tx, buf, size);
            recv_spin(&rx, buf);
        } else {
            recv_spin(&rx, buf);
            send_spin(&tx, buf, size);
        }
    }
    double elapsed = now_sec() - start;
    empi_ring_tx_fini(&tx);
    if (me == 1)
        _exit(0);
    waitpid(child, NULL, 0);
    printf("latency    size %5zu B: %.3f us one-way (%ld round trips)\n", size,
           elapsed / (2.0 * (double)iters) * 1e6, iters);
    munmap(mem, 2 * ring_shared);
}

static void stream(size_t size, long count, size_t ring_bytes)
{
    size_t ring_shared = empi_ring_shared_bytes(ring_bytes);
    unsigned char *mem = ring_shared_alloc(ring_shared);
    UCHECK(mem, "mmap");
    unsigned char *buf = calloc(1, size + 1);
    pid_t child = fork();
    UCHECK(child >= 0, "fork");
    if (child == 0) {
        ring_pin_cpu(1);
        empi_ring_tx_t tx;
        UCHECK(empi_ring_tx_init(&tx, mem, ring_bytes) == 0, "tx");
        for (long i = 0; i < count; i++)
            send_spin(&tx, buf, size);
        _exit(0);
    }
    ring_pin_cpu(0);
    empi_ring_rx_t rx;
    empi_ring_rx_init(&rx, mem, ring_bytes);
    unsigned char *copy = malloc(size + 1);
    recv_spin(&rx, copy);
    double start = now_sec();
    for (long i = 1; i < count; i++)
        recv_spin(&rx, copy);
    double elapsed = now_sec() - start;
    waitpid(child, NULL, 0);
    printf("throughput size %5zu B: %.2f Mpkt/s, %.0f MB/s\n", size, (double)(count - 1) / elapsed / 1e6,
           (double)size * (double)(count - 1) / elapsed / 1e6);
    free(buf);
    free(copy);
    munmap(mem, ring_shared);
}

int main(int argc, char **argv)
{
    size_t size = argc > 1 ? strtoul(argv[1], NULL, 0) : 24;
    long iters = argc > 2 ? strtol(argv[2], NULL, 0) : 1000000;
    size_t ring_bytes = argc > 3 ? empi_ring_round_size(strtoul(argv[3], NULL, 0)) : 65536;
    UCHECK(size <= 4096 && size <= empi_ring_max_packet(ring_bytes), "size too large");
    raw_pingpong(iters);
    pingpong(size, iters, ring_bytes);
    static const size_t sizes[] = {24, 56, 256, 1024, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i] <= empi_ring_max_packet(ring_bytes))
            stream(sizes[i], sizes[i] <= 256 ? 5 * iters : iters, ring_bytes);
    return 0;
}
