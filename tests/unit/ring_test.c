/*
 * Single-threaded tests of the shm ring: fill, drain and wrap with variable sizes checking every
 * byte and the order, EMPI_AGAIN on a full ring, gather from several iov pieces, that stale
 * payload shaped like a header is never taken for a packet, and the word-wise marking of payload
 * cells against a bit-by-bit reference.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transport/shm/ring.h"
#include "unit_check.h"

typedef struct ring_pair {
    void *shared;
    size_t ring_bytes;
    empi_ring_tx_t tx;
    empi_ring_rx_t rx;
} ring_pair_t;

static void pair_open(ring_pair_t *p, size_t ring_bytes)
{
    p->ring_bytes = ring_bytes;
    p->shared = aligned_alloc(64, empi_ring_shared_bytes(ring_bytes));
    UCHECK(p->shared, "out of memory");
    memset(p->shared, 0, empi_ring_shared_bytes(ring_bytes));
    UCHECK(empi_ring_tx_init(&p->tx, p->shared, ring_bytes) == 0, "tx init");
    empi_ring_rx_init(&p->rx, p->shared, ring_bytes);
}

static void pair_close(ring_pair_t *p)
{
    empi_ring_tx_fini(&p->tx);
    free(p->shared);
}

static unsigned char pattern_byte(uint64_t seq, size_t i)
{
    return (unsigned char)(seq * 131 + i * 7 + (i >> 8));
}

static int send_seq(ring_pair_t *p, uint64_t seq, size_t len)
{
    unsigned char buf[1 << 16];
    for (size_t i = 0; i < len; i++)
        buf[i] = pattern_byte(seq, i);
    struct iovec iov = {buf, len};
    return empi_ring_send(&p->tx, &iov, 1, len);
}

static void expect_seq(ring_pair_t *p, uint64_t seq, size_t len)
{
    const void *pkt = NULL;
    long got = empi_ring_peek(&p->rx, &pkt);
    UCHECK(got == (long)len, "seq %llu: length %ld, want %zu", (unsigned long long)seq, got, len);
    UCHECK(((uintptr_t)pkt & 7) == 0, "packet not 8-byte aligned");
    const unsigned char *b = pkt;
    for (size_t i = 0; i < len; i++)
        UCHECK(b[i] == pattern_byte(seq, i), "seq %llu byte %zu", (unsigned long long)seq, i);
    empi_ring_release(&p->rx, len);
}

static size_t size_of_seq(uint64_t seq, size_t max)
{
    static const size_t sizes[] = {0, 1, 8, 24, 55, 56, 57, 120, 121, 500, 1000, 2047, 4000};
    size_t s = sizes[(seq * 7) % (sizeof sizes / sizeof sizes[0])];
    return s > max ? max : s;
}

/* Interleave bursts of sends and drains so the ring wraps many times at different offsets. */
static void test_fill_drain_wrap(size_t ring_bytes)
{
    ring_pair_t p;
    pair_open(&p, ring_bytes);
    size_t max = empi_ring_max_packet(ring_bytes);
    uint64_t sent = 0, received = 0;
    const void *pkt = NULL;
    for (int round = 0; round < 2000; round++) {
        int burst = 1 + round % 37;
        for (int i = 0; i < burst; i++) {
            if (send_seq(&p, sent, size_of_seq(sent, max)) != 0)
                break;
            sent++;
        }
        int drain = 1 + (round * 5) % 41;
        for (int i = 0; i < drain && received < sent; i++, received++)
            expect_seq(&p, received, size_of_seq(received, max));
    }
    while (received < sent) {
        expect_seq(&p, received, size_of_seq(received, max));
        received++;
    }
    UCHECK(empi_ring_peek(&p.rx, &pkt) < 0, "ring should be empty");
    UCHECK(sent > 10000, "only %llu packets went through", (unsigned long long)sent);
    pair_close(&p);
}

/* A full ring refuses with EMPI_AGAIN, changes nothing, and accepts again after a drain. */
static void test_full_ring(void)
{
    ring_pair_t p;
    size_t ring_bytes = EMPI_RING_MIN_BYTES;
    pair_open(&p, ring_bytes);
    uint64_t sent = 0;
    while (send_seq(&p, sent, 24) == 0)
        sent++;
    uint64_t ncells = ring_bytes / EMPI_RING_CELL;
    UCHECK(sent == ncells - 1, "a ring of %llu cells took %llu one-cell packets",
           (unsigned long long)ncells, (unsigned long long)sent);
    UCHECK(send_seq(&p, sent, 0) == 1, "full ring accepted a packet");
    for (uint64_t i = 0; i < sent; i++)
        expect_seq(&p, i, 24);
    /* The consumer drained everything, so the producer must find room (lazy head publication). */
    UCHECK(send_seq(&p, sent, empi_ring_max_packet(ring_bytes)) == 0, "no room after a drain");
    expect_seq(&p, sent, empi_ring_max_packet(ring_bytes));
    pair_close(&p);
}

