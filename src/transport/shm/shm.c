/*
 * The shared-memory transport: packets to ranks on this node go through the per-pair rings of the
 * node segment; rendezvous data goes through a second, bigger ring per pair (the bulk channel)
 * where the segment has them, or is read single-copy with CMA when that is enabled. Packets from
 * EMPI_SHM_CELL_MIN bytes (EMPI_SHM_CELL_MIN_REPLY when they answer the peer) go, where a cell is
 * free, through the pair's cells (below). All state is
 * per process and touched by one thread at a time (the library's big lock serializes
 * MPI_THREAD_MULTIPLE).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/global.h"
#include "core/tunables.h"
#include "transport/shm/cma.h"
#include "transport/shm/ring.h"
#include "transport/shm/segment.h"
#include "transport/transport.h"

/* Bits of the segment's node_flags: what local rank 0 measured, for the whole node. */
#define SHM_NODE_CMA_FAST 1u

/* send_packet's `stream` that also passes the cell by: a one-way stream's eager payload */
#define SHM_STREAM_PAST_CELL 2

/* Packets taken from one ring per progress pass before moving on, so a chatty peer cannot starve others. */
#define SHM_POLL_BURST 32

/* One incoming ring with its sender, a cache line each so polling walks a dense array. */
typedef struct shm_inbox {
    _Alignas(EMPI_CACHELINE) empi_ring_rx_t rx;
    int src;   /* world rank of the sender */
} shm_inbox_t;

/* The bulk side of an inbox, apart so the packet inboxes stay one cache line each. */
typedef struct shm_bulk_inbox {
    empi_ring_rx_t rx;
    int expected;   /* transfers announced by bulk_expect and not yet finished */
} shm_bulk_inbox_t;

/*
 * The cells of a pair, shared by both directions. A ring's lines are written by one side and read
 * by the other, and on this machine's cores writing a line that the other core read last costs a
 * cross-core round trip per line (copies into a ring run at 7-9 GB/s, out of it at 35-40): the
 * reader's copy takes the lines over. So a big packet goes into a cell with only a reference to it
 * in the ring, and a cell belongs to the side that read it last: that side writes its next packet
 * there, into lines its core already holds. In an exchange the cells swap sides at every message
 * and both copies run at cache speed; in a one-way stream they pile up at the receiver and the
 * sender goes on through the ring, as without cells. The reference in the ring hands the cell
 * over, so no other shared state is needed.
 */
#define SHM_MAX_CELLS 64
typedef struct shm_cells {
    unsigned char *base;            /* the pair's cells; NULL: none */
    int n;                          /* cells this side may write: mine[0..n), the one read last on top */
    uint8_t mine[SHM_MAX_CELLS];
} shm_cells_t;

typedef struct shm_outbox {
    _Alignas(EMPI_CACHELINE) empi_ring_tx_t tx;
    empi_ring_tx_t bulk_tx;
    shm_cells_t cells;
    uint8_t mapped[2];   /* [bulk]: that ring's pages were populated at the first send through it */
    uint8_t heard;       /* a packet came from this peer since we last sent it one (an exchange:
                            the cell we hold is likely the one the peer wrote and we just read) */
} shm_outbox_t;

static struct {
    empi_deliver_fn deliver;
    int npeers;              /* local_size - 1; 0 when alone on the node or not initialized */
    int last_active;         /* inbox polled first: the peer that sent most recently */
    int bulk_expected;       /* sum over bulk inboxes: poll bulk rings only while nonzero */
    int *inbox_of_world;     /* inbox index of each local world rank, else -1 */
    int in_progress;         /* deliver may call back into MPI; never re-enter the rings */
    int cma_mode;
    int my_world_rank;
    int world_size;
    size_t cell_min;         /* packets from this size go through a cell where one is free */
    size_t cell_min_reply;   /* ... and from this size when they answer the peer's last packet */
    size_t cell_stride;      /* bytes of a cell: the largest packet it takes */
    int *local_of_world;     /* local rank of each world rank on this node, else -1 */
    shm_inbox_t *inbox;      /* npeers entries */
    shm_bulk_inbox_t *bulk_inbox; /* npeers entries, parallel to inbox */
    shm_outbox_t *outbox;    /* local_size entries, ours unused */
    empi_cma_peer_t *cma;    /* local_size entries */
    empi_shm_segment_t seg;
} shm;

