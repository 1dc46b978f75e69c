/*
 * Which libfabric provider the netmod opens. EMPI_OFI_PROVIDER names one ("tcp", "tcp;ofi_rxm",
 * "udp;ofi_rxd", "verbs;ofi_rxm", ...); empty means automatic: the first RDMA provider libfabric
 * offers here, else tcp;ofi_rxm. We ask for reliable datagram endpoints (FI_EP_RDM) with messages,
 * send-after-send ordering (MPI's non-overtaking rule rides on it) and, in decreasing order of
 * preference, RMA reads and multi-receive buffers; every memory-registration mode our cache handles
 * (ofi_mr.h) is accepted.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <unistd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tunables.h"
#include "transport/net_addr.h"
#include "transport/ofi/ofi_internal.h"

#define OFI_API FI_VERSION(1, 17)

/* Core providers that drive RDMA hardware, in order of preference. */
static const char *const rdma_cores[] = {"cxi", "efa", "opx", "psm3", "psm2", "verbs", "usnic"};

const char *empi_ofi_prov_core(const struct fi_info *fi, char *buf, size_t len)
{
    snprintf(buf, len, "%s", fi->fabric_attr->prov_name);
    char *semi = strchr(buf, ';');
    if (semi)
        *semi = '\0';
    return buf;
}

static int is_rdma(const struct fi_info *fi)
{
    char core[64];
    empi_ofi_prov_core(fi, core, sizeof core);
    for (size_t i = 0; i < sizeof rdma_cores / sizeof rdma_cores[0]; i++)
        if (!strcmp(core, rdma_cores[i]))
            return 1;
    return 0;
}

/* Socket-based providers bind to an IP address: the one EMPI_NET_ADDR names, or our first. */
static int socket_based(const char *provider)
{
    return !strncmp(provider, "tcp", 3) || !strncmp(provider, "udp", 3) || !strncmp(provider, "sockets", 7);
}

static struct fi_info *make_hints(const char *provider, uint64_t caps, struct sockaddr_in *src)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = caps;
    h->ep_attr->type = FI_EP_RDM;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->domain_attr->control_progress = FI_PROGRESS_UNSPEC;
    if (provider && *provider) {
        h->fabric_attr->prov_name = strdup(provider);
        if (src) {
            h->addr_format = FI_SOCKADDR_IN;
            h->src_addr = malloc(sizeof *src);
            if (h->src_addr) {
                memcpy(h->src_addr, src, sizeof *src);
                h->src_addrlen = sizeof *src;
            }
        }
    }
    return h;
}

static int source_address(struct sockaddr_in *src)
{
    uint32_t addrs[EMPI_NET_MAX_ADDRS];
    if (empi_net_local_addrs(addrs, EMPI_NET_MAX_ADDRS) < 1)
        return -1;
    memset(src, 0, sizeof *src);
    src->sin_family = AF_INET;
    src->sin_addr.s_addr = addrs[0];
    return 0;
}

int empi_ofi_atomic_wanted(const char *provider)
{
    int on = empi_tunable_switch(empi_tunables.ofi_rma_atomic);
    if (on >= 0)
        return on;
    /* auto: libfabric 1.17's ofi_rxd crashes in its progress once atomics meet datagram loss
       (net.netns.ofi-rxd-loss with atomics on: 5 runs of 6; docs/OFI.md) */
    return !provider || !strstr(provider, "ofi_rxd");
}

int empi_ofi_atomic_self_wanted(const char *provider)
{
    int on = empi_tunable_switch(empi_tunables.ofi_atomic_self);
    if (on >= 0)
        return on;
    /* auto: these apply atomics in software, in the target's progress, which runs inside its MPI
       calls as its own accumulates do */
    static const char *const in_progress[] = {"ofi_rxm", "ofi_rxd", "tcp", "udp", "sockets",
                                              "shm",     "efa",     "psm2", "psm3", "opx"};
    for (size_t i = 0; provider && i < sizeof in_progress / sizeof in_progress[0]; i++)
        if (strstr(provider, in_progress[i]))
            return 0;
    return 1;
}

/*
 * EMPI_OFI_QUIET_INJECT for the provider in use. The finalize flush relies on sends to a peer
 * completing in order, which libfabric does not promise (FI_ORDER_SAS orders delivery, not local
 * completions) but these providers do: tcp and rxm write one socket or queue pair per peer in
 * order, rxd completes a send once its cumulative acknowledgement covers it.
 */
int empi_ofi_quiet_inject_wanted(const char *provider)
{
    int on = empi_tunable_switch(empi_tunables.ofi_quiet_inject);
    if (on >= 0)
        return on;
    static const char *const ordered[] = {"tcp", "udp", "verbs", "ofi_rxm", "ofi_rxd"};
    char core[64];
    snprintf(core, sizeof core, "%s", provider);
    for (char *tok = strtok(core, ";"); tok; tok = strtok(NULL, ";")) {
        int known = 0;
        for (size_t i = 0; i < sizeof ordered / sizeof *ordered; i++)
            known |= !strcmp(tok, ordered[i]);
        if (!known)
            return 0;
    }
    return 1;
}

