/* MPI_IN_PLACE for the alltoall family: the send data is the receive buffer's, copied aside. */
#ifndef EMPI_ALLTOALL_COMMON_H
#define EMPI_ALLTOALL_COMMON_H

#include <string.h>

#include "coll/coll_algs.h"
#include "core/copy.h"

/* Byte span [lo, hi) of the receive buffer the blocks (rdispls/rcounts/rdts) cover. */
static inline void empi_a2a_span(const empi_coll_args_t *a, int w, MPI_Aint *lo, MPI_Aint *hi)
{
    int p = a->comm->size;
    *lo = 0;
    *hi = 0;
    int first = 1;
    for (int i = 0; i < p; i++) {
        MPI_Count c = a->rcounts ? a->rcounts[i] : a->rcount;
        const empi_datatype_t *dt = w ? a->rdts[i] : a->rdt;
        if (c == 0)
            continue;
        MPI_Aint base = a->rdispls ? (w ? a->rdispls[i] : a->rdispls[i] * dt->extent) : (MPI_Aint)i * a->rcount * dt->extent;
        MPI_Aint l = base + dt->true_lb, h = base + (MPI_Aint)(c - 1) * dt->extent + dt->true_ub;
        if (first || l < *lo)
            *lo = l;
        if (first || h > *hi)
            *hi = h;
        first = 0;
    }
}

/* One raw copy of the receive buffer's span, at schedule time. */
static int empi_a2a_copy_poll(empi_sched_t *s, void *arg)
{
    (void)s;
    void **x = arg;   /* {dst, src, len} */
    empi_copy(x[0], x[1], (size_t)(uintptr_t)x[2]);
    return 1;
}

/* Copy the receive buffer aside first; returns the buffer that plays sbuf (rbuf-shaped), or NULL. */
static inline char *empi_a2a_inplace(empi_sched_t *s, const empi_coll_args_t *a, int w)
{
    MPI_Aint lo, hi;
    empi_a2a_span(a, w, &lo, &hi);
    char *copy = empi_sched_tmp(s, (size_t)(hi - lo));
    void **x = empi_sched_tmp(s, 3 * sizeof(void *));
    if (!copy || !x)
        return NULL;
    x[0] = copy;
    x[1] = (char *)a->rbuf + lo;
    x[2] = (void *)(uintptr_t)(hi - lo);
    if (empi_sched_poll(s, empi_a2a_copy_poll, x) != MPI_SUCCESS || empi_sched_fence(s) != MPI_SUCCESS)
        return NULL;
    return copy - lo;
}

#endif
