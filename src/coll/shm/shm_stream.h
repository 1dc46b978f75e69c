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

#include "core/clock.h"

#define EMPI_SHM_STREAM_BLOCK_MIN 4096

/* Each collective learns apart: its copies cost differently per byte. */
enum { EMPI_SHM_STREAM_ALLTOALL, EMPI_SHM_STREAM_ALLGATHER, EMPI_SHM_STREAM_KINDS };

int empi_shm_stream_choose(int kind, size_t block, size_t bytes);
void empi_shm_stream_learn(int kind, int streamed, size_t block, size_t bytes, double secs);

extern uint64_t empi_coll_shm_streamed_pieces;   /* choices for streamed so far (MPI_T) */

/* A clock for timing a piece's copies, read only where learning may use it: 0 for small blocks,
   whose path stays as it was. */
static inline uint64_t empi_shm_stream_clock(size_t block)
{
    return block >= EMPI_SHM_STREAM_BLOCK_MIN ? empi_now_ns() : 0;
}

#endif
