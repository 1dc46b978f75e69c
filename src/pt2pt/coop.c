/*
 * Cooperative single copy. A large message between two processes on one node moves in one copy
 * (CMA), but a lone reader copies at the speed of one core while the sender sits waiting in MPI.
 * Here the receiver opens a new generation of its shared line, asks the sender to help (COOP)
 * and claims chunks from the line one at a time, reading each; a sender that handles the COOP
 * while it is still current claims chunks from the same line and writes them into the receiver's
 * buffer. Whoever claims a chunk copies it, and counts it when done; the receiver returns once
 * every chunk is counted. A sender busy elsewhere costs only the packet: the receiver takes every
 * chunk. A COOP handled after its transfer ended finds the chunks all claimed or another
 * generation and does nothing, so a buffer the receiver has handed back to its user is never
 * written. The sender's buffer stays valid until the FIN, which follows the last count.
 *
 * The shared line (transport shared_line, owned by the receiver): word 0 = generation << 32 |
 * next chunk to claim, word 1 = chunks copied, word 2 = a helper's write failed.
 */
#include "pt2pt/coop.h"

#include <sched.h>
#include <stdatomic.h>

#include "core/global.h"
#include "core/tunables.h"
#include "pt2pt/pt2pt_internal.h"
#include "pt2pt/stats.h"

enum { CLAIM, COPIED, FAILED };

/* At least 8 chunks, so both sides get work; at least 16 KiB each, so a system call's cost stays
   small next to its copy. */
#define COOP_MIN_CHUNK (16 * 1024)
#define COOP_MAX_CHUNK (256 * 1024)

static uint32_t generation;

/* The next unclaimed chunk of generation gen, or -1 when there is none (or gen is over). */
static int64_t claim(_Atomic uint64_t *line, uint32_t gen, uint64_t nchunks)
{
    uint64_t v = atomic_load_explicit(&line[CLAIM], memory_order_acquire);
    for (;;) {
        if ((uint32_t)(v >> 32) != gen || (v & 0xffffffffu) >= nchunks)
            return -1;
        if (atomic_compare_exchange_weak_explicit(&line[CLAIM], &v, v + 1, memory_order_acq_rel,
                                                  memory_order_acquire))
            return (int64_t)(v & 0xffffffffu);
    }
}

static uint64_t chunk_for(uint64_t bytes)
{
    uint64_t c = bytes / 8;
    c = c < COOP_MIN_CHUNK ? COOP_MIN_CHUNK : c > COOP_MAX_CHUNK ? COOP_MAX_CHUNK : c;
    return (c + 4095) & ~(uint64_t)4095;
}

int empi_coop_recv(int world_src, void *local, uint64_t remote, uint64_t len)
{
    empi_transport_t *tp = empi_p2p.peer_tp[world_src];
    /* A receiver with sends of its own in flight is in an exchange (bibw, sendrecv, a ring shift),
       and its senders are busy reading too: asking them to help only splits the copy into chunks
       (bibw 64-512 KiB 0.7-0.8 of one reader). */
    if (!empi_tunables.shm_coop_min || len < empi_tunables.shm_coop_min || !tp->has_get || !tp->put ||
        !tp->shared_line || empi_p2p.inflight_sends > 0)
        return -1;
    _Atomic uint64_t *line = tp->shared_line(empi_g.boot.rank);
    if (++generation == 0)
        generation = 1;   /* a line fresh from the segment reads as generation 0 */
    uint64_t chunk = chunk_for(len), nchunks = (len + chunk - 1) / chunk;
    atomic_store_explicit(&line[COPIED], 0, memory_order_relaxed);
    atomic_store_explicit(&line[FAILED], 0, memory_order_relaxed);
    atomic_store_explicit(&line[CLAIM], (uint64_t)generation << 32, memory_order_release);
    empi_hdr_coop_t h = {.type = EMPI_PKT_COOP, .gen = generation, .saddr = remote,
                         .raddr = (uint64_t)(uintptr_t)local, .bytes = len, .chunk = chunk};
    empi_send_ctrl(world_src, &h, sizeof h);

    int failed = 0;
    for (int64_t k; (k = claim(line, generation, nchunks)) >= 0;) {
        uint64_t off = (uint64_t)k * chunk, n = len - off < chunk ? len - off : chunk;
        if (!failed && tp->get(world_src, (char *)local + off, (const void *)(uintptr_t)(remote + off), n) != EMPI_OK)
            failed = 1;
        atomic_fetch_add_explicit(&line[COPIED], 1, memory_order_release);
    }
    /* The sender may still be copying a chunk it claimed: a few microseconds, unless it lost its
       core, hence the yield. */
    for (int spins = 0; atomic_load_explicit(&line[COPIED], memory_order_acquire) < nchunks; spins++)
        if (spins > 64)
            sched_yield();
    empi_pt2pt_stats.coop_recvs++;
    return failed || atomic_load_explicit(&line[FAILED], memory_order_acquire) ? -1 : 0;
}

void empi_coop_help(int world_dst, const empi_hdr_coop_t *h)
{
    empi_transport_t *tp = empi_p2p.peer_tp[world_dst];
    if (!tp->has_get || !tp->put || !tp->shared_line)   /* CMA off here: leave it all to the receiver */
        return;
    _Atomic uint64_t *line = tp->shared_line(world_dst);
    uint64_t nchunks = (h->bytes + h->chunk - 1) / h->chunk;
    for (int64_t k; (k = claim(line, h->gen, nchunks)) >= 0;) {
        uint64_t off = (uint64_t)k * h->chunk, n = h->bytes - off < h->chunk ? h->bytes - off : h->chunk;
        if (tp->put(world_dst, (const char *)(uintptr_t)(h->saddr + off), (char *)(uintptr_t)(h->raddr + off), n) !=
            EMPI_OK)
            atomic_store_explicit(&line[FAILED], 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&line[COPIED], 1, memory_order_release);
        empi_pt2pt_stats.coop_chunks_helped++;
    }
}
