/*
 * The data path of the libfabric netmod: posting sends, polling the completion queue, receive
 * buffers, credit-based flow control and the deferral of packets that arrive while a read waits.
 *
 * Flow control: a peer may have at most EMPI_OFI_CREDITS DATA packets outstanding towards us; we
 * hand credits back once half a window has been consumed, piggybacked on our next packet to it or
 * in a CREDIT packet of their own. That bounds what a fast sender can pile up as unexpected
 * messages in the provider and in our receive buffers while the receiver computes.
 *
 * Deferral: get() waits for a key and a read by polling this queue, possibly from inside deliver.
 * Packets for the layer above that show up meanwhile are copied aside and delivered, in order,
 * once the outermost poll gets control back; control packets (key requests of other readers,
 * credits) are served at once so two ranks reading from each other cannot deadlock.
 * Completions are consumed from one static batch so a nested poll continues where the outer one
 * stood and never reorders packets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/copy.h"
#include "core/tunables.h"
#include "transport/ofi/ofi_internal.h"

#define CQ_BATCH 16

static struct fi_cq_data_entry batch[CQ_BATCH];
static int batch_n, batch_pos;

void empi_ofi_warn(const char *call, int rc)
{
    fprintf(stderr, "EtherMPI: rank %d: libfabric %s: %s\n", O.me, call, fi_strerror(rc < 0 ? -rc : rc));
}

uint16_t empi_ofi_take_owed(int peer)
{
    int n = O.owed[peer] > 0xffff ? 0xffff : O.owed[peer];
    O.owed[peer] -= n;
    return (uint16_t)n;
}

/*
 * Injected sends need no buffer, only a context some providers own until the completion, which
 * others (ofi_rxd) return without it: they take the slots of a ring in turn and are counted, never
 * looked up. Larger sends own a bounce slot, found again through their context.
 */
static void *tx_take(int big)
{
    if (!big) {
        if (O.small_inflight >= OFI_TX_SMALL)
            return NULL;
        O.small_inflight++;
        return &O.small_ctx[O.small_next++ % OFI_TX_SMALL];
    }
    ofi_tx_t *tx = O.tx_big_free;
    if (tx)
        O.tx_big_free = tx->next;
    return tx;
}

static int is_small_ctx(const void *ctx)
{
    return !ctx || ((const char *)ctx >= (const char *)O.small_ctx &&
                    (const char *)ctx < (const char *)(O.small_ctx + OFI_TX_SMALL));
}

static void tx_put(void *ctx)
{
    if (is_small_ctx(ctx)) {
        O.small_inflight--;
        return;
    }
    ofi_tx_t *tx = ctx;
    tx->next = O.tx_big_free;
    O.tx_big_free = tx;
}

/* A send completion (or error) whose send we counted: a quiet inject has no context, and some
   providers (tcp) still report its failure. */
static void send_done(void *ctx)
{
    if (!ctx && O.quiet_inject)
        return;
    O.inflight--;
    tx_put(ctx);
}

/* A post the provider refused: EMPI_AGAIN when it is only busy, else warned about. */
static int refused(const char *call, ssize_t rc)
{
    if (rc == -FI_EAGAIN)
        return EMPI_AGAIN;
    empi_ofi_warn(call, (int)rc);
    return EMPI_ERROR;
}

/*
 * A small packet by fi_inject: no context, no completion. fi_sendmsg with FI_INJECT|FI_COMPLETION
 * costs ofi_rxm an eager buffer, a copy and two completions per packet, since only its inject calls
 * take the inject path of the provider below (docs/OFI.md). What pending() cannot count then, a
 * flush packet with a completion covers, on providers whose sends to a peer complete in order
 * (empi_ofi_quiet_inject_wanted).
 */
static int post_quiet(int peer, const void *wire, size_t len)
{
    ssize_t rc = fi_inject(O.ep, wire, len, O.addr[peer]);
    if (rc)
        return refused("fi_inject", rc);
    if (!O.unflushed[peer]) {
        O.unflushed[peer] = 1;
        O.nunflushed++;
    }
    return EMPI_OK;
}

