/*
 * State of the tcp transport, shared by its files:
 *   tcp.c          the transport table: init, finalize, progress, waiting
 *   tcp_connect.c  listener, address records, connection setup and the simultaneous-connect rule
 *   tcp_send.c     am_send: one sendmsg per packet, per-peer backlog of what the socket refused
 *   tcp_recv.c     framing and delivery of arriving packets
 *
 * Wire format of a connection: a handshake (tcp_hello_t one way, tcp_verdict_t back), then frames
 * of an 8-byte header (payload length) and the payload padded to 8 bytes, so every packet starts
 * 8-aligned in the receive buffer and the protocol headers can be read in place. A header of
 * TCP_GOODBYE (no payload) is a process of another job saying it finalizes: its connection closing
 * afterwards is no failure, while one closing without it is a process that died.
 */
#ifndef EMPI_TCP_INTERNAL_H
#define EMPI_TCP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

#define TCP_MAGIC 0x54504d45u /* "EMPT" */
#define TCP_FRAME_HDR 8
#define TCP_PAD(n) (((n) + 7) & ~(size_t)7)
#define TCP_GOODBYE UINT64_MAX

typedef struct tcp_hello {
    uint32_t magic;
    uint32_t rank;    /* the connecting process's world rank in its job */
    uint64_t token;   /* the target's secret from its address record: proves it was told to come */
    uint64_t job;     /* the connecting process's job (runtime/procs.h): other jobs connect too */
} tcp_hello_t;

typedef struct tcp_verdict {
    uint32_t magic;
    uint32_t accepted; /* 0: the target's own connection wins the simultaneous-connect race */
} tcp_verdict_t;

typedef enum {
    TCP_NONE,        /* no connection and none being made */
    TCP_CONNECTING,  /* our connection is open, hello sent, verdict awaited */
    TCP_WAITING,     /* the peer refused ours: its own connection is on the way */
    TCP_UP,
    TCP_DEAD,        /* the peer went away; the launcher is ending the job */
} tcp_state_t;

typedef struct tcp_peer {
    int fd;
    tcp_state_t state;
    int polled;               /* index in tcp.polled, or -1 */
    int backlogged;           /* listed in tcp.backlogged */
    int said_goodbye;         /* a foreign peer announced its MPI_Finalize */
    size_t verdict_got;       /* bytes of the verdict read so far (CONNECTING) */
    tcp_verdict_t verdict;
    /* Bytes the socket did not take yet, in order: out[out_head, out_tail). */
    unsigned char *out;
    size_t out_head, out_tail, out_cap;
    /* Received bytes not yet delivered: whole frames are delivered in place, a partial one waits. */
    unsigned char *in;
    size_t in_len, in_cap;
} tcp_peer_t;

/* An accepted connection whose hello has not arrived yet. */
typedef struct tcp_stranger {
    int fd;
    size_t got;
    tcp_hello_t hello;
} tcp_stranger_t;

typedef struct tcp_state_all {
    int active;               /* this rank has peers on other hosts, or processes of other jobs */
    int me, size;             /* size: indices this transport has room for (procs.h) */
    int world;                /* indices from `world` on are processes of other jobs */
    empi_deliver_fn deliver;
    int epfd, listen_fd;
    uint64_t token;
    tcp_peer_t *peers;        /* size entries */
    int *polled;              /* UP peers read each pass */
    int npolled;
    int *backlogged;          /* peers with bytes in their backlog */
    int nbacklogged;
    size_t backlog_bytes;     /* sum over peers, for pending() */
    tcp_stranger_t *strangers;
    int nstrangers, strangers_cap;
    int handshakes;           /* peers in CONNECTING or WAITING, plus strangers */
    int ndead;                /* peers lost: the job is ending (the launcher names the culprit) */
    double dead_since;
    int in_progress;          /* deliver may call back into MPI: never re-enter */
    int eager_connect_due;
    unsigned long passes;
} tcp_state_all_t;

extern tcp_state_all_t tcp;

/* tcp_connect.c */
int tcp_listen_and_publish(void);
int tcp_is_foreign(int peer);
int tcp_connect_start(int peer);     /* EMPI_OK or EMPI_ERROR (message printed) */
void tcp_connect_all(void);          /* eager connection to every tcp peer */
void tcp_accept_ready(void);
int tcp_stranger_ready(int fd);      /* 1 if fd was a stranger's and was handled */
void tcp_verdict_ready(int peer);
void tcp_peer_lost(int peer, const char *why);
void tcp_say_goodbye(void);          /* to every process of another job still connected */
void tcp_close_all(void);

/* tcp_send.c */
int tcp_am_send(int peer, const struct iovec *iov, int iovcnt);
int tcp_flush(int peer);             /* push backlog; returns 1 if something moved */
int tcp_flush_all(void);
void tcp_backlog_free(tcp_peer_t *p);

/* tcp_recv.c */
int tcp_read_peer(int peer);         /* packets delivered */

/* tcp.c */
void tcp_mark_up(int peer, int fd);
/* Watch fd for input; tag: a peer's rank, -1 for the listener, -2 - fd for a stranger. */
void tcp_epoll_add(int fd, int tag);

#endif
