/*
 * The UDP transport's socket and addressing: one nonblocking datagram socket per process, batched
 * transmission with sendmmsg and UDP GSO, and the datagram size for a peer from the MTU of the
 * path to it.
 */
#ifndef EMPI_UDP_SOCK_H
#define EMPI_UDP_SOCK_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/udp/udp_conn.h"

/* Bound to every local address on an ephemeral port; returns the descriptor (port in *port) or -1. */
int udp_sock_open(size_t sndbuf, size_t rcvbuf, uint16_t *port);

/* Transmit n datagrams to `to` in one system call when possible (runs of equal datagrams as one
   UDP GSO message each, once udp_sock_use_gso(1)). Returns how many left in order (the rest hit a
   full socket or queue and are for the caller to retry), or -1 on a hard error. */
int udp_sock_sendv(int fd, const struct sockaddr_in *to, const udp_dgram_t *d, int n);
void udp_sock_use_gso(int on);

/* Let the kernel hand several datagrams of one sender over in one read (UDP_GRO): 1 if it will. */
int udp_sock_enable_gro(int fd);

/* MTU of the path to `addr` (network byte order): loopback's 65536 for an address of this machine,
   else the MTU of the interface on the same subnet, else 1500. */
uint32_t udp_path_mtu(uint32_t addr);

#endif