static int shm_finalize(void);

/* Bytes of a cell: a rendezvous chunk with its protocol header, in whole cache lines. */
static size_t cell_stride_for(size_t chunk)
{
    return (chunk + 2 * EMPI_CACHELINE - 1) / EMPI_CACHELINE * EMPI_CACHELINE;
}

/* Cells per pair within the per-rank budget: an even number, none below two. */
static int cells_per_pair(size_t stride, int local_size)
{
    long want = empi_tunables.shm_cells;
    if (want <= 0 || local_size < 2)
        return 0;
    size_t fit = empi_tunables.shm_cell_budget / ((size_t)(local_size - 1) * stride);
    if ((size_t)want > fit)
        want = (long)fit;
    if (want > SHM_MAX_CELLS)
        want = SHM_MAX_CELLS;
    return want < 2 ? 0 : (int)(want & ~1L);
}

/* Our half of the pair's cells to begin with: the lower local rank takes the first half. */
static void cells_init(shm_cells_t *c, void *base, int cells, int me, int peer)
{
    c->base = base;
    c->n = cells / 2;
    for (int i = 0; i < c->n; i++)
        c->mine[i] = (uint8_t)(me < peer ? i : cells / 2 + i);
}

static void *alloc_lines(size_t n, size_t size)
{
    size_t bytes = (n * size + EMPI_CACHELINE - 1) / EMPI_CACHELINE * EMPI_CACHELINE;
    void *p = aligned_alloc(EMPI_CACHELINE, bytes ? bytes : EMPI_CACHELINE);
    if (p)
        memset(p, 0, bytes);
    return p;
}