/* Post one wire packet. Injected packets are copied by the provider at once; others are copied
   into a registered bounce slot. Those come back as completions, so pending() can count them. */
int empi_ofi_post_send(int peer, const void *wire, size_t len, int inject)
{
    if (inject && O.quiet_inject)
        return post_quiet(peer, wire, len);
    void *ctx = tx_take(!inject);
    if (!ctx)
        return EMPI_AGAIN;
    struct iovec iov = {(void *)wire, len};
    void *desc = NULL;
    if (!inject) {
        ofi_tx_t *tx = ctx;
        if (tx->buf != wire)
            empi_copy(tx->buf, wire, len);
        iov.iov_base = tx->buf;
        desc = empi_ofi_mr_desc(O.tx_mr);
    }
    struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = O.addr[peer], .context = ctx};
    ssize_t rc = fi_sendmsg(O.ep, &msg, FI_COMPLETION | (inject ? FI_INJECT : 0));
    if (rc) {
        tx_put(ctx);
        return refused("fi_sendmsg", rc);
    }
    O.inflight++;
    return EMPI_OK;
}

/* Post a control packet carrying the credits we owe `peer`; they stay owed if it fails. */
static int post_with_credits(int peer, void *pkt, size_t len, int inject)
{
    ((ofi_hdr_t *)pkt)->credits = empi_ofi_take_owed(peer);
    int rc = empi_ofi_post_send(peer, pkt, len, inject);
    if (rc != EMPI_OK)
        O.owed[peer] += ((ofi_hdr_t *)pkt)->credits;
    return rc;
}

static int ctrl_try(int peer, void *pkt, size_t len)
{
    return post_with_credits(peer, pkt, len, len <= O.inject_limit);
}

int empi_ofi_flush_quiet(void)
{
    for (int peer = 0; peer < O.size && O.nunflushed; peer++) {
        if (!O.unflushed[peer])
            continue;
        ofi_hdr_t flush = {.src = (uint32_t)O.me, .kind = OFI_PKT_CREDIT};
        if (post_with_credits(peer, &flush, sizeof flush, 0) != EMPI_OK)
            break;
        O.unflushed[peer] = 0;
        O.nunflushed--;
    }
    return O.nunflushed;
}

int empi_ofi_send_ctrl(int peer, void *pkt, size_t len)
{
    if (!O.ctrl_head && ctrl_try(peer, pkt, len) == EMPI_OK)
        return EMPI_OK;
    ofi_ctrl_t *c = malloc(sizeof *c);
    if (!c || len > sizeof c->data) {
        free(c);
        return EMPI_ERROR;
    }
    c->next = NULL;
    c->peer = peer;
    c->len = len;
    empi_copy(c->data, pkt, len);
    if (O.ctrl_tail)
        O.ctrl_tail->next = c;
    else
        O.ctrl_head = c;
    O.ctrl_tail = c;
    return EMPI_OK;
}

static void flush_ctrl(void)
{
    while (O.ctrl_head && ctrl_try(O.ctrl_head->peer, O.ctrl_head->data, O.ctrl_head->len) == EMPI_OK) {
        ofi_ctrl_t *c = O.ctrl_head;
        O.ctrl_head = c->next;
        if (!O.ctrl_head)
            O.ctrl_tail = NULL;
        free(c);
    }
}

int empi_ofi_post_rx(ofi_rx_t *rx)
{
    struct iovec iov = {rx->buf, rx->size};
    void *desc = empi_ofi_mr_desc(O.rx_mr);
    struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = rx};
    ssize_t rc;
    while ((rc = fi_recvmsg(O.ep, &msg, O.multi_recv ? FI_MULTI_RECV : 0)) == -FI_EAGAIN)
        fi_cq_read(O.cq, NULL, 0);
    if (rc)
        empi_ofi_warn("fi_recvmsg", (int)rc);
    return rc ? EMPI_ERROR : EMPI_OK;
}

