/*
 * The libfabric netmod (docs/OFI.md): reaches ranks on other hosts through one reliable-datagram
 * endpoint (FI_EP_RDM) per process, opened on the provider ofi_provider.c picks. This file holds
 * the transport object: set-up (fabric, domain, address vector, completion queue, endpoint, receive
 * and bounce buffers), the address exchange through the bootstrap, am_send and the closing
 * handshake. The data path proper is in ofi_cq.c, the rendezvous read in ofi_get.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/copy.h"
#include "core/tunables.h"
#include "transport/net_select.h"
#include "transport/ofi/ofi_internal.h"

#define OFI_ADDR_MAX 256
#define OFI_DRAIN_NS 20000000 /* MPI_Finalize waits this long for send completions before its fence */
#define OFI_LINGER_NS 20000000

ofi_state_t O;

static int ofi_reaches(int peer)
{
    return O.up && peer >= 0 && peer < O.size && O.addr[peer] != FI_ADDR_NOTAVAIL;
}

static int open_endpoint(void)
{
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE};
    int rc;
    if ((rc = fi_fabric(O.info->fabric_attr, &O.fabric, NULL)) ||
        (rc = fi_domain(O.fabric, O.info, &O.domain, NULL)) ||
        (rc = fi_av_open(O.domain, &av_attr, &O.av, NULL)) ||
        (rc = fi_cq_open(O.domain, &cq_attr, &O.cq, NULL)) ||
        (rc = fi_endpoint(O.domain, O.info, &O.ep, NULL)) || (rc = fi_ep_bind(O.ep, &O.av->fid, 0)) ||
        (rc = fi_ep_bind(O.ep, &O.cq->fid, FI_TRANSMIT | FI_RECV)))
        goto fail;
    if (O.multi_recv) {
        size_t min = O.wire_max;
        if ((rc = fi_setopt(&O.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof min)))
            goto fail;
    }
    if ((rc = fi_enable(O.ep)))
        goto fail;
    empi_ofi_mr_setup(O.domain, O.ep, O.info->domain_attr->mr_mode, empi_tunables.ofi_mr_cache);
    return 0;
fail:
    empi_ofi_warn("endpoint set-up", rc);
    return -1;
}

/* Send contexts, the registered bounce slab, the registered receive slab, all receives posted. */
static int make_buffers(void)
{
    O.tx_all = calloc(OFI_TX_BIG, sizeof *O.tx_all);
    O.tx_slab = malloc(OFI_TX_BIG * O.wire_max);
    size_t rx_total = empi_tunables.ofi_rx_buffers;
    size_t each = O.multi_recv ? rx_total / 4 : O.wire_max;
    if (each < 4 * O.wire_max && O.multi_recv)
        each = 4 * O.wire_max;
    O.nrx = O.multi_recv ? 4 : (int)(rx_total / O.wire_max < 16 ? 16 : rx_total / O.wire_max);
    O.rx = calloc((size_t)O.nrx, sizeof *O.rx);
    O.rx_slab = malloc(each * (size_t)O.nrx);
    if (!O.tx_all || !O.tx_slab || !O.rx || !O.rx_slab)
        return -1;
    for (int i = 0; i < OFI_TX_BIG; i++) {
        O.tx_all[i].buf = O.tx_slab + (size_t)i * O.wire_max;
        O.tx_all[i].next = O.tx_big_free;
        O.tx_big_free = &O.tx_all[i];
    }
    if (empi_ofi_mr_acquire(O.tx_slab, OFI_TX_BIG * O.wire_max, FI_SEND, &O.tx_mr) ||
        empi_ofi_mr_acquire(O.rx_slab, each * (size_t)O.nrx, FI_RECV, &O.rx_mr))
        return -1;
    for (int i = 0; i < O.nrx; i++) {
        O.rx[i].buf = O.rx_slab + (size_t)i * each;
        O.rx[i].size = each;
        if (empi_ofi_post_rx(&O.rx[i]) != EMPI_OK)
            return -1;
    }
    return 0;
}

