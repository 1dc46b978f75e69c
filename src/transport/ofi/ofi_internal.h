/*
 * Private state of the libfabric netmod (docs/OFI.md), shared by its files:
 *   ofi.c           the transport object: set-up, address exchange, finalize, am_send
 *   ofi_provider.c  which provider (fi_getinfo hints, automatic choice, listing for empi-info)
 *   ofi_cq.c        completion polling: arrivals, credits, deferral while a read waits
 *   ofi_get.c       rendezvous reads (fi_read) with keys fetched from the owner
 *   ofi_mr.c        the memory-registration cache (API in ofi_mr.h, for the RMA layer too)
 *   ofi_dl.c        libfabric opened with dlopen at first use
 *
 * Every packet on the wire starts with a 16-byte ofi_hdr_t: libfabric's RDM endpoints do not say who
 * sent a message without FI_SOURCE, and the header also carries flow-control credits, the kind of
 * control packet (key requests of the read protocol) and the sequence number of DATA packets.
 */
#ifndef EMPI_OFI_INTERNAL_H
#define EMPI_OFI_INTERNAL_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>

#include "transport/ofi/ofi_mr.h"
#include "transport/transport.h"

enum {
    OFI_PKT_DATA = 1, /* a packet of the layer above */
    OFI_PKT_CREDIT,   /* credits only */
    OFI_PKT_KEY_REQ,  /* "register [addr, addr+len) for my read", ofi_key_req_t */
    OFI_PKT_KEY_REP,  /* the key, ofi_key_rep_t */
    OFI_PKT_KEY_REL,  /* "my read is done", ofi_key_rel_t */
};

/* Wire packets are padded to a multiple of 8 bytes: multi-receive buffers pack arrivals back to
   back, and the layer above reads its headers in place, so every packet must start aligned. */
#define OFI_ALIGN 8

typedef struct {
    uint32_t src;     /* sender's world rank */
    uint8_t kind;     /* OFI_PKT_* */
    uint8_t pad;      /* bytes of padding at the end of the packet */
    uint16_t credits; /* DATA packets of the receiver's the sender has consumed since last said */
    /* DATA: the packet's place among the sender's to this receiver. FI_ORDER_SAS orders sends, not
       their completions: ofi_rxm completes a message above its eager size (its own rendezvous)
       after smaller ones sent later, and MPI's messages must not overtake each other. */
    uint32_t seq;
    uint32_t reserved_;
} ofi_hdr_t;

typedef struct {
    ofi_hdr_t h;
    uint64_t addr, len, token;
} ofi_key_req_t;

typedef struct {
    ofi_hdr_t h;
    uint64_t token, key, raddr, handle;
    uint64_t ok;
} ofi_key_rep_t;

typedef struct {
    ofi_hdr_t h;
    uint64_t handle;
} ofi_key_rel_t;

#define OFI_TX_SMALL 256 /* injected sends in flight */
#define OFI_TX_BIG 32    /* bounce slots for larger packets */

/* A send too big to inject: its context (FI_CONTEXT providers own it until completion) and its
   slot of the registered bounce slab. */
typedef struct ofi_tx {
    struct fi_context2 ctx; /* first: completions hand back its address */
    struct ofi_tx *next;
    char *buf;
} ofi_tx_t;

/* A posted receive buffer (multi-receive or one packet). */
typedef struct ofi_rx {
    struct fi_context2 ctx;
    char *buf;
    size_t size;
    struct ofi_rx *next_repost;
} ofi_rx_t;

/* A packet that arrived while a read was waiting; delivered later, in order. */
typedef struct ofi_deferred {
    struct ofi_deferred *next;
    uint32_t seq;
    int src;
    size_t len;
    char data[];
} ofi_deferred_t;

/* A control packet that found the send queue full; retried by progress. */
typedef struct ofi_ctrl {
    struct ofi_ctrl *next;
    int peer;
    size_t len;
    char data[64];
} ofi_ctrl_t;

