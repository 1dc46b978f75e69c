/*
 * Whether a rank writes a piece's blocks of `block` bytes (`bytes` in all) into the node segment
 * with non-temporal stores (EMPI_COLL_SHM_STREAM), and what its copies of the piece, in and out,
 * then cost, which is what auto learns from (shm_stream.c). Blocks under EMPI_SHM_STREAM_BLOCK_MIN
 * always go cached.
 */
#ifndef EMPI_COLL_SHM_STREAM_H
#define EMPI_COLL_SHM_STREAM_H

#include <stddef.h>
#include <stdint.h>

#define EMPI_SHM_STREAM_BLOCK_MIN 4096

int empi_shm_stream_choose(size_t block, size_t bytes);
void empi_shm_stream_learn(int streamed, size_t block, size_t bytes, double secs);

extern uint64_t empi_coll_shm_streamed_pieces;   /* choices for streamed so far (MPI_T) */

#endif
