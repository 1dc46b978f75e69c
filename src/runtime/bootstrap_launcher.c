/* Bootstrap client for ranks started by mpiexec: reads the job layout from the
 * environment and talks to the launcher over the socket named in
 * EMPI_LAUNCHER_ADDR (protocol in bootstrap_proto.h). (EMPI_BOOTSTRAP_ADDR is the
 * user's setting of the address mpiexec listens on, read by mpiexec only.)
 *
 * Puts are batched locally and shipped with the next fence; the launcher answers
 * the fence with every rank's batch, which we keep in the local cache. Gets never
 * touch the network, so a fence costs one round trip per rank. */
#include "runtime/bootstrap_addr.h"
#include "runtime/bootstrap_impl.h"
#include "runtime/bootstrap_kvs.h"
#include "runtime/bootstrap_proto.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int sock_fd = -1;
static int my_rank;
static int world_size;
static int *node_of_rank;
static unsigned char *pending;  /* puts since the last fence, in wire format */
static size_t pending_len, pending_cap;

static int env_int(const char *name, int *out)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s) {
        fprintf(stderr, "empi bootstrap: %s is not set (was this started by mpiexec?)\n", name);
        return -1;
    }
    long v = strtol(s, &end, 10);
    if (*end || v < 0 || v > 0x7fffffff) {
        fprintf(stderr, "empi bootstrap: %s=%s is not a valid number\n", name, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int send_all(const void *buf, size_t len)
{
    return empi_boot_send_all(sock_fd, buf, len);
}

static int recv_all(void *buf, size_t len)
{
    return empi_boot_recv_all(sock_fd, buf, len);
}

static int send_msg(uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
    empi_boot_hdr_t hdr = { type, (uint32_t)(alen + blen) };
    if (send_all(&hdr, sizeof hdr) != 0 || (alen && send_all(a, alen) != 0) ||
        (blen && send_all(b, blen) != 0)) {
        fprintf(stderr, "empi bootstrap: rank %d lost the connection to mpiexec\n", my_rank);
        return -1;
    }
    return 0;
}

/* Receive one message; the caller frees *payload. */
static int recv_msg(uint32_t *type, unsigned char **payload, uint32_t *len)
{
    empi_boot_hdr_t hdr;
    if (recv_all(&hdr, sizeof hdr) != 0 || hdr.len > EMPI_BOOT_MAX_MSG)
        goto lost;
    *payload = malloc(hdr.len + 1);
    if (!*payload)
        goto lost;
    if (recv_all(*payload, hdr.len) != 0) {
        free(*payload);
        goto lost;
    }
    (*payload)[hdr.len] = '\0'; /* lets REJECT text be printed directly */
    *type = hdr.type;
    *len = hdr.len;
    return 0;
lost:
    fprintf(stderr, "empi bootstrap: rank %d lost the connection to mpiexec\n", my_rank);
    return -1;
}

static int connect_to(const char *addr)
{
    sock_fd = empi_boot_addr_connect(addr);
    if (sock_fd < 0) {
        fprintf(stderr, "empi bootstrap: cannot connect to mpiexec at %s: %s\n", addr,
                errno == EINVAL ? "unsupported address" : strerror(errno));
        return -1;
    }
    return 0;
}

/* Present the cookie and receive the rank -> node map. */
static int handshake(const char *cookie)
{
    unsigned char hello[EMPI_BOOT_COOKIE_HEX + sizeof(uint32_t)];
    uint32_t rank = (uint32_t)my_rank;
    if (strlen(cookie) != EMPI_BOOT_COOKIE_HEX) {
        fprintf(stderr, "empi bootstrap: EMPI_COOKIE is malformed\n");
        return -1;
    }
    memcpy(hello, cookie, EMPI_BOOT_COOKIE_HEX);
    memcpy(hello + EMPI_BOOT_COOKIE_HEX, &rank, sizeof rank);
    if (send_msg(EMPI_BOOT_HELLO, hello, sizeof hello, NULL, 0) != 0)
        return -1;

    uint32_t type, len;
    unsigned char *reply;
    if (recv_msg(&type, &reply, &len) != 0)
        return -1;
    uint32_t size = 0;
    if (len >= sizeof size)
        memcpy(&size, reply, sizeof size);
    if (type != EMPI_BOOT_HELLO_OK || size != (uint32_t)world_size ||
        len != sizeof(uint32_t) * (1 + size)) {
        if (type == EMPI_BOOT_REJECT)
            fprintf(stderr, "empi bootstrap: mpiexec refused rank %d: %s\n", my_rank, reply);
        else
            fprintf(stderr, "empi bootstrap: bad handshake reply from mpiexec\n");
        free(reply);
        return -1;
    }
    node_of_rank = malloc(sizeof(int) * size);
    if (!node_of_rank) {
        free(reply);
        return -1;
    }
    for (uint32_t r = 0; r < size; r++) {
        uint32_t node;
        memcpy(&node, reply + sizeof(uint32_t) * (1 + r), sizeof node);
        node_of_rank[r] = (int)node;
    }
    free(reply);
    return 0;
}

static int valid_jobid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof(((empi_boot_info_t *)0)->jobid))
        return 0;
    return strspn(s, "0123456789abcdef") == n;
}

