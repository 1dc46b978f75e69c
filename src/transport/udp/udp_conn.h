/*
 * The reliability machinery of the UDP transport, one `udp_conn_t` per peer, independent of
 * sockets: the send side (udp_tx.c) turns packets into sequenced segments, keeps them until they are
 * acknowledged and retransmits on timeout or on a selective-ack hole; the receive side (udp_rx.c)
 * suppresses duplicates, holds early datagrams until the gap before them is filled, delivers in
 * order and decides when to acknowledge; udp_segment.c cuts packets into segments and glues them
 * back. Everything reaches the outside world through a `udp_engine_t` (transmit, deliver, clock),
 * so the unit tests run two engines over a simulated lossy link in one process.
 */
#ifndef EMPI_UDP_CONN_H
#define EMPI_UDP_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "transport/transport.h"
#include "transport/udp/udp_wire.h"

/* Receive-side reorder slots per peer: the most datagrams we accept beyond the first missing one. */
#define UDP_RX_SLOTS 1024u
/* Most datagrams in flight to one peer (the byte window, EMPI_UDP_WINDOW, usually binds first for
   large datagrams; this bound for small ones). Must stay below UDP_RX_SLOTS. */
#define UDP_MAX_INFLIGHT 512u
/* The congestion window never shrinks below this many datagrams. */
#define UDP_MIN_WINDOW 8u
/* In-order datagrams received before a standalone ack goes out without waiting for the delay. */
#define UDP_ACK_EVERY 16u
/* Datagrams handed to one transmit call (one sendmmsg). */
#define UDP_BATCH 32

/* A packet kept for retransmission until all its segments are acknowledged. */
typedef struct udp_txpkt {
    uint32_t unacked; /* segments not yet acknowledged; the packet is freed at 0 */
    uint32_t len;
    _Alignas(16) unsigned char data[];
} udp_txpkt_t;

typedef struct udp_txseg {
    udp_txpkt_t *pkt;
    uint32_t off, len; /* this segment's bytes within pkt->data */
    uint8_t flags;     /* UDP_F_FIRST / UDP_F_LAST */
    uint8_t sacked;    /* the receiver holds it (selective ack): never resend */
    uint16_t ntx;      /* transmissions so far (RTT samples only from segments sent once) */
    uint64_t last_tx;  /* ns */
} udp_txseg_t;

typedef struct udp_tx {
    udp_txseg_t *ring; /* indexed by seq & mask; allocated at the first send */
    uint32_t mask;
    uint32_t una;      /* oldest unacknowledged segment */
    uint32_t snd;      /* next segment never transmitted */
    uint32_t nxt;      /* next sequence number to assign; una <= snd <= nxt */
    uint32_t seg_max;  /* payload bytes per segment to this peer (datagram minus our header) */
    uint32_t wnd_max;  /* our own limit of segments in flight */
    size_t inflight;   /* bytes of segments in [una, snd): bounded by the engine's window_bytes */
    uint32_t cwnd;     /* congestion window: halved on timeout, regrown by acks */
    uint32_t peer_wnd; /* the receiver's advertised window */
    size_t queued;     /* bytes of packets not yet fully acknowledged */
    uint64_t srtt, rttvar, rto; /* ns; srtt 0 until the first sample */
    uint64_t rto_at;   /* retransmission deadline, 0 when nothing is in flight */
    uint64_t rack_tx;  /* latest transmission time known to have arrived ... */
    uint32_t rack_seq; /* ... and its segment: anything unacked sent before it was lost */
} udp_tx_t;

typedef struct udp_rxslot {
    unsigned char *data; /* a copy of an early datagram's payload; NULL when empty */
    uint32_t len, pkt_len, seq;
    uint8_t flags;
} udp_rxslot_t;

typedef struct udp_rx {
    uint32_t nxt;         /* next sequence number to deliver */
    udp_rxslot_t *slots;  /* UDP_RX_SLOTS, allocated at the first early datagram */
    uint32_t held;        /* early datagrams in slots */
    /* Reassembly of the packet being received. */
    unsigned char *buf;
    size_t cap, pkt_len, fill;
    int in_packet;
    /* Acknowledgement state. */
    uint32_t unacked;     /* datagrams received since our last ack ... */
    size_t unacked_bytes; /* ... and their bytes */
    uint64_t ack_at;      /* deadline of a delayed standalone ack, 0 none */
    int ack_now;          /* send an ack at the end of this progress pass */
} udp_rx_t;

typedef struct udp_conn {
    int peer; /* world rank */
    udp_tx_t tx;
    udp_rx_t rx;
    int active;                /* on the engine's active list (timers or queued output) */
    struct udp_conn *next_active;
    void *addr;                /* the transport's address of the peer (opaque here) */
    uint64_t heard_at;         /* ns: the peer's latest datagram (or our first timeout) */
    uint64_t busy_since;       /* ns: when we last began sending with nothing in flight */
    int silence_told;          /* the user was told this peer went silent */
} udp_conn_t;

