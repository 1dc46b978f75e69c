/*
 * Allgather and allgatherv on one node share their shared-memory algorithms: both see the receive
 * buffer as p blocks of contiguous bytes, which for allgather are equal and back to back.
 */
#ifndef EMPI_ALLGATHER_BLOCKS_H
#define EMPI_ALLGATHER_BLOCKS_H

#include "coll/shm/coll_shm.h"

typedef struct {
    const size_t *off, *len;   /* block i: len[i] bytes at rbuf + off[i]; NULL: nb bytes at nb * i */
    size_t sbytes;             /* bytes this rank contributes (its block's len when they match) */
    size_t total;              /* bytes of all blocks */
    empi_bytes_view_t rv;      /* allgather: the receive buffer's bytes */
    int packed;                /* allgatherv: rbuf is a packed copy of the user's blocks */
} empi_ag_blocks_t;

static inline size_t empi_ag_off(const empi_shm_op_t *o, int i)
{
    const empi_ag_blocks_t *b = o->plan;
    return b->off ? b->off[i] : o->nb * (size_t)i;
}

static inline size_t empi_ag_len(const empi_shm_op_t *o, int i)
{
    const empi_ag_blocks_t *b = o->plan;
    return b->off ? b->len[i] : o->nb;
}

/* Bytes of the largest block of the allgather or allgatherv call `a` (the same on every rank). */
size_t empi_ag_largest(const empi_coll_args_t *a);
/*
 * Queue o (its step, m, count, piece and esize set) for the call `a` (with a non-empty block): o
 * gets this rank's block and the receive buffer as contiguous bytes (sbuf, rbuf, nb, plan; packed
 * copies for non-contiguous types, unpacked after it). Returns an MPI error class.
 */
int empi_ag_build(empi_sched_t *s, const empi_coll_args_t *a, empi_shm_op_t *o);

#endif
