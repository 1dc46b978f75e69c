/*
 * The receive path: read as much as the socket has into the peer's buffer, deliver every whole
 * frame in place (the payload pointer stays valid during deliver, as the interface promises), and
 * keep a partial frame at the front of the buffer for the next read. The buffer grows to hold the
 * largest frame seen, so a big packet is read with few calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/error.h"
#include "core/global.h"
#include "mpi.h"
#include "transport/tcp/tcp_internal.h"

#define TCP_RX_MIN 65536

static size_t frame_need(const tcp_peer_t *p)
{
    if (p->in_len < TCP_FRAME_HDR)
        return TCP_RX_MIN;
    uint64_t len;
    memcpy(&len, p->in, sizeof len);
    return TCP_FRAME_HDR + TCP_PAD((size_t)len);
}

static int grow_to(tcp_peer_t *p, size_t need)
{
    if (need <= p->in_cap)
        return 0;
    size_t cap = p->in_cap ? p->in_cap : TCP_RX_MIN;
    while (cap < need)
        cap *= 2;
    unsigned char *b = realloc(p->in, cap);
    if (!b)
        return -1;
    p->in = b;
    p->in_cap = cap;
    return 0;
}

/* Deliver the whole frames at the front of the buffer; returns how many. */
static int deliver_frames(int peer, tcp_peer_t *p)
{
    size_t off = 0;
    int delivered = 0;
    while (p->in_len - off >= TCP_FRAME_HDR) {
        uint64_t len;
        memcpy(&len, p->in + off, sizeof len);
        if (EMPI_UNLIKELY(len == TCP_GOODBYE)) {
            p->said_goodbye = 1;
            off += TCP_FRAME_HDR;
            continue;
        }
        if (EMPI_UNLIKELY(len > empi_transport_tcp.max_packet)) {
            tcp_peer_lost(peer, "sent a corrupt frame");
            return delivered;
        }
        size_t frame = TCP_FRAME_HDR + TCP_PAD((size_t)len);
        if (p->in_len - off < frame)
            break;
        tcp.deliver(peer, p->in + off + TCP_FRAME_HDR, (size_t)len);
        delivered++;
        off += frame;
        if (EMPI_UNLIKELY(p->state != TCP_UP))
            return delivered; /* handling the packet lost the connection (a send to it failed) */
    }
    if (off) {
        memmove(p->in, p->in + off, p->in_len - off);
        p->in_len -= off;
    }
    return delivered;
}

int tcp_read_peer(int peer)
{
    tcp_peer_t *p = &tcp.peers[peer];
    int delivered = 0;
    while (p->state == TCP_UP) {
        if (grow_to(p, frame_need(p)) != 0)
            empi_fatal(MPI_ERR_NO_MEM, "tcp transport: out of memory for a receive buffer");
        size_t room = p->in_cap - p->in_len;
        ssize_t n = recv(p->fd, p->in + p->in_len, room, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                tcp_peer_lost(peer, "failed");
            break;
        }
        if (n == 0) {
            tcp_peer_lost(peer, "was closed by the peer");
            break;
        }
        p->in_len += (size_t)n;
        delivered += deliver_frames(peer, p);
        if ((size_t)n < room)
            break; /* the socket is drained: spare the call that would say EAGAIN */
    }
    return delivered;
}