/* A packet gathered from several iov pieces arrives as their concatenation. */
static void test_gather(void)
{
    ring_pair_t p;
    pair_open(&p, EMPI_RING_MIN_BYTES);
    char hdr[16] = "protocol-header", a[5] = "abcd", b[200];
    memset(b, 'x', sizeof b);
    struct iovec iov[3] = {{hdr, 16}, {a, 4}, {b, sizeof b}};
    UCHECK(empi_ring_send(&p.tx, iov, 3, 220) == 0, "send");
    const void *pkt = NULL;
    UCHECK(empi_ring_peek(&p.rx, &pkt) == 220, "length");
    UCHECK(memcmp(pkt, hdr, 16) == 0 && memcmp((const char *)pkt + 16, a, 4) == 0 &&
               memcmp((const char *)pkt + 20, b, sizeof b) == 0, "content");
    empi_ring_release(&p.rx, 220);
    pair_close(&p);
}

/*
 * Fill every cell's first word with the header the consumer would expect there on the next laps, as
 * payload of large packets, then send small packets: the consumer must never see a phantom packet.
 */
static void test_forged_stale_headers(void)
{
    ring_pair_t p;
    size_t ring_bytes = EMPI_RING_MIN_BYTES;
    pair_open(&p, ring_bytes);
    uint64_t ncells = ring_bytes / EMPI_RING_CELL;
    size_t big = 15 * EMPI_RING_CELL - EMPI_RING_HDR;  /* 15 cells: not a divisor of the ring */
    uint64_t small_sent = 0, small_received = 0;
    const void *pkt = NULL;
    for (int lap = 0; lap < 50; lap++) {
        /* Large packets whose middle cells start with stamps valid one to three laps later. */
        for (int k = 0; k < 3; k++) {
            unsigned char buf[15 * EMPI_RING_CELL];
            uint64_t start = p.tx.tail;
            for (uint64_t c = 1; c < 15; c++) {
                uint64_t future = start + c + (uint64_t)(1 + (lap + c) % 3) * ncells;
                uint64_t forged = empi_ring_header(future, 8);
                memcpy(buf + c * EMPI_RING_CELL - EMPI_RING_HDR, &forged, sizeof forged);
            }
            struct iovec iov = {buf, big};
            if (empi_ring_send(&p.tx, &iov, 1, big) != 0)
                break;
            UCHECK(empi_ring_peek(&p.rx, &pkt) == (long)big, "big packet");
            empi_ring_release(&p.rx, big);
        }
        /* Small packets walk over those cells; each peek must return exactly what was sent. */
        for (uint64_t i = 0; i < ncells / 3; i++) {
            UCHECK(send_seq(&p, small_sent, 8) == 0, "small send");
            small_sent++;
            expect_seq(&p, small_received++, 8);
            UCHECK(empi_ring_peek(&p.rx, &pkt) < 0, "phantom packet at lap %d", lap);
        }
    }
    pair_close(&p);
}

static void test_mark_payload(void)
{
    enum { WORDS = 8, BITS = WORDS * 64 };
    uint64_t bits[WORDS], want[WORDS];
    unsigned seed = 12345;
    for (int t = 0; t < 20000; t++) {
        for (int w = 0; w < WORDS; w++)
            bits[w] = want[w] = (uint64_t)rand_r(&seed) << 33 ^ (uint64_t)rand_r(&seed);
        /* every third range starts or ends on a word edge; lengths up to three words and empty */
        uint64_t from = (uint64_t)rand_r(&seed) % BITS, len = (uint64_t)rand_r(&seed) % 200;
        if (t % 3 == 0)
            from &= ~UINT64_C(63);
        if (t % 3 == 1)
            len = 64 - (from & 63) + 64 * (uint64_t)(t % 2);
        uint64_t to = from + len > BITS ? BITS : from + len;
        for (uint64_t i = from; i < to; i++)
            empi_ring_mark(want, i, 1);
        empi_ring_mark_payload(bits, from, to);
        UCHECK(!memcmp(bits, want, sizeof bits), "marking [%llu, %llu) differs from bit by bit",
               (unsigned long long)from, (unsigned long long)to);
    }
}

int main(void)
{
    test_mark_payload();
    test_gather();
    test_full_ring();
    test_fill_drain_wrap(EMPI_RING_MIN_BYTES);
    test_fill_drain_wrap(64 * 1024);
    test_forged_stale_headers();
    puts("ring_test: ok");
    return 0;
}