static int shm_init(const empi_boot_info_t *boot, empi_deliver_fn deliver)
{
    memset(&shm, 0, sizeof shm);
    shm.deliver = deliver;
    shm.my_world_rank = boot->rank;
    shm.world_size = boot->size;
    int large_only = strcmp(empi_tunables.shm_cma, "large") == 0;
    shm.cma_mode = large_only ? 1 : empi_cma_mode(empi_tunables.shm_cma);
    int local_size = boot->local_size;
    size_t ring_bytes = empi_shm_ring_bytes(empi_tunables.shm_ring_size, empi_tunables.shm_ring_budget,
                                            local_size);
    size_t bulk_bytes = 0;
    if (empi_tunables.shm_bulk_size)
        bulk_bytes = empi_shm_ring_bytes(empi_tunables.shm_bulk_size, empi_tunables.shm_bulk_budget, local_size);
    if (bulk_bytes <= ring_bytes)
        bulk_bytes = 0;
    empi_transport_shm.max_packet = empi_ring_max_packet(ring_bytes);
    empi_transport_shm.bulk_max_packet = 0;
    empi_transport_shm.has_get = 0;
    empi_transport_shm.rndv_min = 0;
    empi_transport_shm.data_chunk = empi_tunables.shm_rndv_chunk;
    size_t cell_stride = cell_stride_for(empi_tunables.shm_rndv_chunk);
    int cells = cells_per_pair(cell_stride, local_size);

    /* Alone on the node: no segment, but the fences are collective over the world. */
    if (local_size < 2) {
        empi_boot_fence();
        empi_boot_fence();
        return EMPI_OK;
    }
    uint32_t probed = 0;
    if (boot->local_rank == 0 && shm.cma_mode == 1 && !large_only && empi_cma_fast_enough())
        probed |= SHM_NODE_CMA_FAST;
    if (empi_shm_segment_attach(&shm.seg, boot, ring_bytes, bulk_bytes, cell_stride, cells, probed) != 0)
        return EMPI_ERROR;
    bulk_bytes = shm.seg.bulk_bytes;
    shm.cell_stride = shm.seg.cell_stride;
    shm.cell_min = empi_tunables.shm_cell_min ? empi_tunables.shm_cell_min : 1;
    shm.cell_min_reply = empi_tunables.shm_cell_min_reply ? empi_tunables.shm_cell_min_reply : 1;
    if (shm.cell_min_reply > shm.cell_min)
        shm.cell_min_reply = shm.cell_min;
    /* Where CMA is slow it may still serve large messages only (EMPI_SHM_CMA_LARGE_MIN) */
    size_t get_min = 0;
    if (shm.cma_mode == 1 && !(shm.seg.node_flags & SHM_NODE_CMA_FAST)) {
        get_min = empi_tunables.shm_cma_large_min;
        if (!get_min)
            shm.cma_mode = 0;
    }

    shm.local_of_world = malloc((size_t)boot->size * sizeof(int));
    shm.inbox_of_world = malloc((size_t)boot->size * sizeof(int));
    shm.inbox = alloc_lines((size_t)local_size - 1, sizeof(shm_inbox_t));
    shm.bulk_inbox = calloc((size_t)local_size - 1, sizeof(shm_bulk_inbox_t));
    shm.outbox = alloc_lines((size_t)local_size, sizeof(shm_outbox_t));
    shm.cma = calloc((size_t)local_size, sizeof(empi_cma_peer_t));
    if (!shm.local_of_world || !shm.inbox_of_world || !shm.inbox || !shm.bulk_inbox || !shm.outbox || !shm.cma)
        goto fail;
    for (int r = 0; r < boot->size; r++)
        shm.local_of_world[r] = shm.inbox_of_world[r] = -1;

    int me = boot->local_rank;
    for (int l = 0, n = 0; l < local_size; l++) {
        const empi_shm_slot_t *slot = &shm.seg.hdr->slots[l];
        if (slot->world_rank < 0 || slot->world_rank >= boot->size)
            goto fail;
        shm.local_of_world[slot->world_rank] = l;
        shm.cma[l].pid = slot->pid;
        shm.cma[l].usable = shm.cma_mode != 0;
        if (l == me)
            continue;
        if (empi_ring_tx_init(&shm.outbox[l].tx, empi_shm_segment_ring(&shm.seg, l, me), ring_bytes) != 0)
            goto fail;
        empi_ring_rx_init(&shm.inbox[n].rx, empi_shm_segment_ring(&shm.seg, me, l), ring_bytes);
        if (bulk_bytes) {
            if (empi_ring_tx_init(&shm.outbox[l].bulk_tx, empi_shm_segment_bulk(&shm.seg, l, me), bulk_bytes) != 0)
                goto fail;
            empi_ring_rx_init(&shm.bulk_inbox[n].rx, empi_shm_segment_bulk(&shm.seg, me, l), bulk_bytes);
        }
        if (shm.seg.cells)
            cells_init(&shm.outbox[l].cells, empi_shm_segment_cells(&shm.seg, me, l), shm.seg.cells, me, l);
        shm.inbox[n].src = slot->world_rank;
        shm.inbox_of_world[slot->world_rank] = n;
        n++;
    }
    shm.npeers = local_size - 1;
    empi_transport_shm.bulk_max_packet = bulk_bytes ? empi_ring_max_packet(bulk_bytes) : 0;
    empi_transport_shm.lone_max = (size_t)shm.seg.cells * empi_transport_shm.data_chunk;
    empi_transport_shm.has_get = shm.cma_mode != 0;
    empi_transport_shm.get_min = get_min;
    empi_transport_shm.rndv_min = shm.cma_mode && !get_min ? (size_t)empi_tunables.shm_cma_threshold : 0;
    return EMPI_OK;

fail:
    shm_finalize();
    return EMPI_ERROR;
}

static int shm_finalize(void)
{
    if (shm.outbox)
        for (int l = 0; l < shm.seg.local_size; l++) {
            empi_ring_tx_fini(&shm.outbox[l].tx);
            empi_ring_tx_fini(&shm.outbox[l].bulk_tx);
        }
    empi_shm_segment_detach(&shm.seg);
    free(shm.local_of_world);
    free(shm.inbox_of_world);
    free(shm.inbox);
    free(shm.bulk_inbox);
    free(shm.outbox);
    free(shm.cma);
    memset(&shm, 0, sizeof shm);
    empi_transport_shm.has_get = 0;
    empi_transport_shm.rndv_min = 0;
    empi_transport_shm.bulk_max_packet = 0;
    empi_transport_shm.lone_max = 0;
    return EMPI_OK;
}

static int shm_reaches(int peer)
{
    return shm.npeers > 0 && peer >= 0 && peer < shm.world_size && peer != shm.my_world_rank &&
           shm.local_of_world[peer] >= 0;
}