/* Publish our endpoint name, then insert every rank's: fi_addr of rank r is r (FI_AV_TABLE). */
static int exchange_addresses(int ok)
{
    char name[OFI_ADDR_MAX];
    size_t len = sizeof name;
    if (ok && fi_getname(&O.ep->fid, name, &len) != 0)
        ok = 0;
    /* Publish even after a failure, so the collective fence still completes everywhere. */
    if (empi_boot_put("ofi-addr", name, ok ? len : 0) != 0 || empi_boot_fence() != 0 || !ok)
        return -1;
    for (int r = 0; r < O.size; r++) {
        O.addr[r] = FI_ADDR_NOTAVAIL;
        if (empi_net_transport_for(r) != &empi_transport_ofi)
            continue;
        char peer[OFI_ADDR_MAX];
        size_t plen = 0;
        if (empi_boot_get(r, "ofi-addr", peer, sizeof peer, &plen) != 0 || plen == 0)
            return -1;
        fi_addr_t a;
        if (fi_av_insert(O.av, peer, 1, &a, 0, NULL) != 1)
            return -1;
        O.addr[r] = a;
    }
    /* Our own endpoint too, kept apart from the peers' (nothing but atomics goes to it). Only
       this process's own accumulates depend on it, so a provider that refuses goes without. */
    O.self_addr = FI_ADDR_NOTAVAIL;
    empi_transport_ofi.atomic_self = 0;
    if (O.can_atomic && empi_ofi_atomic_self_wanted(O.info->fabric_attr->prov_name)) {
        if (fi_av_insert(O.av, name, 1, &O.self_addr, 0, NULL) == 1)
            empi_transport_ofi.atomic_self = 1;
        else
            fprintf(stderr,
                    "EtherMPI: rank %d: %s cannot address its own endpoint: this process's own accumulates "
                    "skip its atomics (EMPI_OFI_ATOMIC_SELF)\n",
                    O.me, O.info->fabric_attr->prov_name);
    }
    return 0;
}

static void release_all(void)
{
    empi_ofi_mr_release(O.tx_mr);
    empi_ofi_mr_release(O.rx_mr);
    O.tx_mr = O.rx_mr = NULL;
    if (O.ep)
        fi_close(&O.ep->fid);
    empi_ofi_mr_teardown();
    if (O.av)
        fi_close(&O.av->fid);
    if (O.cq)
        fi_close(&O.cq->fid);
    if (O.domain)
        fi_close(&O.domain->fid);
    if (O.fabric)
        fi_close(&O.fabric->fid);
    fi_freeinfo(O.info);
    while (O.def_head) {
        ofi_deferred_t *d = O.def_head;
        O.def_head = d->next;
        free(d);
    }
    while (O.ctrl_head) {
        ofi_ctrl_t *c = O.ctrl_head;
        O.ctrl_head = c->next;
        free(c);
    }
    free(O.tx_all);
    free(O.tx_slab);
    free(O.rx);
    free(O.rx_slab);
    free(O.addr);
    free(O.tx_credits);
    free(O.owed);
    for (int r = 0; O.early && r < O.size; r++)
        while (O.early[r]) {
            ofi_deferred_t *d = O.early[r];
            O.early[r] = d->next;
            free(d);
        }
    free(O.early);
    free(O.tx_seq);
    free(O.rx_seq);
    free(O.unflushed);
    memset(&O, 0, sizeof O);
}

/* A rank waiting in a bootstrap fence keeps polling: utility providers (ofi_rxd) retransmit and
   acknowledge only inside fi_cq_read, and a peer may still wait for a packet of ours that was lost.
   Packets for the layer above wait (depth > 0): in the closing fence it is already gone. */
static void fence_hook(void)
{
    O.depth++;
    empi_ofi_poll();
    O.depth--;
}

