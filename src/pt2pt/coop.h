/* Cooperative single copy of rendezvous messages on one node (description in coop.c). */
#ifndef EMPI_PT2PT_COOP_H
#define EMPI_PT2PT_COOP_H

#include <stdint.h>

#include "pt2pt/proto.h"

/* Receiver: copy `len` bytes at `remote` in world_src into `local` (contiguous), with the
   sender's help if it comes. 0 when the data is in place; -1 when this pair cannot (nothing to
   undo: fall back to another protocol, which copies everything again). */
int empi_coop_recv(int world_src, void *local, uint64_t remote, uint64_t len);

/* Sender: a COOP from world_dst: copy the chunks nobody has claimed yet. */
void empi_coop_help(int world_dst, const empi_hdr_coop_t *h);

#endif
