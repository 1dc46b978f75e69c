/*
 * get() for single-copy rendezvous: an RDMA read (fi_read) of the sender's buffer; and the
 * one-sided reads and writes of window memory (mem_read/mem_write, at the end).
 *
 * The interface hands us only the remote address, while a read needs the remote key of a
 * registration covering it. So the reader asks the owner: KEY_REQ (address, length) -> the owner
 * registers the range through its cache and answers KEY_REP (key, the address to use under its
 * FI_MR_VIRT_ADDR mode, a handle) -> the reader issues fi_read and, once it completed, sends KEY_REL
 * so the owner drops its reference. KEY_REL leaves before the layer above's FIN (FIFO per pair),
 * so the owner's registration is released before its send request completes and the user may free
 * the buffer. If the owner cannot register, KEY_REP says so and get() fails: the layer above
 * falls back to its copy pipeline (CTS + DATA).
 */
#include <stdio.h>
#include <string.h>

#include "core/tunables.h"
#include "transport/ofi/ofi_internal.h"

typedef struct {
    struct fi_context2 ctx; /* first: the completion's op_context is its address */
    volatile int done;
    int err;
} ofi_read_t;

/* The reply awaited by the (single, blocking) get in progress. */
static struct {
    uint64_t token;
    volatile int arrived;
    ofi_key_rep_t rep;
} wait_key;

static ofi_read_t *current_read;

int empi_ofi_is_read_ctx(void *ctx)
{
    return ctx && ctx == (void *)current_read;
}

void empi_ofi_on_read_done(void *ctx, int err)
{
    ofi_read_t *r = ctx;
    r->err = err;
    r->done = 1;
}

void empi_ofi_on_key_req(int src, const ofi_key_req_t *req)
{
    ofi_key_rep_t rep;
    memset(&rep, 0, sizeof rep);
    rep.h.src = (uint32_t)O.me;
    rep.h.kind = OFI_PKT_KEY_REP;
    rep.token = req->token;
    empi_ofi_mr_t *mr = NULL;
    const void *addr = (const void *)(uintptr_t)req->addr;
    if (empi_ofi_mr_acquire(addr, (size_t)req->len, FI_REMOTE_READ, &mr) == 0) {
        rep.ok = 1;
        rep.key = empi_ofi_mr_key(mr);
        rep.raddr = empi_ofi_mr_raddr(mr, addr);
        rep.handle = (uint64_t)(uintptr_t)mr;
    }
    if (empi_ofi_send_ctrl(src, &rep, sizeof rep) != EMPI_OK && mr)
        empi_ofi_mr_release(mr);
}

void empi_ofi_on_key_rep(const ofi_key_rep_t *rep)
{
    if (rep->token != wait_key.token || wait_key.arrived)
        return;
    wait_key.rep = *rep;
    wait_key.arrived = 1;
}

static int ask_key(int peer, const void *remote, size_t len)
{
    ofi_key_req_t req = {.h = {.src = (uint32_t)O.me, .kind = OFI_PKT_KEY_REQ},
                         .addr = (uint64_t)(uintptr_t)remote, .len = len, .token = ++O.next_token};
    wait_key.token = req.token;
    wait_key.arrived = 0;
    if (empi_ofi_send_ctrl(peer, &req, sizeof req) != EMPI_OK)
        return -1;
    empi_ofi_wait_reply(&wait_key.arrived);
    return wait_key.rep.ok ? 0 : -1;
}

static void release_key(int peer)
{
    ofi_key_rel_t rel = {.h = {.src = (uint32_t)O.me, .kind = OFI_PKT_KEY_REL}, .handle = wait_key.rep.handle};
    empi_ofi_send_ctrl(peer, &rel, sizeof rel);
}

/* One RDMA read or write of a piece; a write completes once the data is in the peer's memory. */
static ssize_t post(int peer, int write, char *local, size_t n, void *desc, uint64_t raddr, uint64_t key, void *ctx)
{
    if (!write)
        return fi_read(O.ep, local, n, desc, O.addr[peer], raddr, key, ctx);
    struct iovec iov = {local, n};
    struct fi_rma_iov rma = {raddr, n, key};
    struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = O.addr[peer],
                             .rma_iov = &rma, .rma_iov_count = 1, .context = ctx};
    return fi_writemsg(O.ep, &msg, FI_DELIVERY_COMPLETE | FI_COMPLETION);
}