static int ofi_init(const empi_boot_info_t *boot, empi_deliver_fn deliver)
{
    memset(&O, 0, sizeof O);
    O.me = boot->rank;
    O.size = boot->size;
    O.deliver = deliver;
    O.window = empi_tunables.ofi_credits > 1 ? (int)empi_tunables.ofi_credits : 2;
    O.addr = malloc((size_t)O.size * sizeof *O.addr);
    O.tx_credits = malloc((size_t)O.size * sizeof *O.tx_credits);
    O.owed = calloc((size_t)O.size, sizeof *O.owed);
    O.unflushed = calloc((size_t)O.size, 1);
    O.tx_seq = calloc((size_t)O.size, sizeof *O.tx_seq);
    O.rx_seq = calloc((size_t)O.size, sizeof *O.rx_seq);
    O.early = calloc((size_t)O.size, sizeof *O.early);
    int ok = O.addr && O.tx_credits && O.owed && O.unflushed && O.tx_seq && O.rx_seq && O.early;
    for (int r = 0; ok && r < O.size; r++)
        O.tx_credits[r] = O.window;
    if (ok && (O.info = empi_ofi_getinfo(empi_tunables.ofi_provider, 0)) == NULL)
        ok = 0;
    if (ok) {
        O.multi_recv = (O.info->caps & FI_MULTI_RECV) != 0;
        empi_transport_ofi.max_packet = empi_tunables.ofi_max_packet;
        O.wire_max = (sizeof(ofi_hdr_t) + empi_transport_ofi.max_packet + OFI_ALIGN - 1) & ~(size_t)(OFI_ALIGN - 1);
        O.inject_limit = O.info->tx_attr->inject_size < 512 ? O.info->tx_attr->inject_size : 512;
        O.quiet_inject = empi_ofi_quiet_inject_wanted(O.info->fabric_attr->prov_name);
        empi_transport_ofi.has_get = (O.info->caps & FI_RMA) && (O.info->caps & FI_READ);
        O.can_write = (O.info->caps & FI_RMA) && (O.info->caps & FI_WRITE) && empi_tunables.ofi_rma_write;
        O.can_atomic = (O.info->caps & FI_ATOMIC) && empi_ofi_atomic_wanted(O.info->fabric_attr->prov_name);
        empi_transport_ofi.has_atomic = O.can_atomic;
        ok = open_endpoint() == 0 && make_buffers() == 0;
    }
    if (exchange_addresses(ok) != 0) {
        if (boot->rank == 0 || ok)
            fprintf(stderr, "EtherMPI: rank %d: libfabric transport set-up failed (provider %s)\n",
                    boot->rank, O.info ? O.info->fabric_attr->prov_name : "none");
        release_all();
        return EMPI_ERROR;
    }
    O.up = 1;
    empi_boot_set_fence_hook(fence_hook);
    if (empi_tunables.debug >= 1 && boot->rank == 0)
        fprintf(stderr, "EtherMPI: ofi: provider %s, fabric %s, domain %s, mr_mode 0x%lx, %s, rma read %s\n",
                O.info->fabric_attr->prov_name, O.info->fabric_attr->name, O.info->domain_attr->name,
                (unsigned long)O.info->domain_attr->mr_mode, O.multi_recv ? "multi-recv" : "single buffers",
                empi_transport_ofi.has_get ? "yes" : "no");
    return EMPI_OK;
}

static int ofi_progress(void)
{
    return empi_ofi_poll();
}

