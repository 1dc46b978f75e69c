/*
 * Two-process stress test of the shm ring: a forked producer pushes millions of variable-size packets
 * (sequence number + bytes derived from it) through a small ring while the consumer checks length,
 * order and every byte; then the same with two threads. Argument: packet count.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring_shared.h"
#include "unit_check.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return x;
}

/* Mostly small packets, sometimes up to the largest the ring accepts. */
static size_t packet_len(uint64_t seq, size_t max)
{
    uint64_t r = mix(seq + 1);
    size_t len = (r & 7) == 0 ? (size_t)((r >> 8) % (max + 1)) : (size_t)((r >> 8) % 200);
    return len < 8 ? 8 : len;
}

static void fill(unsigned char *buf, uint64_t seq, size_t len)
{
    memcpy(buf, &seq, sizeof seq);
    uint64_t x = mix(seq ^ UINT64_C(0x9e3779b97f4a7c15));
    for (size_t i = 8; i < len; i++) {
        buf[i] = (unsigned char)x;
        x = (x >> 8) | (x << 56);
        if ((i & 7) == 7)
            x = mix(x + i);
    }
}

static void produce(void *shared, size_t ring_bytes, uint64_t count)
{
    empi_ring_tx_t tx;
    UCHECK(empi_ring_tx_init(&tx, shared, ring_bytes) == 0, "tx init");
    size_t max = empi_ring_max_packet(ring_bytes);
    unsigned char *buf = malloc(max);
    for (uint64_t seq = 0; seq < count; seq++) {
        size_t len = packet_len(seq, max);
        fill(buf, seq, len);
        /* Two pieces, as pt2pt sends header + payload. */
        size_t cut = len / 3;
        struct iovec iov[2] = {{buf, cut}, {buf + cut, len - cut}};
        while (empi_ring_send(&tx, iov, 2, len) != 0)
            ring_cpu_relax();
    }
    free(buf);
    empi_ring_tx_fini(&tx);
}

static void consume(void *shared, size_t ring_bytes, uint64_t count)
{
    empi_ring_rx_t rx;
    empi_ring_rx_init(&rx, shared, ring_bytes);
    size_t max = empi_ring_max_packet(ring_bytes);
    unsigned char *want = malloc(max);
    for (uint64_t seq = 0; seq < count; seq++) {
        const void *pkt;
        long len;
        while ((len = empi_ring_peek(&rx, &pkt)) < 0)
            ring_cpu_relax();
        size_t expect = packet_len(seq, max);
        UCHECK((size_t)len == expect, "packet %llu: length %ld, want %zu", (unsigned long long)seq, len,
               expect);
        fill(want, seq, expect);
        UCHECK(memcmp(pkt, want, expect) == 0, "packet %llu: corrupt payload", (unsigned long long)seq);
        empi_ring_release(&rx, (size_t)len);
    }
    free(want);
}

typedef struct producer_args {
    void *shared;
    size_t ring_bytes;
    uint64_t count;
} producer_args_t;

static void *producer_thread(void *arg)
{
    producer_args_t *a = arg;
    produce(a->shared, a->ring_bytes, a->count);
    return NULL;
}

/* Threads instead of processes: lets ThreadSanitizer check the ring's memory ordering. */
static void run_threads(size_t ring_bytes, uint64_t count)
{
    void *shared = ring_shared_alloc(empi_ring_shared_bytes(ring_bytes));
    UCHECK(shared, "mmap");
    producer_args_t args = {shared, ring_bytes, count};
    pthread_t producer;
    UCHECK(pthread_create(&producer, NULL, producer_thread, &args) == 0, "pthread_create");
    consume(shared, ring_bytes, count);
    pthread_join(producer, NULL);
    munmap(shared, empi_ring_shared_bytes(ring_bytes));
}

static void run(size_t ring_bytes, uint64_t count)
{
    void *shared = ring_shared_alloc(empi_ring_shared_bytes(ring_bytes));
    UCHECK(shared, "mmap");
    pid_t child = fork();
    UCHECK(child >= 0, "fork");
    if (child == 0) {
        produce(shared, ring_bytes, count);
        _exit(0);
    }
    consume(shared, ring_bytes, count);
    int status;
    UCHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "producer failed");
    munmap(shared, empi_ring_shared_bytes(ring_bytes));
}

int main(int argc, char **argv)
{
    uint64_t count = argc > 1 ? strtoull(argv[1], NULL, 0) : 3000000;
    run(EMPI_RING_MIN_BYTES, count);
    run(64 * 1024, count);
    run_threads(EMPI_RING_MIN_BYTES, count / 4);
    printf("ring_stress_test: ok (%llu packets per ring size)\n", (unsigned long long)count);
    return 0;
}
