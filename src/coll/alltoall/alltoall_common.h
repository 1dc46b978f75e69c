/* MPI_IN_PLACE for the alltoall family: the send data is the receive buffer's, packed aside. */
#ifndef EMPI_ALLTOALL_COMMON_H
#define EMPI_ALLTOALL_COMMON_H

#include "coll/coll_algs.h"

/* The receive buffer's blocks packed one after another, as bytes: the send side that replaces it. */
typedef struct {
    char *buf;
    MPI_Count *counts;            /* bytes of block i */
    MPI_Aint *displs;             /* where block i starts in buf */
    empi_datatype_t **types;      /* all MPI_BYTE (the w form's per-block types) */
} empi_a2a_packed_t;

/*
 * Pack the receive buffer's blocks aside before anything arrives (w: the alltoallw form's byte
 * displacements and per-block types). Only the entries of the blocks' type maps are read: the
 * gaps between blocks need not be memory at all (MPI_BOTTOM with absolute addresses, blocks far
 * apart), and the copy is as large as the data, not as the span. MPI_ERR_NO_MEM or MPI_SUCCESS.
 */
static inline int empi_a2a_pack(empi_sched_t *s, const empi_coll_args_t *a, int w, empi_a2a_packed_t *pk)
{
    int p = a->comm->size;
    pk->counts = empi_sched_tmp(s, (size_t)p * sizeof *pk->counts);
    pk->displs = empi_sched_tmp(s, (size_t)p * sizeof *pk->displs);
    pk->types = empi_sched_tmp(s, (size_t)p * sizeof *pk->types);
    if (!pk->counts || !pk->displs || !pk->types)
        return MPI_ERR_NO_MEM;
    MPI_Aint total = 0;
    for (int i = 0; i < p; i++) {
        MPI_Count c = a->rcounts ? a->rcounts[i] : a->rcount;
        pk->counts[i] = c * (w ? a->rdts[i] : a->rdt)->size;
        pk->displs[i] = total;
        pk->types[i] = empi_byte_type;
        total += (MPI_Aint)pk->counts[i];
    }
    if (!(pk->buf = empi_sched_tmp(s, (size_t)(total ? total : 1))))
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p; i++) {
        MPI_Count c = a->rcounts ? a->rcounts[i] : a->rcount;
        empi_datatype_t *dt = w ? a->rdts[i] : a->rdt;
        const char *block = w            ? (const char *)a->rbuf + a->rdispls[i]
                            : a->rdispls ? empi_coll_off(a->rbuf, a->rdispls[i], dt)
                                         : empi_coll_off(a->rbuf, (MPI_Count)i * c, dt);
        if (pk->counts[i])
            EMPI_TRY(empi_sched_copy(s, block, c, dt, pk->buf + pk->displs[i], pk->counts[i], empi_byte_type));
    }
    return empi_sched_fence(s);
}

/* The v and w forms' send side replaced by the packed receive blocks (w: per-block types). */
static inline int empi_a2av_in_place(empi_sched_t *s, const empi_coll_args_t *a, const char **sbuf,
                                     const MPI_Count **sc, const MPI_Aint **sd, empi_datatype_t **sdt)
{
    empi_a2a_packed_t pk;
    EMPI_TRY(empi_a2a_pack(s, a, 0, &pk));
    *sbuf = pk.buf, *sc = pk.counts, *sd = pk.displs, *sdt = empi_byte_type;
    return MPI_SUCCESS;
}

static inline int empi_a2aw_in_place(empi_sched_t *s, const empi_coll_args_t *a, const char **sbuf,
                                     const MPI_Count **sc, const MPI_Aint **sd, empi_datatype_t *const **sdts)
{
    empi_a2a_packed_t pk;
    EMPI_TRY(empi_a2a_pack(s, a, 1, &pk));
    *sbuf = pk.buf, *sc = pk.counts, *sd = pk.displs, *sdts = pk.types;
    return MPI_SUCCESS;
}

#endif
