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

#define CLASSES 48
#define EXPLORE_CLOSE 16   /* try the other way every this many messages while the two are close */
#define EXPLORE_FAR 64     /* ... and this many once it has been 1.5x worse */
#define FIRST_SAMPLES 3    /* per way and class, alternated, before either is trusted */

static struct {
    int mode;                   /* 0 off, 1 learn, 2 always */
    _Atomic uint64_t *line;     /* this process's shared line, if a transport gives it one */
    int published;              /* its EMPI_STREAM_LINE_WORD as last written */
    int far;                    /* the beacon finds the neighbour's core far (stream_beacon.c) */
    double cost[CLASSES][2];    /* seconds per byte: least of the first samples, then a moving average */
    unsigned samples[CLASSES][2];
    unsigned seen[CLASSES];
} sc;

void empi_stream_reset(void)
{
    memset(&sc, 0, sizeof sc);
    int on = empi_tunable_switch(empi_tunables.shm_stream);
    sc.mode = on < 0 ? 1 : on ? 2 : 0;
}

static int size_class(uint64_t bytes)
{
    int c = 63 - __builtin_clzll(bytes | 1);
    return c < CLASSES ? c : CLASSES - 1;
}

int empi_stream_choose(uint64_t bytes)
{
    if (sc.mode == 0 || bytes < empi_tunables.shm_stream_min)
        return 0;
    if (sc.mode == 2)
        return 1;
    int c = size_class(bytes);
    const double *cost = sc.cost[c];
    const unsigned *n = sc.samples[c];
    if (n[0] < FIRST_SAMPLES || n[1] < FIRST_SAMPLES)
        return n[1] < n[0];     /* alternate, the cached way first */
    int best = cost[1] < cost[0];
    double ratio = cost[!best] / cost[best];
    unsigned period = ratio < 1.5 ? EXPLORE_CLOSE : EXPLORE_FAR;
    return ++sc.seen[c] % period == 0 ? !best : best;
}

int empi_stream_small_choice(void)
{
    if (sc.mode != 1)
        return sc.mode == 2;
    int c = size_class(empi_tunables.shm_stream_min);
    const unsigned *n = sc.samples[c];
    return n[0] >= FIRST_SAMPLES && n[1] >= FIRST_SAMPLES && sc.cost[c][1] < sc.cost[c][0];
}

void empi_stream_learn(int streamed, uint64_t bytes, double secs)
{
    if (sc.mode != 1 || bytes == 0 || secs <= 0)
        return;
    int c = size_class(bytes), way = streamed != 0;
    double *cost = &sc.cost[c][way];
    double per_byte = secs / (double)bytes;
    /* The least of the first samples, then a moving average in which a sample counts for at
       most twice the estimate: a sample is too slow far more often (a page fault on a ring's
       first lap, a preemption) than too fast, and one bad sample must not flip the choice. */
    if (sc.samples[c][way]++ < FIRST_SAMPLES)
        *cost = *cost == 0 || per_byte < *cost ? per_byte : *cost;
    else
        *cost += ((per_byte < 2 * *cost ? per_byte : 2 * *cost) - *cost) / 4;
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
