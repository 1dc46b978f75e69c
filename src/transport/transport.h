/*
 * The transport interface: what the pt2pt and RMA layers need from a way of moving bytes between
 * two processes. shm/, self/, and later tcp/, udp/ and ofi/ implement it; layers above include only
 * this header, never a transport's private one.
 *
 * The model is active messages: a transport moves packets (a small protocol header plus a payload)
 * in FIFO order per pair of processes and hands each arriving packet to the deliver callback given
 * at init. Protocols (eager, rendezvous, synchronous acks) live above, in pt2pt, so every transport
 * gets them for free. A transport that can read a peer's memory directly (CMA, RDMA read) offers
 * `get`, which the rendezvous protocol uses for single-copy transfers.
 */
#ifndef EMPI_TRANSPORT_H
#define EMPI_TRANSPORT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "runtime/bootstrap.h"

/* Status codes of the data path. EMPI_AGAIN means "no room right now, retry after progress". */
enum { EMPI_OK = 0, EMPI_AGAIN = 1, EMPI_ERROR = -1, EMPI_UNREACHABLE = -2 };

/*
 * Called by a transport's progress for every packet that arrives, in order per source.
 * `pkt` is valid only during the call (it may point into a shared ring), so the callee copies what
 * it keeps. `src` is the sender's world rank.
 */
typedef void (*empi_deliver_fn)(int src, const void *pkt, size_t len);

typedef struct empi_transport empi_transport_t;
struct empi_amo;

struct empi_transport {
    const char *name;

    /* Capabilities, valid after init. */
    size_t max_packet;    /* largest hdr+payload that am_send accepts in one packet */
    int has_get;          /* get() available (may still fail per peer; the caller falls back) */
    /* Smallest message whose data a receiver reads with get() (0: any): where get() is slower than
       the transport's own copies except for large messages (shm: a slow CMA). */
    size_t get_min;
    /* Messages of at least this many bytes go by rendezvous even below the eager limit, because
       get() moves them in one copy where eager takes two (0: only the eager limit decides). */
    size_t rndv_min;
    /* Most payload bytes of one rendezvous DATA packet (0: EMPI_RNDV_CHUNK decides). */
    size_t data_chunk;
    /* Optional: 1 if a packet of `len` bytes would go to `peer` right now into memory this core
       already holds (shm: a cell this side read last). Such sends go eagerly whatever the limits
       above: a ping-pong's large messages skip the rendezvous round trip. */
    int (*eager_fits)(int peer, size_t len);

    /*
     * Set up for the job described by `boot`; may use the bootstrap key-value exchange (collective
     * over all ranks, so every transport's init is called on every rank). Returns EMPI_OK or EMPI_ERROR.
     */
    int (*init)(const empi_boot_info_t *boot, empi_deliver_fn deliver);
    int (*finalize)(void);

    /* 1 if this transport carries traffic to world rank `peer`. */
    int (*reaches)(int peer);

    /* Poll for arrivals and push queued work; returns the number of packets delivered. */
    int (*progress)(void);

    /*
     * Send one packet made of the concatenation of iov[0..iovcnt-1] (total <= max_packet), in FIFO
     * order with every earlier packet to `peer`. EMPI_OK: the data was copied or sent, the buffers
     * may be reused. EMPI_AGAIN: nothing was sent; call progress and retry.
     */
    int (*am_send)(int peer, const struct iovec *iov, int iovcnt);

