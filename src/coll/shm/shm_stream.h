/*
 * Whether a rank writes a piece's blocks of `block` bytes (`bytes` in all) into the node segment
 * with non-temporal stores (EMPI_COLL_SHM_STREAM), for a collective of a given kind, and what its
 * copies of the piece, in and out, then cost, which is what auto learns from (shm_stream.c).
 * Blocks under EMPI_SHM_STREAM_BLOCK_MIN always go cached.
 */
#ifndef EMPI_COLL_SHM_STREAM_H
#define EMPI_COLL_SHM_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/copy.h"

#define EMPI_SHM_STREAM_BLOCK_MIN 4096

/* Each collective learns apart: its copies cost differently per byte. */
enum { EMPI_SHM_STREAM_ALLTOALL, EMPI_SHM_STREAM_ALLGATHER, EMPI_SHM_STREAM_KINDS };

int empi_shm_stream_choose(int kind, size_t block, size_t bytes);
void empi_shm_stream_learn(int kind, int streamed, size_t block, size_t bytes, double secs);

extern uint64_t empi_coll_shm_streamed_pieces;   /* choices for streamed so far (MPI_T) */

/* A copy into the segment the way chosen. */
static inline void empi_shm_copy_in(int streamed, void *dst, const void *src, size_t n)
{
    if (streamed && n >= EMPI_COPY_VECTOR_MIN)
        empi_copy_stream(dst, src, n);
    else
        empi_copy(dst, src, n);
}

#endif
