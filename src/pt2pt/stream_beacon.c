/*
 * How far apart this process's core and a node neighbour's are, measured passively: each writes
 * the time into a word of its shared line at most every BEACON_PERIOD_NS, and each notices the
 * other's new value on its next progress pass, so (now - value) is one cache line's trip plus a
 * pass. The least of the last BEACON_WINDOW trips ignores the ones where we were busy copying.
 *
 * Why: eager messages carry no CTS, so the receiver's measured choice (stream_choice.c) reaches
 * them only once it has timed rendezvous messages; a benchmark that sweeps sizes upward meets
 * its eager sizes first. On this virtual machine the least trip is 120-160 ns in good minutes
 * and 310-370 in bad ones, where streamed eager payloads of 8-16 KiB are 1.2-1.9x faster (latency
 * 16 KiB 7.6 -> 4.1 us, bibw 16 KiB 3.4-3.6 -> 4.2-6.8 GB/s); a receiver that sees trips above
 * BEACON_FAR_NS asks its senders to stream (empi_stream_publish). Runs only with
 * EMPI_SHM_STREAM=auto and while ranks do not outnumber cores (a descheduled neighbour is not a
 * far one).
 */
#include "pt2pt/stream_choice.h"

#include <stdatomic.h>

#include "core/clock.h"
#include "core/global.h"
#include "core/progress.h"
#include "pt2pt/pt2pt_internal.h"

#define BEACON_PERIOD_NS 100000 /* at most one beacon per process per 100 us: no line traffic to speak of */
/* ~50 ms of beacons: some land while both sides poll, even under load. 6 ms were too few: a
   bandwidth test kept both sides copying that long, its trips read 800-1500 ns, and the streamed
   8 KiB eager payloads that followed cost a quarter of the bandwidth (docs/PERFORMANCE.md run Z). */
#define BEACON_WINDOW 512
#define BEACON_DECIDE_EVERY 64  /* trips between looks at the window */
#define BEACON_FAR_NS 280       /* least trips: 120-160 ns in good minutes (260 under load), 310-370 in bad */
#define BEACON_CHECK_EVERY 256  /* progress passes between looks at the clock */

static struct {
    _Atomic uint64_t *mine, *theirs;
    uint64_t last_seen, last_sent;
    uint64_t trips[BEACON_WINDOW];
    unsigned ntrips, passes;
    int far;
} bc;

static void record_trip(uint64_t trip)
{
    bc.trips[bc.ntrips++ % BEACON_WINDOW] = trip;
    if (bc.ntrips < BEACON_WINDOW || bc.ntrips % BEACON_DECIDE_EVERY != 0)
        return;
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < BEACON_WINDOW; i++)
        least = bc.trips[i] < least ? bc.trips[i] : least;
    int far = least > BEACON_FAR_NS;
    if (far != bc.far)
        empi_stream_set_far(far);
    bc.far = far;
}

static int beacon_poll(void)
{
    uint64_t seen = atomic_load_explicit(bc.theirs, memory_order_relaxed);
    if (seen != bc.last_seen) {
        uint64_t t = empi_now_ns();
        if (bc.last_seen && t > seen)
            record_trip(t - seen);
        bc.last_seen = seen;
    }
    if (++bc.passes % BEACON_CHECK_EVERY == 0) {
        uint64_t t = empi_now_ns();
        if (t - bc.last_sent >= BEACON_PERIOD_NS) {
            atomic_store_explicit(bc.mine, t, memory_order_relaxed);
            bc.last_sent = t;
        }
    }
    return 0;
}

void empi_stream_start(void)
{
    int me = empi_g.boot.rank;
    for (int r = 0; r < empi_g.boot.size; r++) {
        empi_transport_t *tp = empi_p2p.peer_tp[r];
        if (r == me || !tp || !tp->shared_line || !tp->stream_send)
            continue;
        bc.mine = &tp->shared_line(me)[EMPI_STREAM_BEACON_WORD];
        bc.theirs = &tp->shared_line(r)[EMPI_STREAM_BEACON_WORD];
        empi_stream_set_line(tp->shared_line(me));
        if (empi_stream_learning() && !empi_g.oversubscribed)
            empi_progress_add_hook(beacon_poll);
        return;
    }
}
