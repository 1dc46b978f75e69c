/*
 * A single-producer single-consumer packet ring in shared memory, built so that a small packet costs
 * one cache-line transfer and neither side ever does an atomic read-modify-write.
 *
 * The ring is an array of 64-byte cells. A packet takes ceil((8 + len) / 64) consecutive cells; its
 * first 8 bytes are a header word = (stamp << 24) | len, stamp = (absolute cell position + 1) mod 2^40.
 * The producer writes the payload, then publishes the header word with a release store. The consumer
 * knows the absolute position it expects next, so one acquire load of that cell (which it has to read
 * anyway) tells whether a fresh packet is there: a stale header carries an older stamp, so cells never
 * need zeroing. A packet never wraps: when it does not fit before the end, a wrap marker (len field
 * EMPI_RING_WRAP) fills the tail and the packet starts at cell 0.
 *
 * Stale payload could impersonate a header: a cell that held the middle of a large packet one lap ago
 * starts with user bytes. The producer remembers (in a private bitmap) which cells start with payload
 * and, before publishing a packet, clears the first word of the cell where the next header will go if
 * that cell is such a one. That costs nothing for streams of small packets, and the producer always
 * keeps one free cell so the cell it clears is never one the consumer has yet to read.
 *
 * The consumer returns space lazily: it publishes its position (release) in its own cache line every
 * quarter ring; the producer keeps a cached copy and re-reads it (acquire) only when the ring looks full.
 * max_packet (a quarter ring plus one cell) keeps that laziness deadlock free: once the consumer has
 * drained everything, less than a quarter is unpublished, and a packet plus its wrap waste and the
 * spare cell need at most half plus three cells (rings have at least 128 cells).
 */
#ifndef EMPI_SHM_RING_H
#define EMPI_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "core/copy.h"

#define EMPI_RING_CELL 64u
#define EMPI_RING_CELL_SHIFT 6
#define EMPI_RING_HDR 8u                      /* header word at the start of a packet */
#define EMPI_RING_LEN_BITS 24
#define EMPI_RING_LEN_MASK ((1u << EMPI_RING_LEN_BITS) - 1)
#define EMPI_RING_WRAP EMPI_RING_LEN_MASK      /* len field of a wrap marker */
/* len field of a packet whose bytes are elsewhere (the transport's cells): its payload is one word
   saying where, and peek returns EMPI_RING_REF for it. No real packet is that long (max_packet). */
#define EMPI_RING_REF (EMPI_RING_LEN_MASK - 1)
#define EMPI_RING_REF_BYTES 8u
#define EMPI_RING_STAMP_MASK ((UINT64_C(1) << (64 - EMPI_RING_LEN_BITS)) - 1)
#define EMPI_RING_MIN_BYTES (8u * 1024)
#define EMPI_RING_MAX_BYTES (32u * 1024 * 1024) /* keeps max_packet below the 24-bit len field */
#define EMPI_RING_CTRL_BYTES 128u              /* consumer's published head, alone on its lines */

/* Shared part: control block followed by the cells. Lives in the segment, zero-filled at creation. */
typedef struct empi_ring_ctrl {
    _Alignas(64) _Atomic uint64_t head;        /* consumer's published absolute cell position */
    char pad_[EMPI_RING_CTRL_BYTES - sizeof(uint64_t)];
} empi_ring_ctrl_t;

/* Producer's private view. */
typedef struct empi_ring_tx {
    unsigned char *cells;
    uint64_t mask;             /* ncells - 1 */
    uint64_t tail;             /* absolute position of the next free cell */
    uint64_t head_cache;       /* last head read from ctrl */
    _Atomic uint64_t *head;
    uint64_t *payload_first;   /* bit per cell: its first word holds payload, not a header */
    int take_ahead;            /* the CPU has PREFETCHW (empi_ring_take_ahead) */
} empi_ring_tx_t;

/* Consumer's private view. */
typedef struct empi_ring_rx {
    unsigned char *cells;
    uint64_t mask;
    uint64_t head;             /* absolute position of the next packet */
    uint64_t published;        /* head as last published to the producer */
    uint64_t publish_every;    /* cells between publications: a quarter ring */
    _Atomic uint64_t *head_pub;
} empi_ring_rx_t;

/* Bytes of shared memory for a ring of `ring_bytes` cell bytes (a power of two). */
static inline size_t empi_ring_shared_bytes(size_t ring_bytes)
{
    return EMPI_RING_CTRL_BYTES + ring_bytes;
}

/*
 * Largest packet (bytes after the ring header) that a ring of `ring_bytes` accepts: a quarter ring
 * of payload plus room for a protocol header, so that power-of-two messages (16 KiB in a 64 KiB
 * ring) travel as one packet and rendezvous chunks stay powers of two.
 */
static inline size_t empi_ring_max_packet(size_t ring_bytes)
{
    return ring_bytes / 4 + EMPI_RING_CELL - EMPI_RING_HDR;
}