typedef struct {
    int up;
    int me, size;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    fi_addr_t *addr;        /* per world rank (FI_ADDR_NOTAVAIL: not an ofi peer) */
    empi_deliver_fn deliver;

    size_t inject_limit;    /* largest wire packet sent with FI_INJECT */
    size_t wire_max;        /* largest wire packet: header + max_packet */
    int multi_recv;

    /* Sends. */
    struct fi_context2 small_ctx[OFI_TX_SMALL];
    unsigned small_next, small_inflight;
    ofi_tx_t *tx_big_free;
    ofi_tx_t *tx_all;
    char *tx_slab;
    empi_ofi_mr_t *tx_mr;
    size_t inflight;        /* sends posted, completion not yet seen */
    int quiet_inject;       /* small packets by fi_inject, without a completion */
    unsigned char *unflushed; /* per peer: quiet packets sent since its last flush packet */
    int nunflushed;
    ofi_ctrl_t *ctrl_head, *ctrl_tail;

    /* Receives. */
    ofi_rx_t *rx;
    int nrx;
    char *rx_slab;
    empi_ofi_mr_t *rx_mr;
    ofi_rx_t *repost;       /* used-up buffers to post again */
    ofi_rx_t *busy_rx;      /* holds the packet being delivered: not reposted until it returns */

    /* Flow control: DATA packets each side may still send / has consumed and not yet credited. */
    int window;
    int *tx_credits;
    int *owed;

    /* Order of DATA packets per peer: next to send, next to pass up, and early arrivals by seq. */
    uint32_t *tx_seq, *rx_seq;
    ofi_deferred_t **early;

    /* Read protocol and deferral. */
    int depth;              /* > 0 while a get() waits for its key or its read */
    ofi_deferred_t *def_head, *def_tail;
    uint64_t next_token;
    uint64_t reads;         /* completed rendezvous reads, for diagnostics */
    uint64_t rma_reads;     /* completed one-sided reads of windows, for diagnostics */
    uint64_t rma_writes;    /* ... and writes */
    uint64_t rma_atomics;   /* ... and atomics */
    int can_write;          /* the provider does fi_write (and EMPI_OFI_RMA_WRITE allows it) */
    int can_atomic;         /* the provider does fi_atomic (and EMPI_OFI_RMA_ATOMIC allows it) */
    fi_addr_t self_addr;    /* our own endpoint, for atomics on our own memory (EMPI_OFI_ATOMIC_SELF) */

    uint64_t drain_deadline;
} ofi_state_t;

extern ofi_state_t O;

/* ofi_provider.c */
/* EMPI_OFI_RMA_ATOMIC for this provider string (NULL: any). */
int empi_ofi_atomic_wanted(const char *provider);
/* EMPI_OFI_ATOMIC_SELF for this provider string. */
int empi_ofi_atomic_self_wanted(const char *provider);
int empi_ofi_quiet_inject_wanted(const char *provider); /* EMPI_OFI_QUIET_INJECT, resolved */
struct fi_info *empi_ofi_getinfo(const char *provider, int quiet);
const char *empi_ofi_prov_core(const struct fi_info *fi, char *buf, size_t len);

/* ofi_cq.c */
int empi_ofi_poll(void);                /* handle arrivals and completions; events */
int empi_ofi_post_rx(ofi_rx_t *rx);
int empi_ofi_send_ctrl(int peer, void *pkt, size_t len); /* queued when the provider is busy */
int empi_ofi_post_send(int peer, const void *wire, size_t len, int inject); /* EMPI_OK / EMPI_AGAIN */
uint16_t empi_ofi_take_owed(int peer);
int empi_ofi_flush_quiet(void);         /* flush packets still owed; how many are */
int empi_ofi_wait_reply(volatile int *flag);   /* poll (deferring DATA) until *flag */

/* ofi_get.c */
int empi_ofi_get(int peer, void *local, const void *remote, size_t len);
void *empi_ofi_mem_expose(void *base, size_t len, uint64_t *key, uint64_t *raddr);
void empi_ofi_mem_unexpose(void *handle, void *base, size_t len);
int empi_ofi_mem_read(int peer, void *local, size_t len, uint64_t raddr, uint64_t key);
int empi_ofi_mem_write(int peer, const void *local, size_t len, uint64_t raddr, uint64_t key);
int empi_ofi_mem_atomic(int peer, const empi_amo_t *a);   /* ofi_atomic.c */
/* Post one operation (post(arg, ctx), retried while the provider says EAGAIN) whose completion
   carries ctx, and wait for it: 0 or a libfabric error, reported as `what`. One at a time. */
typedef ssize_t (*ofi_post_fn)(void *arg, void *ctx);
int empi_ofi_complete_one(ofi_post_fn post, void *arg, const char *what);
/* The peer's memory can be reached now (up, addressed, no other one-sided operation waiting). */
int empi_ofi_can_reach_memory(int peer);
/* The address one-sided operations on peer's memory go to: our own endpoint for ourselves. */
static inline fi_addr_t empi_ofi_mem_addr(int peer)
{
    return peer == O.me ? O.self_addr : O.addr[peer];
}
void empi_ofi_on_key_req(int src, const ofi_key_req_t *req);
void empi_ofi_on_key_rep(const ofi_key_rep_t *rep);
void empi_ofi_on_read_done(void *ctx, int err);
int empi_ofi_is_read_ctx(void *ctx);

/* Error text of a failed call, for diagnostics. */
void empi_ofi_warn(const char *call, int rc);

#endif