/* One outgoing datagram: header plus one contiguous piece of a kept packet. */
typedef struct udp_dgram {
    udp_hdr_t hdr;
    struct iovec data;
} udp_dgram_t;

typedef struct udp_engine {
    uint32_t job;
    int me;
    uint64_t now; /* ns, refreshed by the caller before each call into the machinery */
    /* Transmit n datagrams to c's peer; returns how many left (the rest are retried later). */
    int (*xmit)(struct udp_engine *e, udp_conn_t *c, udp_dgram_t *d, int n);
    empi_deliver_fn deliver;
    void *ctx;
    /* Parameters (ns, bytes). */
    uint64_t rto_min, rto_max, rto_init, ack_delay;
    size_t window_bytes;
    size_t max_packet;
    uint32_t first_seq;  /* initial sequence number of every stream (tests start near the wrap) */
    udp_conn_t *active;  /* conns with something in flight, queued or to acknowledge */
    /* ns: the latest timer pass, and the latest one after this process spent a while outside MPI
       (nothing was resent meanwhile, so a silence counts from there) */
    uint64_t timers_at, resumed_at;
    /* Counters for diagnostics and tests. */
    uint64_t n_sent, n_retx, n_timeouts, n_dup, n_early, n_acks_sent, n_probes;
} udp_engine_t;

/* Set up c for `peer` with segments of seg_max payload bytes. */
void udp_conn_init(udp_engine_t *e, udp_conn_t *c, int peer, uint32_t seg_max);
void udp_conn_fini(udp_conn_t *c);
/* Put c on the engine's active list (idempotent). */
void udp_conn_activate(udp_engine_t *e, udp_conn_t *c);

/* Send side (udp_tx.c). */
int udp_tx_send(udp_engine_t *e, udp_conn_t *c, const struct iovec *iov, int iovcnt, size_t len);
void udp_tx_pump(udp_engine_t *e, udp_conn_t *c);
void udp_tx_on_ack(udp_engine_t *e, udp_conn_t *c, uint32_t ack, uint64_t sack, uint16_t wnd);
void udp_tx_on_timer(udp_engine_t *e, udp_conn_t *c);
/* Free every kept packet and the ring (finalize). */
void udp_tx_release_all(udp_tx_t *tx);
/* Segments accepted but not yet acknowledged. */
static inline uint32_t udp_tx_pending(const udp_conn_t *c) { return c->tx.nxt - c->tx.una; }

/* Receive side (udp_rx.c). Returns the number of packets delivered. */
int udp_rx_on_data(udp_engine_t *e, udp_conn_t *c, const udp_hdr_t *h, const void *payload, size_t len);
/* Fill the ack fields of an outgoing header (and count the ack as sent). */
void udp_rx_fill_ack(udp_engine_t *e, udp_conn_t *c, udp_hdr_t *h);
/* Send a standalone ack now, with `flags` (UDP_F_ACKREQ: answer it at once); 1 if it left. */
int udp_rx_send_ack(udp_engine_t *e, udp_conn_t *c, uint8_t flags);
/* Send a standalone ack if one is due now. */
void udp_rx_on_timer(udp_engine_t *e, udp_conn_t *c);
/* Free held datagrams and the reassembly buffer (finalize). */
void udp_rx_release_all(udp_rx_t *rx);
static inline int udp_rx_ack_pending(const udp_conn_t *c) { return c->rx.ack_now || c->rx.ack_at; }

/* One datagram from c's peer: its ack state to the send side, data to the receive side, and an
   ACK with UDP_F_ACKREQ (a probe of a sender whose timeout found nothing to resend) answered.
   Returns the packets delivered. */
int udp_conn_receive(udp_engine_t *e, udp_conn_t *c, const udp_hdr_t *h, const void *payload, size_t len);
/* Timers and queued output of every active conn; drops conns that went idle from the list. */
void udp_engine_poll_timers(udp_engine_t *e);

/* Segmentation and reassembly (udp_segment.c). */
static inline uint32_t udp_seg_count(size_t len, uint32_t seg_max)
{
    return len == 0 ? 1 : (uint32_t)((len + seg_max - 1) / seg_max);
}
/* Describe pkt's nseg segments in the ring slots from tx->nxt on. */
void udp_seg_split(udp_tx_t *tx, udp_txpkt_t *pkt, uint32_t nseg);
/* Where the next in-order segment of the packet being reassembled goes (NULL: none under way). */
void *udp_reasm_target(udp_rx_t *rx, size_t *room);
/* Add one in-order segment; delivers the packet when complete. Returns packets delivered (0/1). */
int udp_reasm_push(udp_engine_t *e, udp_conn_t *c, uint8_t flags, uint32_t pkt_len, const void *data, size_t len);
void udp_reasm_fini(udp_rx_t *rx);

#endif