    /*
     * Optional second channel for packets that need no order relative to any other packet
     * (rendezvous data: each carries its request and offset), so a transport can give them bigger
     * packets and their own buffers. bulk_max_packet 0 (or bulk_send NULL): no such channel. The
     * receiver brackets every transfer it expects on it with bulk_expect(peer, +1) and (peer, -1)
     * so the channel is polled only while a transfer is under way.
     */
    size_t bulk_max_packet;
    int (*bulk_send)(int peer, const struct iovec *iov, int iovcnt);
    /* Largest rendezvous message that is faster on the main channel than on bulk when it travels
       alone, nothing else under way at its receiver (0: none). shm: what the pair's cells hold,
       since a ping-pong hands all of them to each sender in turn. */
    size_t lone_max;
    /* Optional: as am_send (bulk_send when `bulk`) of a header iov[0] and payload iov[1], with the
       payload written by non-temporal stores, so the receiver reads it from memory instead of
       from this core's cache (pt2pt/stream_choice.c says when that pays). */
    int (*stream_send)(int peer, int bulk, const struct iovec *iov, int iovcnt);
    /* Optional (NULL: am_send): as am_send, for the header iov[0] and contiguous payload iov[1] of
       a message within the eager limit; the transport may stream one that continues a one-way
       stream. */
    int (*eager_send)(int peer, const struct iovec *iov, int iovcnt);
    void (*bulk_expect)(int peer, int delta);

    /*
     * Optional (NULL: the caller stages the payload and uses am_send/bulk_send). As am_send, or
     * bulk_send when `bulk`, of iov followed by `fill_len` bytes that fill(arg, dst) writes straight
     * into the transport's own buffer: a noncontiguous message is packed once, where it will be
     * read, instead of packed into a staging buffer and copied again. With `stream`, fill is asked
     * to write with non-temporal stores (its third argument) wherever stream_send would stream.
     */
    int (*send_fill)(int peer, int bulk, const struct iovec *iov, int iovcnt, size_t fill_len,
                     void (*fill)(void *arg, void *dst, int stream), void *arg, int stream);

    /*
     * Single-copy read of `len` bytes at `remote` in `peer`'s address space into `local`.
     * Returns EMPI_OK, or EMPI_ERROR if this pair cannot do it (the caller falls back to copies).
     */
    int (*get)(int peer, void *local, const void *remote, size_t len);
    /* Optional: as get, of `peer`'s scattered `remote` ranges in order into the scattered `local`
       ones, as many bytes as the shorter list holds. */
    int (*get_iov)(int peer, const struct iovec *local, size_t nlocal, const struct iovec *remote,
                   size_t nremote);

    /*
     * Optional (NULL: none), for cooperative single copies (pt2pt/coop.c), where both processes of
     * a pair copy parts of one message at once: put is get's other direction, a single-copy write
     * into `peer`'s memory (EMPI_OK or EMPI_ERROR); shared_line(owner) is a cache line of 8 words
     * that this process and every peer this transport reaches can update atomically, one per
     * process (`owner`: this process's world rank or such a peer's; pt2pt/stream_choice.h also
     * keeps two words there).
     */
    int (*put)(int peer, const void *local, void *remote, size_t len);
    _Atomic uint64_t *(*shared_line)(int owner);

    /*
     * Optional (NULL: none). Truly one-sided reads, for one-sided communication: mem_expose makes
     * [base, base + len) readable (and writable, if mem_write exists) by every peer without this
     * process taking part, and fills the
     * key and remote address a peer must name (a handle for mem_unexpose, or NULL on failure);
     * mem_read reads `len` bytes at (raddr, key) of `peer` into `local`, waiting for completion.
     */
    void *(*mem_expose)(void *base, size_t len, uint64_t *key, uint64_t *raddr);
    void (*mem_unexpose)(void *handle, void *base, size_t len);
    int (*mem_read)(int peer, void *local, size_t len, uint64_t raddr, uint64_t key);
    /* Optional: the same for writes; returns once the data is in the peer's memory (delivery
       complete), so a put is finished when it returns. */
    int (*mem_write)(int peer, const void *local, size_t len, uint64_t raddr, uint64_t key);
    /* Optional: an atomic operation on exposed memory (empi_amo_t), complete at the target when
       it returns. EMPI_AGAIN: the transport does not offer this op on this type (use another
       path, always the same for the same op and type); EMPI_ERROR: it failed. */
    int (*mem_atomic)(int peer, const struct empi_amo *a);
    int has_atomic;       /* mem_atomic may be offered (windows record it in their exposure) */
    /* mem_atomic also reaches this process's own memory, and must carry its own accumulates
       there: the transport applies atomics outside the target's MPI calls (in the NIC), so they
       are not atomic with the process's CPU atomics. */
    int atomic_self;

