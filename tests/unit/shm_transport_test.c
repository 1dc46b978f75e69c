/*
 * The shm and self transports under the real bootstrap (run by mpiexec -n 2..8 on one host):
 * all-to-all packets of varied sizes with content and per-source FIFO checks, a self loopback, and
 * CMA reads of every peer's buffer at an address published through the bootstrap.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tunables.h"
#include "runtime/bootstrap.h"
#include "transport/transport.h"
#include "unit_check.h"

#define CMA_BYTES (4u << 20)

/* 20000 by default; the sanitizer builds pass fewer (the same paths run 20-50x slower there). */
static long packets_per_peer = 20000;
static empi_boot_info_t boot;
static long *next_seq_from;
static long delivered;

static size_t packet_len(int src, long seq, size_t max)
{
    uint64_t x = (uint64_t)seq * 2654435761u + (uint64_t)src * 97;
    size_t len = x % 7 == 0 ? (size_t)(x >> 5) % max : 16 + (size_t)(x >> 5) % 40;
    return len < 16 ? 16 : len > max ? max : len;
}

static void on_packet(int src, const void *pkt, size_t len)
{
    int32_t hdr[4];
    memcpy(hdr, pkt, sizeof hdr);
    long seq = next_seq_from[src]++;
    UCHECK(hdr[0] == src && hdr[1] == boot.rank && hdr[2] == (int32_t)seq,
           "rank %d: from %d got (%d->%d #%d), want #%ld", boot.rank, src, hdr[0], hdr[1], hdr[2], seq);
    UCHECK(len == packet_len(src, seq, empi_transport_shm.max_packet) || src == boot.rank, "length");
    const unsigned char *b = pkt;
    for (size_t i = 16; i < len; i++)
        UCHECK(b[i] == (unsigned char)(src + seq + (long)i), "rank %d: byte %zu from %d", boot.rank, i, src);
    delivered++;
}

static int progress_all(void)
{
    int n = empi_transport_shm.progress() + empi_transport_self.progress();
    if (n == 0)
        sched_yield();  /* tests run more ranks than cores */
    return n;
}

static void send_packet(empi_transport_t *t, int dst, long seq, size_t len, unsigned char *body)
{
    int32_t hdr[4] = {boot.rank, dst, (int32_t)seq, 0};
    for (size_t i = 16; i < len; i++)
        body[i - 16] = (unsigned char)(boot.rank + seq + (long)i);
    struct iovec iov[2] = {{hdr, 16}, {body, len - 16}};
    int rc;
    while ((rc = t->am_send(dst, iov, 2)) == EMPI_AGAIN)
        progress_all();
    UCHECK(rc == EMPI_OK, "am_send to %d: %d", dst, rc);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        packets_per_peer = atol(argv[1]);
    UCHECK(empi_boot_init(&boot) == 0, "bootstrap");
    UCHECK(empi_tunables_load() == 0, "tunables");
    next_seq_from = calloc((size_t)boot.size, sizeof(long));
    UCHECK(empi_transport_self.init(&boot, on_packet) == EMPI_OK, "self init");
    UCHECK(empi_transport_shm.init(&boot, on_packet) == EMPI_OK, "shm init");

    long expected = 0;
    for (int p = 0; p < boot.size; p++) {
        int same_node = empi_boot_node_of(p) == boot.node_id;
        UCHECK(empi_transport_self.reaches(p) == (p == boot.rank), "self reaches %d", p);
        UCHECK(empi_transport_shm.reaches(p) == (same_node && p != boot.rank), "shm reaches %d", p);
        if (same_node)
            expected += packets_per_peer;
    }

    unsigned char *body = malloc(empi_transport_shm.max_packet);
    for (long seq = 0; seq < packets_per_peer; seq++)
        for (int k = 0; k < boot.size; k++) {
            int dst = (boot.rank + k) % boot.size;
            empi_transport_t *t = dst == boot.rank ? &empi_transport_self : &empi_transport_shm;
            if (t->reaches(dst))
                send_packet(t, dst, seq, dst == boot.rank ? 16 + (size_t)seq % 300
                                                          : packet_len(boot.rank, seq, t->max_packet), body);
        }
    while (delivered < expected)
        progress_all();

    /* CMA: everyone publishes a buffer address, then reads every local peer's buffer. */
    unsigned char *mine = malloc(CMA_BYTES), *copy = malloc(CMA_BYTES);
    for (size_t i = 0; i < CMA_BYTES; i++)
        mine[i] = (unsigned char)(boot.rank * 5 + i / 7);
    uintptr_t addr = (uintptr_t)mine;
    UCHECK(empi_boot_put("shm-test-buf", &addr, sizeof addr) == 0, "put");
    UCHECK(empi_boot_fence() == 0, "fence");
    int cma_ok = 0, cma_refused = 0;
    for (int p = 0; p < boot.size && empi_transport_shm.has_get; p++) {
        if (!empi_transport_shm.reaches(p))
            continue;
        uintptr_t remote;
        size_t len;
        UCHECK(empi_boot_get(p, "shm-test-buf", &remote, sizeof remote, &len) == 0, "get key");
        if (empi_transport_shm.get(p, copy, (const void *)remote, CMA_BYTES) != EMPI_OK) {
            cma_refused++;
            continue;
        }
        for (size_t i = 0; i < CMA_BYTES; i++)
            UCHECK(copy[i] == (unsigned char)(p * 5 + i / 7), "CMA byte %zu from %d", i, p);
        cma_ok++;
    }
    UCHECK(empi_boot_fence() == 0, "fence");
    if (boot.rank == 0)
        printf("shm_transport_test: ok (%d ranks, CMA %d ok / %d refused on rank 0)\n", boot.size, cma_ok,
               cma_refused);
    UCHECK(empi_transport_shm.finalize() == EMPI_OK && empi_transport_self.finalize() == EMPI_OK, "finalize");
    free(mine);
    free(copy);
    free(body);
    free(next_seq_from);
    empi_boot_finalize();
    return 0;
}
