/*
 * EMPI_TRANSPORT selection. Hybrid rule: when no rank has more than EMPI_HYBRID_TCP_PEERS peers on
 * other hosts, everything goes over tcp. Otherwise a pair uses tcp when its hosts are at most k
 * apart on the ring of host ids, with k = peers / (2 * most ranks on one host), so no rank has more
 * than about EMPI_HYBRID_TCP_PEERS connections; the rest of the traffic goes over udp. The rule
 * depends only on the pair and the host map, so both ends agree.
 */
#include "transport/net_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tunables.h"

typedef enum { NET_TCP, NET_UDP, NET_HYBRID, NET_OFI } net_mode_t;

static struct {
    net_mode_t mode;
    int me, size, my_node, num_nodes;
    int all_tcp;      /* hybrid with few enough remote peers */
    int node_radius;  /* hybrid: tcp to hosts at most this far on the ring */
} sel;

/* auto: libfabric only if it drives RDMA hardware on every host (ranks agree through the bootstrap). */
static int every_host_has_rdma(void)
{
    unsigned char mine = (unsigned char)empi_ofi_rdma_present();
    if (empi_boot_put("net-rdma", &mine, 1) != 0 || empi_boot_fence() != 0)
        return 0;
    for (int r = 0; r < sel.size; r++) {
        unsigned char theirs = 0;
        size_t len;
        if (empi_boot_get(r, "net-rdma", &theirs, 1, &len) != 0 || !theirs)
            return 0;
    }
    return 1;
}

int empi_net_select_init(const empi_boot_info_t *boot)
{
    const char *t = empi_tunables.transport;
    memset(&sel, 0, sizeof sel);
    if (!strcmp(t, "tcp"))
        sel.mode = NET_TCP;
    else if (!strcmp(t, "udp"))
        sel.mode = NET_UDP;
    else if (!strcmp(t, "hybrid"))
        sel.mode = NET_HYBRID;
    else if (!strcmp(t, "ofi"))
        sel.mode = NET_OFI;
    else if (strcmp(t, "auto")) {
        fprintf(stderr, "EtherMPI: EMPI_TRANSPORT=%s: expected tcp, udp, hybrid, ofi or auto\n", t);
        return -1;
    }
    sel.me = boot->rank;
    sel.size = boot->size;
    sel.my_node = boot->node_id;
    sel.num_nodes = boot->num_nodes;
    if (!strcmp(t, "auto"))
        sel.mode = sel.num_nodes > 1 && every_host_has_rdma() ? NET_OFI : NET_TCP;
    if (sel.mode != NET_HYBRID || sel.num_nodes < 2)
        return 0;

    int *per_node = calloc((size_t)sel.num_nodes, sizeof *per_node);
    if (!per_node)
        return -1;
    for (int r = 0; r < sel.size; r++) {
        int node = empi_boot_node_of(r);
        if (node >= 0 && node < sel.num_nodes)
            per_node[node]++;
    }
    int smallest = sel.size, largest = 0;
    for (int n = 0; n < sel.num_nodes; n++) {
        smallest = per_node[n] < smallest ? per_node[n] : smallest;
        largest = per_node[n] > largest ? per_node[n] : largest;
    }
    free(per_node);
    long limit = empi_tunables.hybrid_tcp_peers;
    sel.all_tcp = sel.size - smallest <= limit;
    sel.node_radius = largest ? (int)(limit / (2L * largest)) : 0;
    return 0;
}

/* Processes of other jobs (index >= size) are not this file's business: core/init.c routes them. */
int empi_net_uses_tcp(int peer)
{
    int node = empi_boot_node_of(peer);
    if (node < 0 || node == sel.my_node || peer >= sel.size)
        return 0;
    switch (sel.mode) {
    case NET_TCP: return 1;
    case NET_UDP:
    case NET_OFI: return 0;
    default: break;
    }
    if (sel.all_tcp)
        return 1;
    int d = abs(node - sel.my_node);
    if (sel.num_nodes - d < d)
        d = sel.num_nodes - d;
    return d <= sel.node_radius;
}

