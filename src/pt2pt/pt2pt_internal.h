/* State shared by the point-to-point protocol files (send, receive, outgoing queues). */
#ifndef EMPI_PT2PT_INTERNAL_H
#define EMPI_PT2PT_INTERNAL_H

#include "pt2pt/match.h"
#include "pt2pt/proto.h"
#include "pt2pt/pt2pt.h"
#include "transport/transport.h"

/* Send request protocol states (req->proto_state). */
enum {
    EMPI_SEND_EAGER_QUEUED = 1,  /* waiting in the peer's outgoing queue to go out eagerly */
    EMPI_SEND_RTS_QUEUED,        /* waiting to send its RTS */
    EMPI_SEND_WAIT_ACK,          /* RTS or sync eager sent: waiting for FIN/CTS/SYNC_ACK */
    EMPI_SEND_DATA,              /* streaming DATA packets after a CTS */
    EMPI_SEND_DATA_BULK,         /* the same on the transport's bulk channel (CTS said so) */
};

/* Recv request protocol states. */
enum { EMPI_RECV_POSTED = 1, EMPI_RECV_DATA };

/* Most sends in flight (or receives posted or waiting for data) for a rank's rendezvous to count as
   half of an exchange (recv.c in_exchange, send.c's EXCHANGE flag): a window of them (bibw) moves
   faster by single copy than through one ring each way. */
#define EMPI_EXCHANGE_MAX_PENDING 2

/* A control packet (CTS, FIN, SYNC_ACK) or a send request waiting for room towards one peer. */
typedef struct empi_outq_item {
    struct empi_outq_item *next;
    empi_request_t *req;             /* NULL: control packet in `ctrl` */
    uint32_t len;
    union {
        empi_hdr_cts_t cts;
        empi_hdr_ack_t ack;
        empi_hdr_coop_t coop;
    } ctrl;
} empi_outq_item_t;

typedef struct empi_outq {
    empi_outq_item_t *head, *tail;
    int listed;                      /* in the list of peers with pending items */
} empi_outq_t;

typedef struct empi_pt2pt {
    empi_posted_queue_t posted;
    empi_unexpected_queue_t unexpected;
    int npeers;                      /* entries of the per-peer arrays (runtime/procs.h indices) */
    empi_transport_t **peer_tp;      /* world rank -> transport reaching it */
    empi_outq_t *outq;               /* world rank -> queue of what waits for room */
    int *busy_peers;                 /* world ranks whose outq is not empty */
    int nbusy;
    int inflight_sends;              /* sends not complete yet (Finalize drains them) */
    int rndv_recvs;                  /* matched rendezvous receives waiting for their data */
    unsigned char *scratch;          /* packing space of one packet */
    size_t scratch_size;
} empi_pt2pt_t;

extern empi_pt2pt_t empi_p2p;

empi_transport_t *empi_transport_for(int world_rank);

/* Start a prepared send/receive request (fresh or persistent). */
int empi_send_start(empi_request_t *req);
int empi_recv_start(empi_request_t *req);

/* Queue a control packet to `peer` behind anything already waiting for it, or send it now. */
void empi_send_ctrl(int peer, const void *pkt, size_t len);
/* Queue a send request whose next packet could not go out. */
void empi_outq_push_req(int peer, empi_request_t *req);
_Noreturn void empi_outq_send_failed(int peer);
/* Try to push one send request's next packet(s); EMPI_OK when it needs nothing more now. */
int empi_send_push(empi_request_t *req);
int empi_outq_progress(void);

/* Receive side: hand a matched message to a receive request. */
void empi_recv_matched_unexpected(empi_request_t *req, empi_unexpected_t *msg);
void empi_send_complete(empi_request_t *req);
/* The first `bytes` of (buf, count, dt) as iovec runs in message order (malloc'd, *n entries), or
   NULL when the runs would average under EMPI_SHM_CMA_RUN_MIN bytes (pt2pt/runs.c). */
struct iovec *empi_pt2pt_runs(const void *buf, MPI_Count count, const empi_datatype_t *dt, uint64_t bytes,
                              size_t *n);

/* Release an unexpected message record (and its payload). */
void empi_unexpected_free(empi_unexpected_t *msg);
/* Drop the RTS or synchronous eager of send `sreq` from `world_src` if no receive has matched it
   (MPI_Cancel of that send); 1 if it was there. */
int empi_unexpected_withdraw(int world_src, uint64_t sreq);

#endif
