/*
 * Wire format of the point-to-point protocols, the same on every transport.
 *
 *   eager      EAGER(+payload)                      message fits one packet
 *   sync eager EAGER_SYNC(+payload) -> SYNC_ACK    Ssend: completes when the match is acknowledged
 *   rendezvous RTS -> (receiver reads with get) -> FIN
 *              RTS -> COOP -> (both copy chunks, claimed in shared memory) -> FIN
 *              RTS -> CTS -> DATA... (copy pipeline, when single-copy is impossible)
 *   cancel     CANCEL -> CANCEL_ACK(ok)            MPI_Cancel of a sync or rendezvous send: the
 *              receiver drops the RTS / sync eager if no receive has matched it yet (ok = 1)
 *
 * Request ids are the sender's or receiver's request addresses, echoed back untouched.
 * The eager header is 16 bytes so that an 8-byte message plus the transport's own header fits in
 * one 64-byte cache line.
 */
#ifndef EMPI_PROTO_H
#define EMPI_PROTO_H

#include <stdint.h>

enum {
    EMPI_PKT_EAGER = 1,
    EMPI_PKT_EAGER_SYNC,
    EMPI_PKT_RTS,
    EMPI_PKT_CTS,
    EMPI_PKT_DATA,
    EMPI_PKT_FIN,
    EMPI_PKT_SYNC_ACK,
    EMPI_PKT_COOP,
    EMPI_PKT_CANCEL,
    EMPI_PKT_CANCEL_ACK,
    /* Packets of layers above pt2pt, handed whole to the handler they registered (pt2pt.h). */
    EMPI_PKT_RMA = 32,
};

/* RTS flags */
#define EMPI_RTS_GETTABLE 0x1   /* sender's data is contiguous at `addr`: the receiver may read it */
#define EMPI_RTS_SYNC 0x2
#define EMPI_RTS_GETTABLE_RUNS 0x4   /* noncontiguous: `addr` holds `runs` struct iovec, the message's
                                        bytes in order in the sender's memory; the receiver may read them */
#define EMPI_RTS_EXCHANGE 0x8   /* the sender is receiving too (one or two receives posted or waiting
                                   for data): half of an exchange (recv.c in_exchange, travels_alone) */

typedef struct empi_hdr_match {
    uint8_t type;
    uint8_t flags;
    uint16_t reserved;
    uint32_t ctx;
    int32_t src;   /* sender's rank in the communicator */
    int32_t tag;
} empi_hdr_match_t;

typedef struct empi_hdr_eager_sync {
    empi_hdr_match_t m;
    uint64_t sreq;
} empi_hdr_eager_sync_t;

typedef struct empi_hdr_rts {
    empi_hdr_match_t m;
    uint64_t sreq;
    uint64_t bytes;
    uint64_t addr;
    uint64_t runs;   /* EMPI_RTS_GETTABLE_RUNS */
} empi_hdr_rts_t;

#define EMPI_CTS_BULK 0x1       /* send the DATA packets on the transport's bulk channel */
#define EMPI_CTS_STREAM 0x2     /* write their payload with the transport's stream_send */

typedef struct empi_hdr_cts {
    uint8_t type;
    uint8_t flags;
    uint8_t reserved[6];
    uint64_t sreq;
    uint64_t rreq;
} empi_hdr_cts_t;

typedef struct empi_hdr_data {
    uint8_t type;
    uint8_t reserved[7];
    uint64_t rreq;
    uint64_t offset;
} empi_hdr_data_t;

/* Receiver to sender: help copy `bytes` from saddr (the RTS's addr) to raddr in chunks claimed
   from the receiver's shared line while its generation is still `gen` (pt2pt/coop.c). */
typedef struct empi_hdr_coop {
    uint8_t type;
    uint8_t reserved[3];
    uint32_t gen;
    uint64_t saddr;
    uint64_t raddr;
    uint64_t bytes;
    uint64_t chunk;
} empi_hdr_coop_t;

/* FIN and SYNC_ACK */
typedef struct empi_hdr_ack {
    uint8_t type;
    uint8_t ok;            /* CANCEL_ACK: the message was withdrawn */
    uint8_t reserved[6];
    uint64_t sreq;
} empi_hdr_ack_t;

#endif
