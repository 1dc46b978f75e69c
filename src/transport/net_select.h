/*
 * The seam between hosts: which transport carries traffic to a rank on another host. Ranks on the
 * same host use shm (or self); EMPI_TRANSPORT picks the network transport for the others:
 *   tcp     one connection per peer pair (transport/tcp/)
 *   udp     one socket per process, reliability of its own (transport/udp/)
 *   hybrid  tcp to near peers, udp to the rest, so connections per process stay bounded as the job
 *           grows (rule in net_select.c).
 *   ofi     libfabric (transport/ofi/, EMPI_OFI_PROVIDER picks the provider)
 *   auto    ofi when every host has an RDMA provider (verbs, efa, cxi...), else tcp A pair always uses one transport per direction, so FIFO
 *           order per pair (MPI's non-overtaking rule) holds.
 * Every rank computes the same answer for a pair from the bootstrap's host map alone.
 */
#ifndef EMPI_NET_SELECT_H
#define EMPI_NET_SELECT_H

#include "transport/transport.h"

/* Read EMPI_TRANSPORT and the host map. -1 after printing why the setting is bad. */
int empi_net_select_init(const empi_boot_info_t *boot);

/* The network transports this job needs, in start order; returns how many (0 on one host). */
int empi_net_transports(empi_transport_t **out, int max);

/* The transport for world rank `peer` on another host (NULL for a peer on this host). */
empi_transport_t *empi_net_transport_for(int peer);

/* Shorthands for the transports' own use (eager connects, resource sizing). */
int empi_net_uses_tcp(int peer);
int empi_net_uses_udp(int peer);

/* 1 if libfabric offers an RDMA provider on this host (0 when ofi/ is not built). */
int empi_ofi_rdma_present(void);

#endif
