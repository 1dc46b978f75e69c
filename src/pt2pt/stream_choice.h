/*
 * Whether the data of a rendezvous through the rings is written with non-temporal stores, chosen
 * by the receiver per message from what it has measured (pt2pt/stream_choice.c).
 */
#ifndef EMPI_PT2PT_STREAM_CHOICE_H
#define EMPI_PT2PT_STREAM_CHOICE_H

#include <stdint.h>

/* Word of a receiver's shared line (transport shared_line; pt2pt/coop.c uses words 0-2) holding
   empi_stream_small_choice() for its senders. */
#define EMPI_STREAM_LINE_WORD 7
/* Eager payloads from this size are streamed to a receiver that asks for it (smaller ones cost
   little either way). */
#define EMPI_STREAM_EAGER_MIN 4096

/* 1: ask the sender to stream this message's data (the transport offers stream_send). */
int empi_stream_choose(uint64_t bytes);
/* A transfer that empi_stream_choose was asked about took `secs` from CTS to its last byte. */
void empi_stream_learn(int streamed, uint64_t bytes, double secs);
/* 1 when the smallest messages measured (EMPI_SHM_STREAM_MIN's size class) have been cheaper
   streamed: the receiver then asks for eager payloads streamed too (recv.c, send.c). */
int empi_stream_small_choice(void);
/* Forget what was learnt, and read the setting again (MPI_Init; tests). */
void empi_stream_reset(void);

#endif