/* A packet that came in a cell: once it is delivered the cell is ours, the next we write. */
static void deliver_cell(int src, const void *ref_word)
{
    uint64_t ref;
    memcpy(&ref, ref_word, sizeof ref);
    shm_cells_t *c = &shm.outbox[shm.local_of_world[src]].cells;
    unsigned cell = (unsigned)(ref & 0xff);
    const unsigned char *pkt = c->base + cell * shm.cell_stride;
    size_t len = (size_t)(ref >> 8);
    empi_ring_prefetch_rest(pkt, len);
    shm.deliver(src, pkt, len);
    c->mine[c->n++] = (uint8_t)cell;
}

static int drain(empi_ring_rx_t *rx, int src)
{
    const void *pkt;
    long len;
    int burst = 0;
    while (burst < SHM_POLL_BURST && (len = empi_ring_peek(rx, &pkt)) >= 0) {
        if (EMPI_UNLIKELY(len == EMPI_RING_REF))
            deliver_cell(src, pkt);
        else
            shm.deliver(src, pkt, (size_t)len);
        empi_ring_release(rx, (size_t)len);
        burst++;
    }
    if (burst)
        shm.outbox[shm.local_of_world[src]].heard = 1;
    return burst;
}

static int shm_progress(void)
{
    if (shm.npeers == 0 || shm.in_progress)
        return 0;
    shm.in_progress = 1;
    int delivered = 0;
    int n = shm.npeers, p = shm.last_active;
    for (int k = 0; k < n; k++, p = p + 1 == n ? 0 : p + 1) {
        int burst = drain(&shm.inbox[p].rx, shm.inbox[p].src);
        if (burst) {
            shm.last_active = p;
            delivered += burst;
        }
    }
    if (shm.bulk_expected)
        for (p = 0; p < n; p++)
            if (shm.bulk_inbox[p].expected)
                delivered += drain(&shm.bulk_inbox[p].rx, shm.inbox[p].src);
    shm.in_progress = 0;
    return delivered;
}

/* The packet in the cell we read last, with a reference to it in the ring; EMPI_AGAIN when the
   ring has no room for that. The caller checked that we hold a cell and that the packet fits. */
static int send_in_cell(shm_outbox_t *box, const struct iovec *iov, int iovcnt, size_t len,
                        void (*fill)(void *arg, void *dst, int stream), void *arg)
{
    empi_ring_slot_t slot;
    unsigned char *word = empi_ring_reserve(&box->tx, EMPI_RING_REF_BYTES, &slot);
    if (!word)
        return EMPI_AGAIN;
    unsigned cell = box->cells.mine[--box->cells.n];
    unsigned char *dst = empi_ring_copy_iov(box->cells.base + cell * shm.cell_stride, iov, iovcnt);
    if (fill)
        fill(arg, dst, 0);
    empi_ring_commit_ref(&box->tx, &slot, word, (uint64_t)len << 8 | cell);
    return EMPI_OK;
}

/* A packet of len bytes goes into a cell of this pair: its size is a cell's, and this side holds one. */
static inline int takes_cell(const shm_outbox_t *box, size_t len)
{
    return len >= (box->heard ? shm.cell_min_reply : shm.cell_min) && len <= shm.cell_stride && box->cells.n;
}

/*
 * The first packet through a ring populates all its pages at once. They are allocated only when a
 * pair first talks (a rank's incoming rings no longer take the whole ring budget at start-up, 8 MiB
 * per rank from 64 local ranks), and this spares the first pass through the ring a page fault every
 * few packets (8-byte latency measured first in a run, faulting page by page: 0.18 against 0.15
 * us written in advance). On kernels without MADV_POPULATE_WRITE the pages come one fault at a
 * time.
 */