/* Round a requested ring size to a power of two within [EMPI_RING_MIN_BYTES, EMPI_RING_MAX_BYTES]. */
size_t empi_ring_round_size(size_t bytes);

/* Bind views to a zero-filled shared ring at `shared`. tx_init allocates; tx_fini frees. */
int empi_ring_tx_init(empi_ring_tx_t *tx, void *shared, size_t ring_bytes);
void empi_ring_tx_fini(empi_ring_tx_t *tx);
void empi_ring_rx_init(empi_ring_rx_t *rx, void *shared, size_t ring_bytes);

/* Header word for a packet (or marker) at absolute position `pos`. Exposed for tests. */
static inline uint64_t empi_ring_header(uint64_t pos, uint32_t len)
{
    return (((pos + 1) & EMPI_RING_STAMP_MASK) << EMPI_RING_LEN_BITS) | len;
}

static inline _Atomic uint64_t *empi_ring_word(unsigned char *cells, uint64_t index)
{
    return (_Atomic uint64_t *)(void *)(cells + (index << EMPI_RING_CELL_SHIFT));
}

static inline void empi_ring_mark(uint64_t *bits, uint64_t index, int payload)
{
    uint64_t bit = UINT64_C(1) << (index & 63);
    if (payload)
        bits[index >> 6] |= bit;
    else
        bits[index >> 6] &= ~bit;
}

/* Mark cells [from, to) as starting with payload, a word at a time: a 32 KiB packet spans 512
   cells of 64 bytes, and one bit at a time cost more than its copy's tail. */
static inline void empi_ring_mark_payload(uint64_t *bits, uint64_t from, uint64_t to)
{
    while (from < to) {
        uint64_t word = from >> 6, lo = from & 63;
        uint64_t n = to - from < 64 - lo ? to - from : 64 - lo;
        uint64_t mask = n == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << n) - 1) << lo;
        bits[word] |= mask;
        from += n;
    }
}

static inline int empi_ring_marked(const uint64_t *bits, uint64_t index)
{
    return (int)((bits[index >> 6] >> (index & 63)) & 1);
}

/* A packet being written, between reserve and commit (the tail does not move meanwhile: cells
   skipped at the end of the ring are pos - tail, and the wrap marker goes at the tail). */
typedef struct {
    uint64_t pos;     /* ring position of the packet's first cell */
    uint64_t cells;
    uint32_t len;
} empi_ring_slot_t;

/*
 * Room for a packet of `len` bytes (len <= max_packet): returns where its payload goes, or NULL
 * when the ring has no room. The packet becomes visible at empi_ring_commit, so the caller may
 * fill the payload in place (copy or pack) between the two, and sends nothing else meanwhile.
 */
static inline unsigned char *empi_ring_reserve(empi_ring_tx_t *tx, size_t len, empi_ring_slot_t *slot)
{
    uint64_t ncells = tx->mask + 1;
    uint64_t cells = (len + EMPI_RING_HDR + EMPI_RING_CELL - 1) >> EMPI_RING_CELL_SHIFT;
    uint64_t index = tx->tail & tx->mask;
    uint64_t skip = ncells - index >= cells ? 0 : ncells - index;
    uint64_t need = skip + cells + 1;          /* +1: the next header's cell must be ours to clear */

    if (__builtin_expect(tx->tail + need - tx->head_cache > ncells, 0)) {
        tx->head_cache = atomic_load_explicit(tx->head, memory_order_acquire);
        if (tx->tail + need - tx->head_cache > ncells)
            return NULL;
    }
    *slot = (empi_ring_slot_t){tx->tail + skip, cells, (uint32_t)len};
    return tx->cells + ((slot->pos & tx->mask) << EMPI_RING_CELL_SHIFT) + EMPI_RING_HDR;
}

/* Start taking the line at p into this core's cache for writing (PREFETCHW; the caller checked
   that the CPU has it: elsewhere its opcode need not be a no-op). */
static inline void empi_ring_prefetch_write(const unsigned char *p)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" ::"m"(*p));
#else
    __builtin_prefetch(p, 1);
#endif
}

/* Publish the packet reserved in `slot`, whose payload is now written. */
static inline void empi_ring_commit(empi_ring_tx_t *tx, const empi_ring_slot_t *slot)
{
    uint64_t at = slot->pos & tx->mask;
    uint64_t *bits = tx->payload_first;
    empi_ring_mark(bits, at, 0);
    empi_ring_mark_payload(bits, at + 1, at + slot->cells);
    uint64_t next = (at + slot->cells) & tx->mask;
    if (__builtin_expect(empi_ring_marked(bits, next), 0)) {
        atomic_store_explicit(empi_ring_word(tx->cells, next), 0, memory_order_relaxed);
        empi_ring_mark(bits, next, 0);
    }

    atomic_store_explicit(empi_ring_word(tx->cells, at), empi_ring_header(slot->pos, slot->len),
                          memory_order_release);
    if (slot->pos != tx->tail) {
        /* Published after the packet so the consumer, once past the marker, finds the packet ready. */
        uint64_t index = tx->tail & tx->mask;
        empi_ring_mark(bits, index, 0);
        atomic_store_explicit(empi_ring_word(tx->cells, index), empi_ring_header(tx->tail, EMPI_RING_WRAP),
                              memory_order_release);
    }
    tx->tail = slot->pos + slot->cells;
}

