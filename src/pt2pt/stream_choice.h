/*
 * Whether the data of a rendezvous through the rings is written with non-temporal stores, chosen
 * by the receiver per message from what it has measured (pt2pt/stream_choice.c).
 */
#ifndef EMPI_PT2PT_STREAM_CHOICE_H
#define EMPI_PT2PT_STREAM_CHOICE_H

#include <stdint.h>

/* 1: ask the sender to stream this message's data (the transport offers stream_send). */
int empi_stream_choose(uint64_t bytes);
/* A transfer that empi_stream_choose was asked about took `secs` from CTS to its last byte. */
void empi_stream_learn(int streamed, uint64_t bytes, double secs);
/* Forget what was learnt, and read the setting again (MPI_Init; tests). */
void empi_stream_reset(void);

#endif