int empi_net_uses_udp(int peer)
{
    int node = empi_boot_node_of(peer);
    return node >= 0 && node != sel.my_node && peer < sel.size && sel.mode != NET_OFI && !empi_net_uses_tcp(peer);
}

int empi_net_transports(empi_transport_t **out, int max)
{
    int n = 0;
    if (sel.num_nodes < 2)
        return 0;
    if (sel.mode == NET_OFI) {
        out[n++] = &empi_transport_ofi;
        return n;
    }
    if (sel.mode != NET_UDP && n < max)
        out[n++] = &empi_transport_tcp;
    /* Hybrid with few enough peers is all tcp: udp is not even started (the rule is job-wide). */
    if (sel.mode != NET_TCP && !(sel.mode == NET_HYBRID && sel.all_tcp) && n < max)
        out[n++] = &empi_transport_udp;
    return n;
}

empi_transport_t *empi_net_transport_for(int peer)
{
    int node = empi_boot_node_of(peer);
    if (sel.mode == NET_OFI && node >= 0 && node != sel.my_node && peer < sel.size)
        return &empi_transport_ofi;
    if (empi_net_uses_tcp(peer))
        return &empi_transport_tcp;
    if (empi_net_uses_udp(peer))
        return &empi_transport_udp;
    return NULL;
}

/* Stand-in when the udp sources are not built: asking for udp fails at init with a clear message. */
static int udp_missing_init(const empi_boot_info_t *boot, empi_deliver_fn deliver)
{
    (void)deliver;
    /* Every rank says it: the first to fail ends the job, whichever it is. */
    fprintf(stderr, "EtherMPI: rank %d: EMPI_TRANSPORT=%s needs the udp transport, which this build lacks\n",
            boot->rank, empi_tunables.transport);
    return EMPI_ERROR;
}

static int udp_missing_noop(void)
{
    return 0;
}

static int udp_missing_reaches(int peer)
{
    (void)peer;
    return 0;
}

static int udp_missing_send(int peer, const struct iovec *iov, int iovcnt)
{
    (void)peer;
    (void)iov;
    (void)iovcnt;
    return EMPI_ERROR;
}

__attribute__((weak)) empi_transport_t empi_transport_udp = {
    .name = "udp",
    .init = udp_missing_init,
    .finalize = udp_missing_noop,
    .reaches = udp_missing_reaches,
    .progress = udp_missing_noop,
    .am_send = udp_missing_send,
};

/* Stand-ins when libfabric was not found at build time: EMPI_TRANSPORT=ofi fails at init, auto
   finds no RDMA provider, empi-info says libfabric is absent. */
static int ofi_missing_init(const empi_boot_info_t *boot, empi_deliver_fn deliver)
{
    (void)deliver;
    /* Every rank says it: the first to fail may end the job before rank 0 has printed. */
    fprintf(stderr, "EtherMPI: rank %d: EMPI_TRANSPORT=%s needs the ofi transport, which this build lacks "
            "(libfabric was not found when it was built)\n", boot->rank, empi_tunables.transport);
    return EMPI_ERROR;
}

__attribute__((weak)) empi_transport_t empi_transport_ofi = {
    .name = "ofi",
    .init = ofi_missing_init,
    .finalize = udp_missing_noop,
    .reaches = udp_missing_reaches,
    .progress = udp_missing_noop,
    .am_send = udp_missing_send,
};

__attribute__((weak)) int empi_ofi_rdma_present(void)
{
    return 0;
}

__attribute__((weak, visibility("default"))) int
empi_info_ofi_providers(void (*cb)(const char *prov, const char *fabric, const char *domain, int rdma),
                        char *chosen, size_t chosen_len)
{
    (void)cb;
    if (chosen_len)
        snprintf(chosen, chosen_len, "none (built without libfabric)");
    return -1;
}
