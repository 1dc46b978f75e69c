/* Bootstrap key-value server inside mpiexec (protocol: src/runtime/bootstrap_proto.h).
 *
 * A fence is the only collective: each rank sends its puts since the last fence,
 * and when the last rank arrives every rank receives all batches in one message.
 * Reads are non-blocking and driven by the main poll loop; replies are written
 * with blocking sends because a rank always waits for them when they are sent. */
#include "mpiexec.h"
#include "runtime/bootstrap_proto.h"
#include "wire.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

typedef struct connection {
    int fd;
    int rank;                 /* -1 until the cookie has been checked */
    int host;                 /* a proxy's host entry, else -1 */
    int write_dead;           /* a proxy we can no longer send to: read what it sent, then drop */
    unsigned char *in;
    size_t in_len, in_cap;
} connection_t;

typedef struct fence_slot {
    unsigned char *puts;
    uint32_t len;
    int arrived;
} fence_slot_t;

static int listen_fd = -1;
static int unix_listener;     /* listen_fd is the local Unix socket: check each peer's user */
static char cookie_hex[EMPI_BOOT_COOKIE_HEX + 1];
static int world_size;
static connection_t *conns;
static int nconns, conns_cap;
static int *conn_of_rank;     /* index into conns, -1 if the rank is not connected */
static fence_slot_t *fence;
static int fence_arrivals;

/* Unauthenticated peers may send only a HELLO (a rank's or a proxy's); anything bigger is refused. */
#define HELLO_LEN (EMPI_BOOT_COOKIE_HEX + sizeof(uint32_t))
#define UNAUTH_MAX (HELLO_LEN + PROXY_NAME_MAX)

int server_open(const char *name, int tcp_fd, const char *cookie, int nranks)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (name && strlen(name) >= sizeof sa.sun_path) {
        fprintf(stderr, "mpiexec: socket name too long: %s\n", name);
        return -1;
    }
    snprintf(cookie_hex, sizeof cookie_hex, "%s", cookie);
    world_size = nranks;
    conn_of_rank = malloc(sizeof(int) * (size_t)nranks);
    fence = calloc((size_t)nranks, sizeof *fence);
    if (!conn_of_rank || !fence)
        return -1;
    for (int r = 0; r < nranks; r++)
        conn_of_rank[r] = -1;
    if (!name) {
        listen_fd = tcp_fd; /* across hosts: the cookie is the only gate */
        return 0;
    }
    /* An abstract name (leading NUL): nothing in the file system to leave behind, even when
       mpiexec is killed outright. accept_all admits only our user; the cookie keeps out the
       other jobs of that user. */
    memcpy(sa.sun_path + 1, name, strlen(name));
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd < 0)
        return -1;
    if (bind(listen_fd, (struct sockaddr *)&sa, len) != 0 || listen(listen_fd, SOMAXCONN) != 0) {
        fprintf(stderr, "mpiexec: cannot listen on @%s: %s\n", name, strerror(errno));
        return -1;
    }
    unix_listener = 1;
    return 0;
}

int server_pollfd_count(void)
{
    return 1 + nconns;
}

static void drop_connection(int i)
{
    connection_t *c = &conns[i];
    if (c->rank >= 0 && conn_of_rank[c->rank] == i)
        conn_of_rank[c->rank] = -1;
    close(c->fd);
    c->fd = -1;
    free(c->in);
    c->in = NULL;
    c->in_len = c->in_cap = 0;
    if (c->host >= 0) {
        int h = c->host;
        c->host = -1;
        remote_lost(h);
    }
}

void server_drop(int conn)
{
    if (conn >= 0 && conn < nconns && conns[conn].fd >= 0)
        drop_connection(conn);
}

void server_send(int conn, uint32_t type, const void *payload, size_t len)
{
    if (conn < 0 || conn >= nconns || conns[conn].fd < 0 || conns[conn].write_dead)
        return;
    if (wire_send(conns[conn].fd, type, payload, len, NULL, 0) == 0)
        return;
    if (conns[conn].host >= 0) {
        /* A proxy that exited (stdin still flowing to it, say) may have its exit report waiting
           in the socket: read on until its end, or it looks lost. */
        conns[conn].write_dead = 1;
        shutdown(conns[conn].fd, SHUT_WR);
        return;
    }
    drop_connection(conn);
}