static ofi_deferred_t *hold(int src, uint32_t seq, const void *pkt, size_t len)
{
    ofi_deferred_t *d = malloc(sizeof *d + len);
    if (!d) {
        fprintf(stderr, "EtherMPI: rank %d: out of memory holding a packet from rank %d\n", O.me, src);
        abort();
    }
    d->next = NULL;
    d->seq = seq;
    d->src = src;
    d->len = len;
    empi_copy(d->data, pkt, len);
    return d;
}

static void append_deferred(ofi_deferred_t *d)
{
    if (O.def_tail)
        O.def_tail->next = d;
    else
        O.def_head = d;
    O.def_tail = d;
}

static void defer(int src, const void *pkt, size_t len)
{
    append_deferred(hold(src, 0, pkt, len));
}

/* A DATA packet ahead of its turn waits on its sender's list, in sequence order. */
static void keep_early(int src, uint32_t seq, const void *pkt, size_t len)
{
    ofi_deferred_t *d = hold(src, seq, pkt, len), **at = &O.early[src];
    while (*at && (int32_t)((*at)->seq - seq) < 0)
        at = &(*at)->next;
    d->next = *at;
    *at = d;
}

static int deliver_deferred(void)
{
    int n = 0;
    while (O.depth == 0 && O.def_head) {
        ofi_deferred_t *d = O.def_head;
        O.def_head = d->next;
        if (!O.def_head)
            O.def_tail = NULL;
        O.deliver(d->src, d->data, d->len);
        free(d);
        n++;
    }
    return n;
}

static void consume_data(int src)
{
    if (++O.owed[src] >= O.window / 2) {
        ofi_hdr_t credit = {.src = (uint32_t)O.me, .kind = OFI_PKT_CREDIT};
        empi_ofi_send_ctrl(src, &credit, sizeof credit);
    }
}

/* One arrived wire packet; returns 1 if a packet went (or will go) up to the layer above. */
static int on_packet(const char *wire, size_t len)
{
    if (len < sizeof(ofi_hdr_t))
        return 0;
    ofi_hdr_t h;
    memcpy(&h, wire, sizeof h);
    int src = (int)h.src;
    if (src < 0 || src >= O.size || h.pad >= OFI_ALIGN || len < sizeof h + h.pad)
        return 0;
    len -= h.pad;
    O.tx_credits[src] += h.credits;
    switch (h.kind) {
    case OFI_PKT_DATA:
        consume_data(src);
        if (h.seq != O.rx_seq[src]) {
            keep_early(src, h.seq, wire + sizeof h, len - sizeof h);
            return 1;
        }
        O.rx_seq[src]++;
        if (O.depth > 0 || O.def_head)
            defer(src, wire + sizeof h, len - sizeof h);
        else
            O.deliver(src, wire + sizeof h, len - sizeof h);
        /* the early ones it was holding back go up after it, through the deferred list */
        while (O.early[src] && O.early[src]->seq == O.rx_seq[src]) {
            ofi_deferred_t *d = O.early[src];
            O.early[src] = d->next;
            d->next = NULL;
            append_deferred(d);
            O.rx_seq[src]++;
        }
        return 1;
    case OFI_PKT_KEY_REQ:
        if (len >= sizeof(ofi_key_req_t)) {
            ofi_key_req_t req;
            memcpy(&req, wire, sizeof req);
            empi_ofi_on_key_req(src, &req);
        }
        return 0;
    case OFI_PKT_KEY_REP:
        if (len >= sizeof(ofi_key_rep_t)) {
            ofi_key_rep_t rep;
            memcpy(&rep, wire, sizeof rep);
            empi_ofi_on_key_rep(&rep);
        }
        return 0;
    case OFI_PKT_KEY_REL:
        if (len >= sizeof(ofi_key_rel_t)) {
            ofi_key_rel_t rel;
            memcpy(&rel, wire, sizeof rel);
            empi_ofi_mr_release((empi_ofi_mr_t *)(uintptr_t)rel.handle);
        }
        return 0;
    default:
        return 0;
    }
}