/* fi_getinfo for `provider` with the richest capability set it grants. */
static struct fi_info *query(const char *provider, int quiet)
{
    static const uint64_t cap_sets[] = {
        FI_MSG | FI_RMA | FI_ATOMIC | FI_READ | FI_REMOTE_READ | FI_WRITE | FI_REMOTE_WRITE | FI_MULTI_RECV,
        FI_MSG | FI_RMA | FI_ATOMIC | FI_READ | FI_REMOTE_READ | FI_WRITE | FI_REMOTE_WRITE,
        FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ | FI_WRITE | FI_REMOTE_WRITE | FI_MULTI_RECV,
        FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ | FI_WRITE | FI_REMOTE_WRITE,
        FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ | FI_MULTI_RECV,
        FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ,
        FI_MSG | FI_MULTI_RECV,
        FI_MSG,
    };
    struct sockaddr_in src;
    int bind_ip = provider && socket_based(provider) && source_address(&src) == 0;
    int last = 0;
    for (size_t i = 0; i < sizeof cap_sets / sizeof cap_sets[0]; i++) {
        if ((!empi_tunables.ofi_rma_read && (cap_sets[i] & FI_RMA)) ||
            (!empi_ofi_atomic_wanted(provider) && (cap_sets[i] & FI_ATOMIC)))
            continue;
        struct fi_info *hints = make_hints(provider, cap_sets[i], bind_ip ? &src : NULL);
        struct fi_info *info = NULL;
        if (!hints)
            return NULL;
        last = fi_getinfo(OFI_API, NULL, NULL, 0, hints, &info);
        fi_freeinfo(hints);
        /* Asking for more may bring in a utility layer over the provider named ("tcp" becomes
           "tcp;ofi_rxm" for atomics): the provider asked for wins over the capability. */
        if (!last && info && (cap_sets[i] & FI_ATOMIC) && provider && *provider &&
            strcmp(info->fabric_attr->prov_name, provider) != 0) {
            fi_freeinfo(info);
            continue;
        }
        if (!last && info)
            return info;
    }
    if (!quiet)
        fprintf(stderr, "EtherMPI: libfabric offers no usable provider \"%s\": %s\n",
                provider && *provider ? provider : "(any)", fi_strerror(-last));
    return NULL;
}

/* The provider string of the automatic choice, or NULL when libfabric offers none. */
static char *auto_choice(int rdma_only)
{
    struct fi_info *all = query(NULL, 1);
    char *pick = NULL;
    for (size_t r = 0; all && !pick && r < sizeof rdma_cores / sizeof rdma_cores[0]; r++)
        for (struct fi_info *fi = all; fi && !pick; fi = fi->next) {
            char core[64];
            if (is_rdma(fi) && !strcmp(empi_ofi_prov_core(fi, core, sizeof core), rdma_cores[r]))
                pick = strdup(fi->fabric_attr->prov_name);
        }
    fi_freeinfo(all);
    if (!pick && !rdma_only)
        pick = strdup("tcp;ofi_rxm");
    return pick;
}

struct fi_info *empi_ofi_getinfo(const char *provider, int quiet)
{
    if (provider && *provider)
        return query(provider, quiet);
    char *pick = auto_choice(0);
    struct fi_info *info = pick ? query(pick, quiet) : NULL;
    free(pick);
    return info;
}

/* RDMA devices the kernel shows: verbs (InfiniBand, RoCE, iWARP, EFA), Slingshot, Omni-Path. */
static int rdma_device_present(void)
{
    static const char *const paths[] = {"/dev/cxi0", "/dev/hfi1_0", "/dev/infiniband/uverbs0"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (access(paths[i], F_OK) == 0)
            return 1;
    DIR *d = opendir("/sys/class/infiniband");
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d));)
        found = e->d_name[0] != '.';
    if (d)
        closedir(d);
    return found;
}

/* For net_select's automatic mode: does libfabric drive RDMA hardware here? Loading libfabric's
   providers takes a good fraction of a second, so only hosts with such a device ask it. */
int empi_ofi_rdma_present(void)
{
    if (!rdma_device_present())
        return 0;
    char *pick = auto_choice(1);
    free(pick);
    return pick != NULL;
}

/*
 * empi-info: every FI_EP_RDM provider libfabric offers on this machine (one call of `cb` each, with
 * its provider string, fabric and domain names), then the one a job with the current environment
 * would use. Returns the number listed, or -1 when libfabric is not built in.
 */
__attribute__((visibility("default"))) int
empi_info_ofi_providers(void (*cb)(const char *prov, const char *fabric, const char *domain, int rdma),
                        char *chosen, size_t chosen_len)
{
    if (empi_tunables_load() != 0)
        return 0;
    struct fi_info *all = query(NULL, 1);
    int n = 0;
    for (struct fi_info *fi = all; fi; fi = fi->next) {
        int seen = 0; /* one line per provider and domain, whatever the variants of attributes */
        for (struct fi_info *e = all; e != fi && !seen; e = e->next)
            seen = !strcmp(e->fabric_attr->prov_name, fi->fabric_attr->prov_name) &&
                   !strcmp(e->fabric_attr->name, fi->fabric_attr->name) &&
                   !strcmp(e->domain_attr->name, fi->domain_attr->name);
        if (seen)
            continue;
        n++;
        if (cb)
            cb(fi->fabric_attr->prov_name, fi->fabric_attr->name, fi->domain_attr->name, is_rdma(fi));
    }
    fi_freeinfo(all);
    struct fi_info *job = empi_ofi_getinfo(empi_tunables.ofi_provider, 1);
    if (chosen_len)
        snprintf(chosen, chosen_len, "%s%s%s%s", job ? job->fabric_attr->prov_name : "none",
                 job ? " (domain " : "", job ? job->domain_attr->name : "", job ? ")" : "");
    fi_freeinfo(job);
    size_t used = strlen(chosen);
    if (chosen_len > used)
        snprintf(chosen + used, chosen_len - used, "; EMPI_TRANSPORT=auto picks %s here",
                 empi_ofi_rdma_present() ? "ofi (an RDMA provider is present)" : "tcp (no RDMA provider)");
    return n;
}