static int launcher_init(empi_boot_info_t *info)
{
    if (env_int("EMPI_RANK", &info->rank) || env_int("EMPI_SIZE", &info->size) ||
        env_int("EMPI_LOCAL_RANK", &info->local_rank) ||
        env_int("EMPI_LOCAL_SIZE", &info->local_size) ||
        env_int("EMPI_NODE_ID", &info->node_id) || env_int("EMPI_NUM_NODES", &info->num_nodes) ||
        env_int("EMPI_APPNUM", &info->appnum) ||
        env_int("EMPI_UNIVERSE_SIZE", &info->universe_size))
        return -1;
    const char *jobid = getenv("EMPI_JOBID");
    const char *addr = getenv("EMPI_LAUNCHER_ADDR");
    const char *cookie = getenv("EMPI_COOKIE");
    if (!jobid || !valid_jobid(jobid) || !addr || !cookie) {
        fprintf(stderr, "empi bootstrap: EMPI_JOBID, EMPI_LAUNCHER_ADDR or EMPI_COOKIE "
                        "missing or malformed\n");
        return -1;
    }
    if (info->size < 1 || info->rank >= info->size) {
        fprintf(stderr, "empi bootstrap: rank %d outside world of %d\n", info->rank, info->size);
        return -1;
    }
    strcpy(info->jobid, jobid);
    info->is_singleton = 0;
    my_rank = info->rank;
    world_size = info->size;
    if (connect_to(addr) != 0 || handshake(cookie) != 0) {
        if (sock_fd >= 0)
            close(sock_fd);
        sock_fd = -1;
        return -1;
    }
    return 0;
}

static int append_pending(const void *bytes, size_t len)
{
    if (pending_len + len > pending_cap) {
        size_t cap = pending_cap ? pending_cap : 4096;
        while (cap < pending_len + len)
            cap *= 2;
        unsigned char *p = realloc(pending, cap);
        if (!p)
            return -1;
        pending = p;
        pending_cap = cap;
    }
    memcpy(pending + pending_len, bytes, len);
    pending_len += len;
    return 0;
}

static int launcher_put(const char *key, const void *val, size_t len)
{
    uint32_t lens[2] = { (uint32_t)strlen(key), (uint32_t)len };
    if (pending_len + sizeof lens + lens[0] + len > EMPI_BOOT_MAX_MSG / 4) {
        fprintf(stderr, "empi bootstrap: too much data put before one fence\n");
        return -1;
    }
    size_t rollback = pending_len;
    if (append_pending(lens, sizeof lens) || append_pending(key, lens[0]) ||
        (len && append_pending(val, len))) {
        pending_len = rollback;
        return -1;
    }
    /* Our own puts are readable by us at once; the fence result will replace them. */
    return empi_kvs_store(my_rank, key, lens[0], val, len);
}