/* The producer is streaming small packets (the caller knows): take the cell two on from the
   consumer's core now, so that writing it later does not wait for that. In a ping-pong the same
   steal would slow the peer's read of the packet just published (8 B latency 0.33 -> 0.36 us). */
static inline void empi_ring_take_ahead(empi_ring_tx_t *tx)
{
    if (tx->take_ahead)
        empi_ring_prefetch_write(tx->cells + (((tx->tail + 2) & tx->mask) << EMPI_RING_CELL_SHIFT));
}

/* Copy iov[0..iovcnt-1] to dst (a reserved payload); returns the end of what was written. */
static inline unsigned char *empi_ring_copy_iov(unsigned char *dst, const struct iovec *iov, int iovcnt)
{
    for (int i = 0; i < iovcnt; i++) {
        empi_copy(dst, iov[i].iov_base, iov[i].iov_len);
        dst += iov[i].iov_len;
    }
    return dst;
}

/*
 * Copy iov[0..iovcnt-1] (`len` bytes in total, len <= max_packet) into the ring as one packet.
 * Returns 0, or 1 (EMPI_AGAIN) when the ring has no room.
 */
static inline int empi_ring_send(empi_ring_tx_t *tx, const struct iovec *iov, int iovcnt, size_t len)
{
    empi_ring_slot_t slot;
    unsigned char *dst = empi_ring_reserve(tx, len, &slot);
    if (__builtin_expect(dst == NULL, 0))
        return 1;
    empi_ring_copy_iov(dst, iov, iovcnt);
    empi_ring_commit(tx, &slot);
    return 0;
}

/* Publish the packet reserved in `slot` (EMPI_RING_REF_BYTES long, payload at `word`) as a
   reference: peek reports it as EMPI_RING_REF with `ref` as its payload. */
static inline void empi_ring_commit_ref(empi_ring_tx_t *tx, empi_ring_slot_t *slot, unsigned char *word,
                                        uint64_t ref)
{
    memcpy(word, &ref, sizeof ref);
    slot->len = EMPI_RING_REF;
    empi_ring_commit(tx, slot);
}

/* Start fetching the lines of a packet of `bytes` at p after its first (which the reader has in
   hand), up to 8 of them, so that they come while it is matched. Ring cells and the pair's cells
   are both 64-byte lines. */
static inline void empi_ring_prefetch_rest(const unsigned char *p, size_t bytes)
{
    for (size_t off = EMPI_RING_CELL; off < bytes && off <= 8 * EMPI_RING_CELL; off += EMPI_RING_CELL)
        __builtin_prefetch(p + off);
}

/*
 * Look at the next packet: returns its length and sets *pkt to the payload (in the ring), or returns
 * -1 when the ring is empty. The packet stays in place until empi_ring_release.
 */
static inline long empi_ring_peek(empi_ring_rx_t *rx, const void **pkt)
{
    for (;;) {
        uint64_t index = rx->head & rx->mask;
        unsigned char *cell = rx->cells + (index << EMPI_RING_CELL_SHIFT);
        uint64_t word = atomic_load_explicit((_Atomic uint64_t *)(void *)cell, memory_order_acquire);
        if (word >> EMPI_RING_LEN_BITS != ((rx->head + 1) & EMPI_RING_STAMP_MASK))
            return -1;
        uint32_t len = (uint32_t)(word & EMPI_RING_LEN_MASK);
        if (__builtin_expect(len == EMPI_RING_WRAP, 0)) {
            rx->head += rx->mask + 1 - index;
            continue;
        }
        *pkt = cell + EMPI_RING_HDR;
        if (len > EMPI_RING_CELL - EMPI_RING_HDR && len <= 8 * EMPI_RING_CELL)
            empi_ring_prefetch_rest(cell, len + EMPI_RING_HDR);
        return (long)len;
    }
}

/* Give back the packet of length `len` returned by the last peek. */
static inline void empi_ring_release(empi_ring_rx_t *rx, size_t len)
{
    if (len == EMPI_RING_REF)
        len = EMPI_RING_REF_BYTES;
    rx->head += (len + EMPI_RING_HDR + EMPI_RING_CELL - 1) >> EMPI_RING_CELL_SHIFT;
    if (__builtin_expect(rx->head - rx->published >= rx->publish_every, 0)) {
        atomic_store_explicit(rx->head_pub, rx->head, memory_order_release);
        rx->published = rx->head;
    }
}

#endif
