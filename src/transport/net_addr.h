/*
 * Addresses of this host for the network transports: which IPv4 addresses a rank publishes so peers
 * on other hosts can reach it, and which of a peer's published addresses to use. Shared by tcp/ and
 * udp/ so both find peers the same way.
 */
#ifndef EMPI_NET_ADDR_H
#define EMPI_NET_ADDR_H

#include <stdint.h>

#define EMPI_NET_MAX_ADDRS 8

/*
 * Fill `addrs` (network byte order) with the addresses to publish: the one named by EMPI_NET_ADDR
 * (an IPv4 literal or an interface name), else every IPv4 address of an interface that is up and not
 * loopback, else 127.0.0.1. Returns how many (>= 1), or -1 after printing why EMPI_NET_ADDR is bad.
 */
int empi_net_local_addrs(uint32_t *addrs, int max);

/* The peer address to connect or send to: the first on a subnet of one of our interfaces that is not
   also one of our own addresses, else the first not ours, else the first on our subnets, else the first. */
uint32_t empi_net_pick_addr(const uint32_t *addrs, int n);

/*
 * Where a rank can be reached, as the network transports publish it: its addresses and the network
 * stack they belong to (a hash of the kernel's boot id and the network namespace; 0 if unknown).
 */
typedef struct empi_net_card {
    uint64_t stack;
    uint16_t naddrs;
    uint32_t addrs[EMPI_NET_MAX_ADDRS];
} empi_net_card_t;

/* Fill a card for this process (empi_net_local_addrs); -1 as it does. */
int empi_net_card_fill(empi_net_card_t *card);

/* Whether a received card is well formed (1 to EMPI_NET_MAX_ADDRS addresses). */
int empi_net_card_valid(const empi_net_card_t *card);

/*
 * The address to reach the card's owner at: 127.0.0.1 when it shares our network stack (ranks of
 * one host under different host names, as the test suite's fake hosts), since each of its other
 * addresses may belong to an interface another job removes meanwhile; else empi_net_pick_addr.
 */
uint32_t empi_net_card_pick(const empi_net_card_t *card);

#endif
