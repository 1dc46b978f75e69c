/*
 * Noncontiguous rendezvous read in place: each side lists its buffer as iovec runs, in message
 * order, and the receiver's kernel copies between the two lists (process_vm_readv). Worth it only
 * for long runs: the kernel pins the sender's pages run by run, which costs more than copying a
 * short run twice through the rings, so a list is made only when its runs average at least
 * EMPI_SHM_CMA_RUN_MIN bytes.
 */
#include <stdlib.h>

#include "core/tunables.h"
#include "pt2pt/pt2pt_internal.h"

/* Most runs in a list (4 MiB of it): the list is allocated at its largest before the walk counts. */
#define EMPI_RUNS_MAX ((uint64_t)1 << 18)

typedef struct {
    struct iovec *v;
    size_t n, max;
    char *base;
    uint64_t left;
} run_list_t;

/* 0: go on; 1: too many runs; 2: `left` reached (the list is complete). */
static int add_run(void *ctx, MPI_Aint disp, MPI_Count stream_off, MPI_Count len)
{
    (void)stream_off;
    run_list_t *l = ctx;
    if (l->n == l->max)
        return 1;
    uint64_t n = (uint64_t)len < l->left ? (uint64_t)len : l->left;
    l->v[l->n++] = (struct iovec){l->base + disp, (size_t)n};
    l->left -= n;
    return l->left == 0 ? 2 : 0;
}

struct iovec *empi_pt2pt_runs(const void *buf, MPI_Count count, const empi_datatype_t *dt, uint64_t bytes,
                              size_t *n)
{
    uint64_t min = empi_tunables.shm_cma_run_min;
    if (min == 0 || bytes < min)
        return NULL;
    uint64_t max = bytes / min < EMPI_RUNS_MAX ? bytes / min : EMPI_RUNS_MAX;
    run_list_t l = {NULL, 0, (size_t)max, (char *)(uintptr_t)buf, bytes};
    if (!(l.v = malloc(l.max * sizeof *l.v)))
        return NULL;
    if (empi_dt_runs(count, dt, add_run, &l) != 2) {
        free(l.v);
        return NULL;
    }
    *n = l.n;
    return l.v;
}
