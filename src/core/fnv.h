/* FNV-1a, 64 bits: a quick, well-spread hash of short keys (job ids, bootstrap keys). */
#ifndef EMPI_CORE_FNV_H
#define EMPI_CORE_FNV_H

#include <stddef.h>
#include <stdint.h>

#define EMPI_FNV64_BASIS 1469598103934665603ull

/* Fold n bytes into h (EMPI_FNV64_BASIS to start). */
static inline uint64_t empi_fnv1a64(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

#endif