/* A failed or timed-out send leaves the stream unusable: drop the connection. The
 * rank then fails in the bootstrap and its exit ends the job. */
static void reply(int i, uint32_t type, const void *payload, size_t len)
{
    server_send(i, type, payload, len);
}

static void reject(int i, const char *why)
{
    wire_send(conns[i].fd, EMPI_BOOT_REJECT, why, strlen(why), NULL, 0);
    drop_connection(i);
}

static void accept_all(void)
{
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return;
        struct ucred cred;
        socklen_t clen = sizeof cred;
        if (unix_listener &&
            (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 || cred.uid != geteuid())) {
            close(fd);
            continue;
        }
        /* A rank that stops reading must not freeze the launcher forever. */
        struct timeval tv = { .tv_sec = 10 };
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        if (nconns == conns_cap) {
            conns_cap = conns_cap ? conns_cap * 2 : 64;
            conns = realloc(conns, sizeof *conns * (size_t)conns_cap);
        }
        conns[nconns++] = (connection_t){ .fd = fd, .rank = -1, .host = -1 };
    }
}

/* Comparison whose time does not depend on where the first difference is. */
static int cookie_matches(const unsigned char *given)
{
    unsigned diff = 0;
    for (int i = 0; i < EMPI_BOOT_COOKIE_HEX; i++)
        diff |= (unsigned)given[i] ^ (unsigned char)cookie_hex[i];
    return diff == 0;
}

static void handle_hello(int i, const unsigned char *p, uint32_t len)
{
    uint32_t rank;
    if (len != HELLO_LEN || !cookie_matches(p)) {
        reject(i, "bad cookie");
        return;
    }
    memcpy(&rank, p + EMPI_BOOT_COOKIE_HEX, sizeof rank);
    if (rank >= (uint32_t)world_size || conn_of_rank[rank] != -1) {
        reject(i, "bad or duplicate rank");
        return;
    }
    conns[i].rank = (int)rank;
    conn_of_rank[rank] = i;

    size_t n = 1 + (size_t)world_size;
    uint32_t *node_map = calloc(n, sizeof *node_map);
    node_map[0] = (uint32_t)world_size;
    for (int r = 0; r < world_size; r++)
        node_map[1 + r] = (uint32_t)layout.node_of[r];
    reply(i, EMPI_BOOT_HELLO_OK, node_map, n * sizeof *node_map);
    free(node_map);
    job_rank_connected((int)rank);
}

static void complete_fence(void)
{
    size_t total = 0;
    for (int r = 0; r < world_size; r++)
        total += fence[r].len ? 2 * sizeof(uint32_t) + fence[r].len : 0;
    unsigned char *blob = malloc(total ? total : 1), *p = blob;
    for (int r = 0; r < world_size; r++) {
        if (!fence[r].len)
            continue;
        uint32_t sec[2] = { (uint32_t)r, fence[r].len };
        memcpy(p, sec, sizeof sec);
        memcpy(p + sizeof sec, fence[r].puts, fence[r].len);
        p += sizeof sec + fence[r].len;
    }
    for (int r = 0; r < world_size; r++) {
        free(fence[r].puts);
        fence[r] = (fence_slot_t){ 0 };
        if (conn_of_rank[r] >= 0)
            reply(conn_of_rank[r], EMPI_BOOT_FENCE_DONE, blob, total);
    }
    free(blob);
    fence_arrivals = 0;
}

static void handle_fence(int rank, const unsigned char *p, uint32_t len)
{
    fence_slot_t *f = &fence[rank];
    if (f->arrived) {
        job_end(1, "rank %d entered a fence twice; ending the job", rank);
        return;
    }
    f->arrived = 1;
    f->len = len;
    f->puts = len ? malloc(len) : NULL;
    if (len)
        memcpy(f->puts, p, len);
    if (++fence_arrivals == world_size)
        complete_fence();
}