static int ofi_am_send(int peer, const struct iovec *iov, int iovcnt)
{
    if (!ofi_reaches(peer))
        return EMPI_UNREACHABLE;
    if (O.tx_credits[peer] <= 0 || O.ctrl_head)
        return EMPI_AGAIN;
    size_t len = sizeof(ofi_hdr_t);
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    size_t pad = (OFI_ALIGN - len % OFI_ALIGN) % OFI_ALIGN;
    len += pad;
    if (len > O.wire_max)
        return EMPI_ERROR;
    /* Gather on the stack for injection, else straight into a bounce slot. */
    char small[512];
    char *wire = small;
    ofi_tx_t *big = NULL;
    int inject = len <= O.inject_limit;
    if (!inject) {
        if (!O.tx_big_free)
            return EMPI_AGAIN;
        big = O.tx_big_free;
        wire = big->buf;
    }
    ofi_hdr_t h = {.src = (uint32_t)O.me, .kind = OFI_PKT_DATA, .pad = (uint8_t)pad,
                   .credits = empi_ofi_take_owed(peer), .seq = O.tx_seq[peer]};
    memcpy(wire, &h, sizeof h);
    size_t off = sizeof h;
    for (int i = 0; i < iovcnt; i++) {
        empi_copy(wire + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    memset(wire + off, 0, pad);
    int rc = empi_ofi_post_send(peer, wire, len, inject);
    if (rc != EMPI_OK) {
        O.owed[peer] += h.credits;
        return rc;
    }
    O.tx_credits[peer]--;
    O.tx_seq[peer]++;
    return EMPI_OK;
}

/* Sends not yet completed count until a deadline: a peer already in the fence polls no more. */
static size_t ofi_pending(void)
{
    if (!O.up)
        return 0;
    uint64_t now = empi_now_ns();
    if (!O.drain_deadline)
        O.drain_deadline = now + OFI_DRAIN_NS;
    if (now >= O.drain_deadline)
        return 0;
    size_t unflushed = (size_t)empi_ofi_flush_quiet(); /* posts flushes: count inflight after */
    return unflushed + O.inflight + (O.ctrl_head != NULL);
}

/*
 * The closing handshake: reliability of utility providers (ofi_rxd) needs the receiver to keep
 * answering, and a rank in the bootstrap fence does not. So ranks agree through the bootstrap,
 * round by round, whether every send of everyone completed, and progress for a while between
 * rounds while someone's did not.
 */
static void closing_handshake(void)
{
    for (int round = 0; round < 100; round++) {
        char key[32];
        snprintf(key, sizeof key, "ofi-done-%d", round);
        int unflushed = empi_ofi_flush_quiet(); /* posts flushes: read inflight after */
        unsigned char done = !unflushed && O.inflight == 0 && !O.ctrl_head;
        if (empi_boot_put(key, &done, 1) != 0 || empi_boot_fence() != 0)
            return;
        int everyone = 1;
        for (int r = 0; r < O.size && everyone; r++) {
            unsigned char theirs = 0;
            size_t len;
            everyone = empi_boot_get(r, key, &theirs, 1, &len) == 0 && theirs;
        }
        if (everyone)
            return;
        for (uint64_t start = empi_now_ns(); empi_now_ns() - start < OFI_LINGER_NS;)
            empi_ofi_poll();
    }
}

static void discard(int src, const void *pkt, size_t len)
{
    (void)src;
    (void)pkt;
    (void)len;
}

static int ofi_finalize(void)
{
    if (O.up && empi_tunables.debug >= 1) {
        uint64_t regs, hits;
        empi_ofi_mr_stats(&regs, &hits);
        fprintf(stderr,
                "EtherMPI: ofi: rank %d: %llu rendezvous reads, %llu one-sided reads, %llu one-sided writes, "
                "%llu one-sided atomics, %llu registrations, %llu cache hits\n",
                O.me, (unsigned long long)O.reads, (unsigned long long)O.rma_reads,
                (unsigned long long)O.rma_writes, (unsigned long long)O.rma_atomics, (unsigned long long)regs,
                (unsigned long long)hits);
    }
    if (O.up) {
        O.deliver = discard;
        closing_handshake();
        O.up = 0;
    }
    if (empi_boot_fence_hook() == fence_hook)
        empi_boot_set_fence_hook(NULL);
    release_all();
    return EMPI_OK;
}

static int ofi_wait_fd(void)
{
    return O.up ? EMPI_WAIT_POLL : EMPI_WAIT_NOTHING;
}

empi_transport_t empi_transport_ofi = {
    .name = "ofi",
    .max_packet = 65536,
    .has_get = 0,
    .init = ofi_init,
    .finalize = ofi_finalize,
    .reaches = ofi_reaches,
    .progress = ofi_progress,
    .am_send = ofi_am_send,
    .get = empi_ofi_get,
    .mem_expose = empi_ofi_mem_expose,
    .mem_unexpose = empi_ofi_mem_unexpose,
    .mem_read = empi_ofi_mem_read,
    .mem_write = empi_ofi_mem_write,
    .mem_atomic = empi_ofi_mem_atomic,
    .wait_fd = ofi_wait_fd,
    .pending = ofi_pending,
};