static __attribute__((noinline, cold)) void map_ring(shm_outbox_t *box, int bulk)
{
    const empi_ring_tx_t *tx = bulk ? &box->bulk_tx : &box->tx;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (uintptr_t)tx->cells & ~(page - 1);
    uintptr_t hi = ((uintptr_t)tx->cells + ((tx->mask + 1) << EMPI_RING_CELL_SHIFT) + page - 1) & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
    (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#endif
    box->mapped[bulk] = 1;
}

/*
 * One packet of iov followed by `fill_len` bytes that fill(arg, dst, stream) writes in place (none
 * when fill is NULL); with `stream`, the fill, or else the last iovec, is written with non-temporal
 * stores (never into a cell; SHM_STREAM_PAST_CELL also takes the ring where a cell would have
 * taken it).
 * `bulk`, `stream` and whether there is a fill are constants at each call site, so the hot path
 * compiles to a plain copy into the ring.
 */
static inline int send_packet(int peer, int bulk, const struct iovec *iov, int iovcnt, size_t fill_len,
                              void (*fill)(void *arg, void *dst, int stream), void *arg, int stream)
{
    size_t len = fill_len;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    size_t max = bulk ? empi_transport_shm.bulk_max_packet : empi_transport_shm.max_packet;
    if (EMPI_UNLIKELY(len > max || !shm_reaches(peer)))
        return EMPI_ERROR;
    shm_outbox_t *box = &shm.outbox[shm.local_of_world[peer]];
    int took = !bulk && stream != SHM_STREAM_PAST_CELL && takes_cell(box, len), reply = box->heard;
    box->heard = 0;
    /* Not streamed: that would push out of the cache the lines the cell is there to keep. Not for
       the bulk channel either: messages that big leave the cache anyway. */
    if (took && send_in_cell(box, iov, iovcnt, len, fill, arg) == EMPI_OK)
        return EMPI_OK;
    if (EMPI_UNLIKELY(!box->mapped[bulk]))
        map_ring(box, bulk);
    empi_ring_tx_t *tx = bulk ? &box->bulk_tx : &box->tx;
    empi_ring_slot_t slot;
    unsigned char *dst = empi_ring_reserve(tx, len, &slot);
    if (!dst)
        return EMPI_AGAIN;
    if (stream && !fill && iov[iovcnt - 1].iov_len >= EMPI_COPY_VECTOR_MIN) {
        dst = empi_ring_copy_iov(dst, iov, iovcnt - 1);
        empi_copy_stream(dst, iov[iovcnt - 1].iov_base, iov[iovcnt - 1].iov_len);
    } else {
        dst = empi_ring_copy_iov(dst, iov, iovcnt);
    }
    if (fill)
        fill(arg, dst, stream);
    empi_ring_commit(tx, &slot);
    /* one small packet after another with no answer between: a stream (1-16 B bw 1.1-1.2x) */
    if (!reply && slot.cells == 1)
        empi_ring_take_ahead(tx);
    return EMPI_OK;
}

static int shm_eager_fits(int peer, size_t len)
{
    return shm_reaches(peer) && takes_cell(&shm.outbox[shm.local_of_world[peer]], len);
}

static int shm_send_fill(int peer, int bulk, const struct iovec *iov, int iovcnt, size_t fill_len,
                         void (*fill)(void *arg, void *dst, int stream), void *arg, int stream)
{
    return stream ? send_packet(peer, bulk, iov, iovcnt, fill_len, fill, arg, 1)
                  : send_packet(peer, bulk, iov, iovcnt, fill_len, fill, arg, 0);
}

static int shm_am_send(int peer, const struct iovec *iov, int iovcnt)
{
    return send_packet(peer, 0, iov, iovcnt, 0, NULL, NULL, 0);
}

static int shm_bulk_send(int peer, const struct iovec *iov, int iovcnt)
{
    return send_packet(peer, 1, iov, iovcnt, 0, NULL, NULL, 0);
}

static int shm_stream_send(int peer, int bulk, const struct iovec *iov, int iovcnt)
{
    return bulk ? send_packet(peer, 1, iov, iovcnt, 0, NULL, NULL, 1)
                : send_packet(peer, 0, iov, iovcnt, 0, NULL, NULL, 1);
}

/* An eager message that continues a one-way stream (nothing heard from the peer since the last
   send) goes into the ring past the caches: the cell's cached lines serve an answer the sender
   waits for, and a window of messages is read faster from memory than line by line from this
   core's cache (which may be far from the receiver's). */
static int shm_eager_send(int peer, const struct iovec *iov, int iovcnt)
{
    size_t one_way = empi_tunables.shm_stream_one_way;
    if (one_way && iov[iovcnt - 1].iov_len >= one_way && shm_reaches(peer) &&
        !shm.outbox[shm.local_of_world[peer]].heard)
        return send_packet(peer, 0, iov, iovcnt, 0, NULL, NULL, SHM_STREAM_PAST_CELL);
    return send_packet(peer, 0, iov, iovcnt, 0, NULL, NULL, 0);
}

static void shm_bulk_expect(int peer, int delta)
{
    if (!shm_reaches(peer))
        return;
    shm.bulk_inbox[shm.inbox_of_world[peer]].expected += delta;
    shm.bulk_expected += delta;
}

static empi_cma_peer_t *cma_peer(int peer)
{
    return shm_reaches(peer) ? &shm.cma[shm.local_of_world[peer]] : NULL;
}

static int shm_get(int peer, void *local, const void *remote, size_t len)
{
    empi_cma_peer_t *cma = cma_peer(peer);
    return cma && empi_cma_read(cma, shm.cma_mode, local, remote, len) == 0 ? EMPI_OK : EMPI_ERROR;
}

static int shm_get_iov(int peer, const struct iovec *local, size_t nlocal, const struct iovec *remote,
                       size_t nremote)
{
    empi_cma_peer_t *cma = cma_peer(peer);
    return cma && empi_cma_readv(cma, shm.cma_mode, local, nlocal, remote, nremote) == 0 ? EMPI_OK : EMPI_ERROR;
}

static void shm_publish_wait(uint64_t start, uint64_t seen)
{
    if (!shm.seg.hdr)
        return;
    empi_shm_slot_t *me = &shm.seg.hdr->slots[shm.local_of_world[shm.my_world_rank]];
    atomic_store_explicit(&me->wait_start, start, memory_order_relaxed);
    atomic_store_explicit(&me->wait_seen, seen, memory_order_release);
}

/* Only when the whole job is on this node: processes elsewhere cannot be seen. */
static int shm_peers_waiting(uint64_t now, uint64_t fresh, uint64_t *latest, uint64_t *fingerprint)
{
    if (!shm.seg.hdr || shm.seg.local_size != shm.world_size)
        return 0;
    *latest = 0;
    *fingerprint = 0;
    for (int l = 0; l < shm.seg.local_size; l++) {
        empi_shm_slot_t *s = &shm.seg.hdr->slots[l];
        if (s->world_rank == shm.my_world_rank)
            continue;
        uint64_t seen = atomic_load_explicit(&s->wait_seen, memory_order_acquire);
        uint64_t start = atomic_load_explicit(&s->wait_start, memory_order_relaxed);
        if (start == EMPI_WAIT_LEAVING)
            continue;
        if (start == 0 || seen + fresh < now)
            return 0;
        *latest = start > *latest ? start : *latest;
        *fingerprint = *fingerprint * 1000003u + start;
    }
    return 1;
}

static int shm_put(int peer, const void *local, void *remote, size_t len)
{
    empi_cma_peer_t *cma = cma_peer(peer);
    return cma && empi_cma_write(cma, shm.cma_mode, local, remote, len) == 0 ? EMPI_OK : EMPI_ERROR;
}

static _Atomic uint64_t *shm_shared_line(int owner)
{
    return empi_shm_segment_coop(&shm.seg, shm.local_of_world[owner]);
}

/* Rings have no descriptor to sleep on: with local peers the progress engine must keep polling. */
static int shm_wait_fd(void)
{
    return shm.npeers > 0 ? EMPI_WAIT_POLL : EMPI_WAIT_NOTHING;
}

empi_transport_t empi_transport_shm = {
    .name = "shm",
    .max_packet = 0,
    .has_get = 0,
    .init = shm_init,
    .finalize = shm_finalize,
    .reaches = shm_reaches,
    .progress = shm_progress,
    .am_send = shm_am_send,
    .bulk_send = shm_bulk_send,
    .stream_send = shm_stream_send,
    .eager_send = shm_eager_send,
    .send_fill = shm_send_fill,
    .eager_fits = shm_eager_fits,
    .bulk_expect = shm_bulk_expect,
    .get = shm_get,
    .get_iov = shm_get_iov,
    .publish_wait = shm_publish_wait,
    .peers_waiting = shm_peers_waiting,
    .put = shm_put,
    .shared_line = shm_shared_line,
    .wait_fd = shm_wait_fd,
};
