/*
 * The UDP transport's datagram format. Every datagram starts with this header: the sender, a
 * sequence number for data, and the acknowledgement state of the reverse direction (cumulative ack,
 * a 64-bit selective-ack bitmap and the receive window), so acks ride on whatever traffic flows back
 * and a standalone ACK datagram is only needed when nothing does. Fields are in host byte order: a
 * job runs on hosts of one architecture, and the job tag rejects datagrams of any other job.
 */
#ifndef EMPI_UDP_WIRE_H
#define EMPI_UDP_WIRE_H

#include <stdint.h>

enum { UDP_T_DATA = 1, UDP_T_ACK = 2 };

/* Segment position within its packet; ACKREQ asks the receiver to acknowledge without delay
   (the sender's window is about to close). */
enum { UDP_F_FIRST = 1, UDP_F_LAST = 2, UDP_F_ACKREQ = 4 };

typedef struct udp_hdr {
    uint32_t job;     /* tag of the job: stray datagrams from other jobs are dropped */
    uint32_t src;     /* sender's world rank */
    uint8_t type;     /* UDP_T_* */
    uint8_t flags;    /* UDP_F_* (data) */
    uint16_t wnd;     /* datagrams beyond `ack` the sender of this header will accept from us */
    uint32_t seq;     /* data: sequence number of this datagram in the src->dst stream */
    uint32_t ack;     /* every datagram of the reverse stream before this one has arrived */
    uint32_t pkt_len; /* data: length of the whole packet this datagram is a segment of */
    uint64_t sack;    /* bit i set: datagram ack + 1 + i of the reverse stream has arrived */
} udp_hdr_t;

#define UDP_SACK_BITS 64   /* datagrams past the cumulative ack an ack can report */

_Static_assert(sizeof(udp_hdr_t) == 32, "the UDP header is 32 bytes on the wire");

/* IPv4 and UDP headers in front of our datagram: payload = MTU - 28. */
#define UDP_IP_OVERHEAD 28
/* Largest UDP payload over IPv4. */
#define UDP_MAX_DATAGRAM 65507

/* Sequence numbers wrap: compare them as distances (RFC 1982 serial arithmetic). */
static inline int udp_seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline int udp_seq_le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }

#endif
