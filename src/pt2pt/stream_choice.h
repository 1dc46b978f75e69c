/*
 * Whether the data of a rendezvous through the rings is written with non-temporal stores, chosen
 * by the receiver per message from what it has measured (pt2pt/stream_choice.c).
 */
#ifndef EMPI_PT2PT_STREAM_CHOICE_H
#define EMPI_PT2PT_STREAM_CHOICE_H

#include <stdatomic.h>
#include <stdint.h>

/* Words of a process's shared line (transport shared_line; pt2pt/coop.c uses words 0-2): whether
   its senders should stream eager payloads to it, and the time of its last beacon. */
#define EMPI_STREAM_LINE_WORD 7
#define EMPI_STREAM_BEACON_WORD 6
/* Eager payloads from this size are streamed to a receiver that asks for it (at 4 KiB streaming
   lost even in bad minutes). */
#define EMPI_STREAM_EAGER_MIN 8192

/* 1: ask the sender to stream this message's data (the transport offers stream_send). */
int empi_stream_choose(uint64_t bytes);
/* A transfer that empi_stream_choose was asked about took `secs` from CTS to its last byte. */
void empi_stream_learn(int streamed, uint64_t bytes, double secs);
/* 1 when the smallest messages measured (EMPI_SHM_STREAM_MIN's size class) have been cheaper
   streamed: the receiver then asks for eager payloads streamed too (empi_stream_publish). */
int empi_stream_small_choice(void);
/* Forget what was learnt, and read the setting again (MPI_Init; tests). */
void empi_stream_reset(void);
/* Tell this process's senders, in its shared line, whether to stream eager payloads to it
   (the smallest class measured cheaper streamed, or far cores); writes only on a change. */
void empi_stream_publish(void);
/* Where to publish (NULL: nowhere), and what the beacon found; both publish at once. */
void empi_stream_set_line(_Atomic uint64_t *line);
void empi_stream_set_far(int far);
/* EMPI_SHM_STREAM=auto. */
int empi_stream_learning(void);

/* pt2pt/stream_beacon.c, once peers are known (MPI_Init): find this process's shared line and,
   when learning and ranks do not outnumber cores, time a neighbour's beacons. */
void empi_stream_start(void);

#endif
