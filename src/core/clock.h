/* Raw monotonic time, for timeouts and for timestamps that other processes of the host compare. */
#ifndef EMPI_CLOCK_H
#define EMPI_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds: one clock for every process of a host (MPI_Wtime is relative
   to a base of its own process). */
static inline uint64_t empi_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
