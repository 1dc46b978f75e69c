/* Shared setup of the intercommunicator tests: world split into a low half and a high half. */
#ifndef INTERCOMM_COMMON_H
#define INTERCOMM_COMMON_H

#include "empi_test.h"

typedef struct {
  int color;        /* 0: low half of the world, 1: high half */
  int lsize, rsize; /* local and remote group sizes */
  int lrank;
  int rbase;        /* world rank of remote rank 0 (remote rank i is world rank rbase + i) */
  MPI_Comm local, inter;
} halves_t;

/* Low half: world ranks [0, size/2), high half: the rest (uneven when size is odd). */
static inline void make_halves(halves_t *h, int tag) {
  int rank = empi_rank(), size = empi_size(), half = size / 2;
  h->color = rank >= half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, h->color, rank, &h->local));
  CHECK_MPI(MPI_Comm_size(h->local, &h->lsize));
  CHECK_MPI(MPI_Comm_rank(h->local, &h->lrank));
  h->rbase = h->color ? 0 : half;
  h->rsize = h->color ? half : size - half;
  CHECK_MPI(MPI_Intercomm_create(h->local, 0, MPI_COMM_WORLD, h->rbase, tag, &h->inter));
}

static inline void free_halves(halves_t *h) {
  CHECK_MPI(MPI_Comm_free(&h->inter));
  CHECK_MPI(MPI_Comm_free(&h->local));
}

#endif
