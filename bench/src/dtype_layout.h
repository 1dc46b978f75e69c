/* Noncontiguous message layouts for the datatype cases (pack_*, vector_bw):
 * the MPI datatype describing one message plus the same layout as a plain
 * list of byte blocks, so -c can check results without trusting MPI. */
#ifndef EMPI_BENCH_DTYPE_LAYOUT_H
#define EMPI_BENCH_DTYPE_LAYOUT_H

#include "bench.h"

/* Element type of every layout: blocks are whole doubles, as in the strided
 * matrix columns and halo faces that real codes send. */
#define DT_ELEM_BYTES 8

/* bench_case.op of the datatype cases: the vector block size in bytes
 * (stride twice the block), or DT_INDEXED for the irregular indexed type. */
#define DT_INDEXED 0

/* vector_bw's layout: 256-byte blocks, stride 512 bytes. */
#define DT_VECTOR_BW_BLOCK 256

typedef struct {
    MPI_Datatype type; /* one message is count 1 of this type */
    size_t size;       /* data bytes in one message */
    size_t span;       /* bytes from the first to the last data byte */
    int nblocks;
    size_t *offs, *lens; /* the data blocks, in bytes */
} dt_layout;

/* Sizes must be multiples of this; smaller sweep minimums are rounded up. */
size_t dt_unit(int shape);
size_t dt_round_up(size_t size, int shape);
/* Human-readable description for the report's note line. */
void dt_describe(int shape, char *buf, size_t cap);

/* Builds (and commits) the layout of `size` data bytes; size is a multiple
 * of dt_unit(shape). The indexed layout comes from a fixed seed, so every
 * run and every library sees the same blocks. */
void dt_layout_build(dt_layout *l, int shape, size_t size);
void dt_layout_free(dt_layout *l);

/* Wrong bytes in `got` (span bytes): inside the blocks it must equal `data`,
 * in the gaps between them `gaps` (what was there before the receive or
 * unpack, which must not touch it). */
size_t dt_check(const dt_layout *l, const void *got, const void *data, const void *gaps);

#endif