/* Buffers go back to the provider as soon as they are used up, also while a read waits (its key
   may only arrive in one), except the one holding the packet the layer above is looking at. */
static void repost_released(void)
{
    ofi_rx_t **p = &O.repost;
    while (*p) {
        ofi_rx_t *rx = *p;
        if (rx == O.busy_rx) {
            p = &rx->next_repost;
            continue;
        }
        *p = rx->next_repost;
        empi_ofi_post_rx(rx);
    }
}

static int handle_error_entry(void)
{
    struct fi_cq_err_entry err;
    memset(&err, 0, sizeof err);
    if (fi_cq_readerr(O.cq, &err, 0) != 1)
        return 0;
    if (empi_ofi_is_read_ctx(err.op_context)) {
        empi_ofi_on_read_done(err.op_context, err.err ? err.err : FI_EIO);
        return 0;
    }
    if (err.err == FI_ECANCELED)
        return 0;
    if (err.flags & FI_SEND)
        send_done(err.op_context);
    if (O.up)
        fprintf(stderr, "EtherMPI: rank %d: libfabric completion error: %s (%s)\n", O.me,
                fi_strerror(err.err),
                fi_cq_strerror(O.cq, err.prov_errno, err.err_data, NULL, 0));
    return 0;
}

static int handle_entry(const struct fi_cq_data_entry *e)
{
    int n = 0;
    if (e->flags & FI_RECV) {
        ofi_rx_t *rx = e->op_context, *outer = O.busy_rx;
        O.busy_rx = rx;
        if (e->len)
            n = on_packet(O.multi_recv ? e->buf : rx->buf, e->len);
        O.busy_rx = outer;
        /* The multi-receive buffer is used up (or a single-packet one was): post it again once
           no packet inside it can still be in the layer above's hands. */
        if (!O.multi_recv || (e->flags & FI_MULTI_RECV)) {
            rx->next_repost = O.repost;
            O.repost = rx;
        }
    } else if (e->flags & (FI_SEND | FI_READ | FI_WRITE | FI_ATOMIC)) {
        if (empi_ofi_is_read_ctx(e->op_context)) {
            empi_ofi_on_read_done(e->op_context, 0);
        } else {
            send_done(e->op_context);
        }
    }
    return n;
}

/* Set when a read of this pass found the queue short of a full batch: reading it again in the same
   pass would mostly find it empty, and every fi_cq_read runs the provider's progress (a poll() of
   its sockets with tcp), the largest part of our cost over fi_pingpong. */
static int drained;

/* Take completions from the shared batch, refilling it from the queue; -1 when there is none. */
static int next_entry(struct fi_cq_data_entry *out)
{
    if (batch_pos == batch_n) {
        if (drained)
            return -1;
        batch_pos = batch_n = 0;
        ssize_t got = fi_cq_read(O.cq, batch, CQ_BATCH);
        drained = got != -FI_EAVAIL && got < CQ_BATCH;   /* after an error entry, read on */
        if (got == -FI_EAVAIL) {
            handle_error_entry();
            return 0;
        }
        if (got <= 0)
            return -1;
        batch_n = (int)got;
    }
    *out = batch[batch_pos++];
    return 1;
}

int empi_ofi_poll(void)
{
    if (!O.up)
        return 0;
    int events = deliver_deferred();
    flush_ctrl();
    struct fi_cq_data_entry e;
    int rc;
    drained = 0;
    while ((rc = next_entry(&e)) >= 0) {
        if (rc == 1)
            events += handle_entry(&e);
        events += deliver_deferred();
        if (O.depth > 0) {
            repost_released();
            break; /* a waiting read polls one completion at a time and checks its flag */
        }
    }
    repost_released();
    flush_ctrl();
    return events;
}

int empi_ofi_wait_reply(volatile int *flag)
{
    O.depth++;
    while (!*flag)
        empi_ofi_poll();
    O.depth--;
    return 0;
}