/* Store one rank's batch of puts from a FENCE_DONE section. */
static int absorb_puts(int rank, const unsigned char *p, size_t len)
{
    while (len) {
        uint32_t lens[2];
        if (len < sizeof lens)
            return -1;
        memcpy(lens, p, sizeof lens);
        p += sizeof lens;
        len -= sizeof lens;
        if ((size_t)lens[0] + lens[1] > len)
            return -1;
        if (empi_kvs_store(rank, (const char *)p, lens[0], p + lens[0], lens[1]) != 0)
            return -1;
        p += (size_t)lens[0] + lens[1];
        len -= (size_t)lens[0] + lens[1];
    }
    return 0;
}

static int absorb_fence_result(const unsigned char *p, size_t len)
{
    while (len) {
        uint32_t sec[2]; /* rank, bytes */
        if (len < sizeof sec)
            return -1;
        memcpy(sec, p, sizeof sec);
        p += sizeof sec;
        len -= sizeof sec;
        if (sec[1] > len || sec[0] >= (uint32_t)world_size ||
            absorb_puts((int)sec[0], p, sec[1]) != 0)
            return -1;
        p += sec[1];
        len -= sec[1];
    }
    return 0;
}

static int launcher_fence(void)
{
    if (sock_fd < 0)
        return -1;
    if (send_msg(EMPI_BOOT_FENCE, pending, pending_len, NULL, 0) != 0)
        return -1;
    pending_len = 0;
    /* Keep the fence hook running until the reply starts to arrive. */
    for (void (*hook)(void) = empi_boot_fence_hook(); hook; hook()) {
        struct pollfd pfd = {.fd = sock_fd, .events = POLLIN};
        if (poll(&pfd, 1, 1) != 0)
            break;
    }
    uint32_t type, len;
    unsigned char *reply;
    if (recv_msg(&type, &reply, &len) != 0)
        return -1;
    int rc = (type == EMPI_BOOT_FENCE_DONE) ? absorb_fence_result(reply, len) : -1;
    if (rc != 0)
        fprintf(stderr, "empi bootstrap: rank %d got a malformed fence reply\n", my_rank);
    free(reply);
    return rc;
}

static void launcher_abort(int errorcode, const char *msg)
{
    int status = empi_boot_abort_status(errorcode);
    if (sock_fd >= 0) {
        uint32_t code = (uint32_t)errorcode;
        if (send_msg(EMPI_BOOT_ABORT, &code, sizeof code, msg, strlen(msg)) == 0) {
            /* The launcher now kills the whole job, us included; exiting first would
             * only race its message. Wait (bounded) for that, then leave anyway. */
            struct pollfd pfd = { .fd = sock_fd, .events = POLLIN };
            poll(&pfd, 1, 5000);
            _exit(status);
        }
    }
    fprintf(stderr, "MPI_Abort(%d) on rank %d: %s\n", errorcode, my_rank, msg);
    _exit(status);
}

static int launcher_finalize(void)
{
    int rc = -1;
    if (sock_fd >= 0 && send_msg(EMPI_BOOT_FINALIZE, NULL, 0, NULL, 0) == 0) {
        /* Wait for the acknowledgement: once we exit, mpiexec must already know that
         * this exit is a clean one. */
        uint32_t type, len;
        unsigned char *reply;
        if (recv_msg(&type, &reply, &len) == 0) {
            rc = (type == EMPI_BOOT_FINALIZE_OK) ? 0 : -1;
            free(reply);
        }
    }
    if (sock_fd >= 0)
        close(sock_fd);
    sock_fd = -1;
    free(node_of_rank);
    node_of_rank = NULL;
    free(pending);
    pending = NULL;
    pending_len = pending_cap = 0;
    return rc;
}

static int launcher_node_of(int rank)
{
    return node_of_rank ? node_of_rank[rank] : -1;
}

const empi_boot_ops_t empi_boot_launcher_ops = {
    launcher_init, launcher_put, launcher_fence,
    launcher_abort, launcher_finalize, launcher_node_of, NULL,
};