int empi_ofi_complete_one(ofi_post_fn post, void *arg, const char *what)
{
    ofi_read_t r;
    memset(&r, 0, sizeof r);
    current_read = &r;
    ssize_t rc;
    while ((rc = post(arg, &r)) == -FI_EAGAIN) {
        O.depth++;
        empi_ofi_poll();
        O.depth--;
    }
    if (!rc)
        empi_ofi_wait_reply(&r.done);
    current_read = NULL;
    if (rc || r.err) {
        empi_ofi_warn(what, rc ? (int)rc : r.err);
        return rc ? (int)rc : -r.err;
    }
    return 0;
}

typedef struct {
    int peer, write;
    char *local;
    size_t n;
    void *desc;
    uint64_t raddr, key;
} piece_t;

static ssize_t post_piece(void *arg, void *ctx)
{
    piece_t *p = arg;
    return post(p->peer, p->write, p->local, p->n, p->desc, p->raddr, p->key, ctx);
}

/* fi_read (or fi_write) of the whole range, in pieces the provider accepts; 0 or a libfabric error. */
static int transfer_range(int peer, int write, char *local, void *desc, size_t len, uint64_t raddr, uint64_t key)
{
    size_t max = O.info->ep_attr->max_msg_size ? O.info->ep_attr->max_msg_size : len;
    for (size_t off = 0; off < len;) {
        size_t n = len - off < max ? len - off : max;
        piece_t p = {peer, write, local + off, n, desc, raddr + off, key};
        int rc = empi_ofi_complete_one(post_piece, &p, write ? "fi_write" : "fi_read");
        if (rc)
            return rc;
        off += n;
    }
    return 0;
}

/* A read into (or write from) `local`, registered when the provider wants local descriptors. */
static int transfer(int peer, int write, void *local, size_t len, uint64_t raddr, uint64_t key)
{
    empi_ofi_mr_t *lmr = NULL;
    if (empi_ofi_mr_local_needed() && empi_ofi_mr_acquire(local, len, write ? FI_WRITE : FI_READ, &lmr) != 0)
        return EMPI_ERROR;
    int rc = transfer_range(peer, write, local, empi_ofi_mr_desc(lmr), len, raddr, key) == 0 ? EMPI_OK : EMPI_ERROR;
    empi_ofi_mr_release(lmr);
    return rc;
}

int empi_ofi_can_reach_memory(int peer)
{
    return O.up && empi_ofi_mem_addr(peer) != FI_ADDR_NOTAVAIL && !current_read;
}

int empi_ofi_get(int peer, void *local, const void *remote, size_t len)
{
    if (!empi_ofi_can_reach_memory(peer) || ask_key(peer, remote, len) != 0)
        return EMPI_ERROR;
    int rc = transfer(peer, 0, local, len, wait_key.rep.raddr, wait_key.rep.key);
    O.reads += rc == EMPI_OK;
    release_key(peer);
    return rc;
}

/* ---- one-sided access to exposed memory (windows): keys exchanged once, no owner involvement ---- */

void *empi_ofi_mem_expose(void *base, size_t len, uint64_t *key, uint64_t *raddr)
{
    empi_ofi_mr_t *mr = NULL;
    uint64_t access = FI_REMOTE_READ | (O.can_write || O.can_atomic ? FI_REMOTE_WRITE : 0);
    if (!O.up || !empi_transport_ofi.has_get || len == 0 || empi_ofi_mr_acquire(base, len, access, &mr) != 0)
        return NULL;
    *key = empi_ofi_mr_key(mr);
    *raddr = empi_ofi_mr_raddr(mr, base);
    return mr;
}

void empi_ofi_mem_unexpose(void *handle, void *base, size_t len)
{
    if (!handle)
        return;
    empi_ofi_mr_release(handle);
    empi_ofi_mr_invalidate(base, len); /* the memory may go back to the system */
}

int empi_ofi_mem_read(int peer, void *local, size_t len, uint64_t raddr, uint64_t key)
{
    if (!empi_ofi_can_reach_memory(peer))
        return EMPI_ERROR;
    int rc = transfer(peer, 0, local, len, raddr, key);
    O.rma_reads += rc == EMPI_OK;
    return rc;
}

int empi_ofi_mem_write(int peer, const void *local, size_t len, uint64_t raddr, uint64_t key)
{
    if (!empi_ofi_can_reach_memory(peer) || !O.can_write)
        return EMPI_ERROR;
    int rc = transfer(peer, 1, (void *)local, len, raddr, key);
    O.rma_writes += rc == EMPI_OK;
    return rc;
}
