/*
 * The send path. A packet goes out as one frame in one sendmsg: our 8-byte frame header, the
 * caller's iovecs (protocol header and user data, never copied), and padding. Whatever the socket
 * does not take is copied to the peer's backlog and pushed by progress, in order, before anything
 * newer. The backlog is bounded (EMPI_TCP_MAX_INFLIGHT): beyond it am_send answers EMPI_AGAIN and
 * the request waits in pt2pt's queue instead, without a copy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/copy.h"
#include "core/error.h"
#include "core/global.h"
#include "core/tunables.h"
#include "mpi.h"
#include "transport/tcp/tcp_internal.h"

#define TCP_MAX_IOV 16

static const unsigned char zeros[8];

static size_t backlog_len(const tcp_peer_t *p)
{
    return p->out_tail - p->out_head;
}

void tcp_backlog_free(tcp_peer_t *p)
{
    tcp.backlog_bytes -= backlog_len(p);
    free(p->out);
    p->out = NULL;
    p->out_head = p->out_tail = p->out_cap = 0;
}

static int reserve(tcp_peer_t *p, size_t more)
{
    if (p->out_head && p->out_tail + more > p->out_cap) {
        memmove(p->out, p->out + p->out_head, backlog_len(p));
        p->out_tail -= p->out_head;
        p->out_head = 0;
    }
    if (p->out_tail + more <= p->out_cap)
        return 0;
    size_t cap = p->out_cap ? p->out_cap : 4096;
    while (cap < p->out_tail + more)
        cap *= 2;
    unsigned char *b = realloc(p->out, cap);
    if (!b)
        return -1;
    p->out = b;
    p->out_cap = cap;
    return 0;
}

/* Copy the frame's bytes from offset `skip` on into the backlog. */
static void backlog_append(int peer, const struct iovec *frame, int n, size_t skip, size_t total)
{
    tcp_peer_t *p = &tcp.peers[peer];
    size_t added = total - skip;
    if (reserve(p, added) != 0)
        empi_fatal(MPI_ERR_NO_MEM, "tcp transport: out of memory for the send backlog");
    for (int i = 0; i < n; i++) {
        size_t len = frame[i].iov_len;
        if (skip >= len) {
            skip -= len;
            continue;
        }
        empi_copy(p->out + p->out_tail, (const char *)frame[i].iov_base + skip, len - skip);
        p->out_tail += len - skip;
        skip = 0;
    }
    tcp.backlog_bytes += added;
    if (!p->backlogged) {
        p->backlogged = 1;
        tcp.backlogged[tcp.nbacklogged++] = peer;
    }
}

static void send_failed(int peer, int err)
{
    tcp_peer_lost(peer, err == EPIPE || err == ECONNRESET ? "was closed by the peer" : "failed");
}

int tcp_flush(int peer)
{
    tcp_peer_t *p = &tcp.peers[peer];
    if (p->state != TCP_UP || !backlog_len(p))
        return 0;
    ssize_t n = send(p->fd, p->out + p->out_head, backlog_len(p), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
        if (errno != EAGAIN && errno != EINTR)
            send_failed(peer, errno);
        return 0;
    }
    p->out_head += (size_t)n;
    tcp.backlog_bytes -= (size_t)n;
    if (p->out_head == p->out_tail)
        p->out_head = p->out_tail = 0;
    return n > 0;
}

int tcp_flush_all(void)
{
    int moved = 0;
    for (int i = 0; i < tcp.nbacklogged;) {
        int peer = tcp.backlogged[i];
        moved += tcp_flush(peer);
        tcp_peer_t *p = &tcp.peers[peer];
        if (!backlog_len(p)) {
            p->backlogged = 0;
            tcp.backlogged[i] = tcp.backlogged[--tcp.nbacklogged];
        } else {
            i++;
        }
    }
    return moved;
}

int tcp_am_send(int peer, const struct iovec *iov, int iovcnt)
{
    if (EMPI_UNLIKELY(iovcnt > TCP_MAX_IOV - 2 || peer < 0 || peer >= tcp.size || !tcp.active))
        return EMPI_ERROR;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (EMPI_UNLIKELY(len > empi_transport_tcp.max_packet))
        return EMPI_ERROR;
    tcp_peer_t *p = &tcp.peers[peer];
    if (EMPI_UNLIKELY(p->state != TCP_UP)) {
        if (p->state == TCP_DEAD)
            return EMPI_OK; /* the job is ending; nothing will read it */
        if (p->state == TCP_NONE)
            tcp_connect_start(peer);
    }

    uint64_t hdr = (uint64_t)len;
    struct iovec frame[TCP_MAX_IOV];
    frame[0] = (struct iovec){&hdr, TCP_FRAME_HDR};
    memcpy(frame + 1, iov, sizeof *iov * (size_t)iovcnt);
    int n = iovcnt + 1;
    size_t pad = TCP_PAD(len) - len;
    if (pad)
        frame[n++] = (struct iovec){(void *)zeros, pad};
    size_t total = TCP_FRAME_HDR + len + pad;

    if (backlog_len(p) || p->state != TCP_UP) {
        tcp_flush(peer);
        if (backlog_len(p) || p->state != TCP_UP) {
            if (backlog_len(p) && backlog_len(p) + total > empi_tunables.tcp_max_inflight)
                return EMPI_AGAIN;
            backlog_append(peer, frame, n, 0, total);
            return EMPI_OK;
        }
    }
    struct msghdr msg = {.msg_iov = frame, .msg_iovlen = (size_t)n};
    ssize_t sent = sendmsg(p->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (EMPI_LIKELY((size_t)sent == total))
        return EMPI_OK;
    if (sent < 0) {
        if (errno != EAGAIN && errno != EINTR) {
            send_failed(peer, errno);
            return EMPI_OK;
        }
        sent = 0;
    }
    backlog_append(peer, frame, n, (size_t)sent, total);
    return EMPI_OK;
}
