/* Helpers for ring tests and benchmarks that run the producer and consumer in two processes. */
#ifndef EMPI_RING_SHARED_H
#define EMPI_RING_SHARED_H

#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "transport/shm/ring.h"

/* Zero-filled memory that survives fork as shared: stands in for the shm segment. */
static inline void *ring_shared_alloc(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Pin to one CPU so the measurement is a cross-core transfer, not a scheduler artefact. */
static inline void ring_pin_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)sched_setaffinity(0, sizeof set, &set);
}

/* Spin politely; every few hundred spins give the CPU away, because on a loaded or oversubscribed
   machine the other side may be waiting for this very core. */
static inline void ring_cpu_relax(void)
{
    static _Thread_local unsigned spins;
    if (++spins % 256 == 0) {
        sched_yield();
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

#endif