static void handle_message(int i, uint32_t type, const unsigned char *p, uint32_t len)
{
    int rank = conns[i].rank;
    if (conns[i].host >= 0) {
        remote_message(conns[i].host, type, p, len);
        return;
    }
    if (rank < 0) {
        if (type == EMPI_BOOT_HELLO) {
            handle_hello(i, p, len);
        } else if (type == PROXY_HELLO && len >= HELLO_LEN && cookie_matches(p)) {
            int h = remote_hello(i, p, len);
            if (h < 0)
                reject(i, "bad or duplicate host");
            else
                conns[i].host = h;
        } else {
            reject(i, "bad cookie");
        }
        return;
    }
    switch (type) {
    case EMPI_BOOT_FENCE:
        handle_fence(rank, p, len);
        break;
    case EMPI_BOOT_ABORT: {
        uint32_t code = 0;
        if (len >= sizeof code)
            memcpy(&code, p, sizeof code);
        char *msg = strndup(len >= sizeof code ? (const char *)p + sizeof code : "",
                            len >= sizeof code ? len - sizeof code : 0);
        job_rank_aborted(rank, (int)code, msg);
        free(msg);
        break;
    }
    case EMPI_BOOT_FINALIZE:
        job_rank_finalized(rank);
        reply(i, EMPI_BOOT_FINALIZE_OK, NULL, 0);
        break;
    default:
        job_end(1, "rank %d sent an unknown bootstrap message (%u); ending the job", rank,
                type);
    }
}

/* Read what is available on connection i and act on every complete message. */
static void service(int i)
{
    for (;;) {
        connection_t *c = &conns[i];
        if (c->fd < 0)
            return;
        if (c->in_cap - c->in_len < 65536) {
            size_t cap = c->in_cap ? c->in_cap * 2 : 65536;
            unsigned char *p = realloc(c->in, cap);
            if (!p)
                return;
            c->in = p;
            c->in_cap = cap;
        }
        ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            drop_connection(i); /* the exit status of the rank tells whether that is ok */
            return;
        }
        c->in_len += (size_t)n;

        size_t off = 0;
        while (c->fd >= 0 && c->in_len - off >= sizeof(empi_boot_hdr_t)) {
            empi_boot_hdr_t hdr;
            memcpy(&hdr, c->in + off, sizeof hdr);
            int unauth = c->rank < 0 && c->host < 0;
            if (hdr.len > EMPI_BOOT_MAX_MSG || (unauth && hdr.len > UNAUTH_MAX)) {
                reject(i, unauth ? "bad cookie" : "message too long");
                return;
            }
            if (c->in_len - off - sizeof hdr < hdr.len)
                break;
            handle_message(i, hdr.type, c->in + off + sizeof hdr, hdr.len);
            c = &conns[i];
            off += sizeof hdr + hdr.len;
        }
        if (c->fd < 0)
            return;
        memmove(c->in, c->in + off, c->in_len - off);
        c->in_len -= off;
    }
}

int server_pollfds(struct pollfd *pfds)
{
    int n = 0;
    pfds[n++] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
    for (int i = 0; i < nconns; i++)
        pfds[n++] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN };
    return n;
}

void server_handle(const struct pollfd *pfds, int n)
{
    /* pfds mirrors server_pollfds: [0] the listener, then conns in order. */
    for (int i = 1; i < n && i - 1 < nconns; i++)
        if (pfds[i].fd >= 0 && pfds[i].revents)
            service(i - 1);
    if (n > 0 && (pfds[0].revents & POLLIN))
        accept_all();
}

void server_drain_rank(int rank)
{
    if (conn_of_rank && conn_of_rank[rank] >= 0)
        service(conn_of_rank[rank]);
}

void server_close(void)
{
    for (int i = 0; i < nconns; i++)
        if (conns[i].fd >= 0)
            drop_connection(i);
    if (listen_fd >= 0)
        close(listen_fd);
    listen_fd = -1;
    for (int r = 0; fence && r < world_size; r++)
        free(fence[r].puts);
    free(fence);
    free(conns);
    free(conn_of_rank);
    fence = NULL;
    conns = NULL;
    conn_of_rank = NULL;
    nconns = conns_cap = 0;
}
