/*
 * Address discovery with getifaddrs. Publishing every usable address (rather than guessing one)
 * lets the connecting side choose, and it knows best: the address sharing a subnet with one of its
 * own interfaces is the one the kernel routes directly.
 */
#include "transport/net_addr.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fnv.h"
#include "core/tunables.h"

static uint32_t ipv4_of(const struct sockaddr *sa)
{
    return ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr;
}

static int usable(const struct ifaddrs *ifa)
{
    return ifa->ifa_addr && ifa->ifa_addr->sa_family == AF_INET && (ifa->ifa_flags & IFF_UP) &&
           !(ifa->ifa_flags & IFF_LOOPBACK);
}

int empi_net_local_addrs(uint32_t *addrs, int max)
{
    const char *want = empi_tunables.net_addr;
    struct in_addr literal;
    if (want[0] && inet_pton(AF_INET, want, &literal) == 1) {
        addrs[0] = literal.s_addr;
        return 1;
    }
    struct ifaddrs *list;
    int n = 0;
    if (getifaddrs(&list) == 0) {
        for (struct ifaddrs *ifa = list; ifa && n < max; ifa = ifa->ifa_next) {
            if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET)
                continue;
            if (want[0] ? strcmp(ifa->ifa_name, want) == 0 : usable(ifa))
                addrs[n++] = ipv4_of(ifa->ifa_addr);
        }
        freeifaddrs(list);
    }
    if (n == 0 && want[0]) {
        fprintf(stderr, "EtherMPI: EMPI_NET_ADDR=%s is neither an IPv4 address nor an interface with one\n", want);
        return -1;
    }
    if (n == 0)
        addrs[n++] = htonl(INADDR_LOOPBACK);
    return n;
}

static int is_local(const struct ifaddrs *list, uint32_t addr)
{
    for (const struct ifaddrs *ifa = list; ifa; ifa = ifa->ifa_next)
        if (ifa->ifa_addr && ifa->ifa_addr->sa_family == AF_INET && ipv4_of(ifa->ifa_addr) == addr)
            return 1;
    return 0;
}

static int on_local_subnet(const struct ifaddrs *list, uint32_t addr)
{
    for (const struct ifaddrs *ifa = list; ifa; ifa = ifa->ifa_next) {
        if (!usable(ifa) || !ifa->ifa_netmask)
            continue;
        uint32_t mask = ipv4_of(ifa->ifa_netmask);
        if ((ipv4_of(ifa->ifa_addr) & mask) == (addr & mask))
            return 1;
    }
    return 0;
}

/*
 * Hosts often carry the same private address on a bridge of their own (docker0's 172.17.0.1,
 * virbr0's 192.168.122.1): a peer address that is also ours leads back to this host, so it is
 * taken only when the peer has no other (a peer on this very host: the loopback test hosts).
 */
uint32_t empi_net_pick_addr(const uint32_t *addrs, int n)
{
    struct ifaddrs *list;
    if (n <= 1 || getifaddrs(&list) != 0)
        return addrs[0];
    int pick = -1;
    for (int i = 0; i < n && pick < 0; i++)
        if (!is_local(list, addrs[i]) && on_local_subnet(list, addrs[i]))
            pick = i;
    for (int i = 0; i < n && pick < 0; i++)
        if (!is_local(list, addrs[i]))
            pick = i;
    for (int i = 0; i < n && pick < 0; i++)
        if (on_local_subnet(list, addrs[i]))
            pick = i;
    freeifaddrs(list);
    return addrs[pick < 0 ? 0 : pick];
}

/* The kernel's boot id and the network namespace's inode: equal exactly for processes that see the
   same interfaces, whatever host name each was given. Read again at every card filled (a process
   may have changed namespace since), kept for the picks that follow. */
static uint64_t our_stack;

static uint64_t network_stack_id(void)
{
    char boot[64] = {0};
    struct stat ns;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    int ok = f && fgets(boot, sizeof boot, f) && stat("/proc/self/ns/net", &ns) == 0;
    if (f)
        fclose(f);
    if (!ok)
        return 0;
    uint64_t h = empi_fnv1a64(EMPI_FNV64_BASIS, boot, strlen(boot));
    h = empi_fnv1a64(h, &ns.st_dev, sizeof ns.st_dev);
    return empi_fnv1a64(h, &ns.st_ino, sizeof ns.st_ino);
}

int empi_net_card_fill(empi_net_card_t *card)
{
    memset(card, 0, sizeof *card);
    int n = empi_net_local_addrs(card->addrs, EMPI_NET_MAX_ADDRS);
    if (n < 0)
        return -1;
    card->naddrs = (uint16_t)n;
    card->stack = our_stack = network_stack_id();
    return 0;
}

int empi_net_card_valid(const empi_net_card_t *card)
{
    return card->naddrs >= 1 && card->naddrs <= EMPI_NET_MAX_ADDRS;
}

uint32_t empi_net_card_pick(const empi_net_card_t *card)
{
    if (!our_stack)
        our_stack = network_stack_id();
    if (card->stack && card->stack == our_stack)
        return htonl(INADDR_LOOPBACK);
    return empi_net_pick_addr(card->addrs, card->naddrs);
}