    /*
     * Optional (NULL: always "must be polled"). What the progress engine may sleep on when a
     * process has been idle for a while: a descriptor that becomes readable when this transport has
     * work, EMPI_WAIT_NOTHING when it has no peers to hear from, or EMPI_WAIT_POLL when it can only
     * be polled (shared rings, queued output). Sleeping happens only if no transport says POLL.
     */
    int (*wait_fd)(void);

    /*
     * Optional (NULL: nothing). Packets accepted by am_send that have not yet left this process;
     * MPI_Finalize progresses until every transport reports 0 before its closing fence.
     */
    size_t (*pending)(void);

    /*
     * Optional (NULL: world ranks only). Processes of other jobs (runtime/procs.h) now have indices
     * up to total - 1: reach them too, starting up first if this transport had nothing to do.
     */
    int (*add_peers)(int total);

    /*
     * Optional, both or neither (NULL: this transport cannot tell, and no wait is ever declared
     * hopeless); for the deadlock watch of core/progress.c. publish_wait: this process has waited
     * in MPI with nothing moving since `start` (ns, CLOCK_MONOTONIC; EMPI_WAIT_LEAVING: it is in
     * MPI_Finalize's closing barrier), and looked again at `seen`. peers_waiting: 1 when every peer
     * this transport reaches is leaving, or was seen waiting no longer than `fresh` ns ago; then
     * *latest is the latest start among those waiting (0 if none) and *fingerprint changes whenever
     * one of them starts another wait.
     */
    void (*publish_wait)(uint64_t start, uint64_t seen);
    int (*peers_waiting)(uint64_t now, uint64_t fresh, uint64_t *latest, uint64_t *fingerprint);
};
#define EMPI_WAIT_LEAVING UINT64_MAX

enum { EMPI_WAIT_POLL = -1, EMPI_WAIT_NOTHING = -2 };

/* One atomic operation on `count` elements of exposed memory (mem_atomic). */
enum { EMPI_AMO_ACC, EMPI_AMO_FETCH, EMPI_AMO_CSWAP };                           /* kind */
enum { EMPI_AMO_SIGNED, EMPI_AMO_UNSIGNED, EMPI_AMO_FLOAT };                      /* type */
enum {                                                                           /* op */
    EMPI_AMO_SUM, EMPI_AMO_PROD, EMPI_AMO_MIN, EMPI_AMO_MAX, EMPI_AMO_LAND, EMPI_AMO_LOR, EMPI_AMO_LXOR,
    EMPI_AMO_BAND, EMPI_AMO_BOR, EMPI_AMO_BXOR, EMPI_AMO_REPLACE, EMPI_AMO_READ
};
typedef struct empi_amo {
    int kind, op, type;
    size_t esize;            /* bytes per element: 1, 2, 4, 8 */
    size_t count;
    const void *origin;      /* operand (unused by READ) */
    const void *compare;     /* CSWAP */
    void *result;            /* FETCH, CSWAP: the target's previous values */
    uint64_t raddr, key;
} empi_amo_t;

/* Transports compiled in, in order of preference for a peer; the first that reaches it wins. */
extern empi_transport_t empi_transport_self;
extern empi_transport_t empi_transport_shm;
/* To other hosts (which one reaches a given peer: transport/net_select.h). */
extern empi_transport_t empi_transport_tcp;
extern empi_transport_t empi_transport_udp; /* a stub that fails init when udp/ is not built */
extern empi_transport_t empi_transport_ofi; /* libfabric; a stub likewise when ofi/ is not built */

/* Make indices [0, total) reachable: processes of other jobs go over tcp, started on demand
   (core/init.c). An MPI error class. */
int empi_transport_add_peers(int total);

#endif
