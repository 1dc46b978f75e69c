/*
 * Streaming or cached copies for rendezvous data through the shared-memory rings.
 *
 * A ring moves data from the sender's cache to the receiver's: when the two cores are close
 * (a cache line crosses in about 100 ns on this machine's good days) that beats anything, but
 * when the hypervisor has put them far apart (450-500 ns a line, for minutes at a time) every
 * line crosses slowly, and writing the ring with non-temporal stores, so that the receiver reads
 * it from memory instead, is 2-3x faster from 32 KiB; on close cores it is 1.2-1.6x slower.
 * Neither choice is safe, so the receiver measures: each message from EMPI_SHM_STREAM_MIN bytes
 * times its transfer (CTS to last byte), per power-of-two size class and per way, and asks for
 * the way that has been cheaper per byte, trying the other one every 16th message of the class
 * (every 64th once it has proved 1.5x worse) so that a change of placement is noticed.
 */
#include "pt2pt/stream_choice.h"

#include <string.h>

#include "core/tunables.h"
#include "core/way_choice.h"

static struct {
    int mode;                   /* 0 off, 1 learn, 2 always */
    _Atomic uint64_t *line;     /* this process's shared line, if a transport gives it one */
    int published;              /* its EMPI_STREAM_LINE_WORD as last written */
    int far;                    /* the beacon finds the neighbour's core far (stream_beacon.c) */
    empi_way_choice_t ways;     /* way 1: streamed */
} sc;

void empi_stream_reset(void)
{
    memset(&sc, 0, sizeof sc);
    int on = empi_tunable_switch(empi_tunables.shm_stream);
    sc.mode = on < 0 ? 1 : on ? 2 : 0;
}

int empi_stream_choose(uint64_t bytes)
{
    if (sc.mode == 0 || bytes < empi_tunables.shm_stream_min)
        return 0;
    return sc.mode == 2 || empi_way_choose(&sc.ways, bytes);
}

int empi_stream_small_choice(void)
{
    if (sc.mode != 1)
        return sc.mode == 2;
    return empi_way_second_cheaper(&sc.ways, empi_tunables.shm_stream_min);
}

void empi_stream_learn(int streamed, uint64_t bytes, double secs)
{
    if (sc.mode == 1)
        empi_way_learn(&sc.ways, streamed, bytes, secs);
}

int empi_stream_learning(void)
{
    return sc.mode == 1;
}

void empi_stream_set_line(_Atomic uint64_t *line)
{
    sc.line = line;
    empi_stream_publish();
}

void empi_stream_set_far(int far)
{
    sc.far = far;
    empi_stream_publish();
}

void empi_stream_publish(void)
{
    int want = empi_stream_small_choice() || (sc.mode == 1 && sc.far);
    if (!sc.line || want == sc.published)
        return;
    atomic_store_explicit(&sc.line[EMPI_STREAM_LINE_WORD], (uint64_t)want, memory_order_relaxed);
    sc.published = want;
}
