/* Schedule builders of every algorithm (one file each under src/coll/<collective>/). */
#ifndef EMPI_COLL_ALGS_H
#define EMPI_COLL_ALGS_H

#include "coll/coll.h"
#include "pt2pt/pt2pt.h"

#define EMPI_ALG(name) int name(empi_sched_t *s, const empi_coll_args_t *a)

EMPI_ALG(empi_barrier_dissemination);
EMPI_ALG(empi_barrier_shm);
EMPI_ALG(empi_barrier_shm_release);
EMPI_ALG(empi_bcast_binomial);
EMPI_ALG(empi_bcast_scatter_allgather);
EMPI_ALG(empi_bcast_chain);
EMPI_ALG(empi_bcast_shm);
EMPI_ALG(empi_reduce_binomial);
EMPI_ALG(empi_reduce_rsag);
EMPI_ALG(empi_reduce_shm);
EMPI_ALG(empi_reduce_shm_cma);
EMPI_ALG(empi_reduce_shm_cma_root);
EMPI_ALG(empi_allreduce_recursive_doubling);
EMPI_ALG(empi_allreduce_reduce_bcast);
EMPI_ALG(empi_allreduce_rabenseifner);
EMPI_ALG(empi_allreduce_ring);
EMPI_ALG(empi_allreduce_shm);
EMPI_ALG(empi_allreduce_shm_cma);
EMPI_ALG(empi_allreduce_shm_cma_each);
EMPI_ALG(empi_gather_linear);
EMPI_ALG(empi_gather_binomial);
EMPI_ALG(empi_gather_shm);
EMPI_ALG(empi_gather_shm_cma);
EMPI_ALG(empi_gatherv_linear);
EMPI_ALG(empi_gatherv_shm);
EMPI_ALG(empi_scatter_linear);
EMPI_ALG(empi_scatter_binomial);
EMPI_ALG(empi_scatter_shm);
EMPI_ALG(empi_scatter_shm_cma);
EMPI_ALG(empi_bcast_shm_cma);
EMPI_ALG(empi_scatterv_linear);
EMPI_ALG(empi_scatterv_shm);
EMPI_ALG(empi_allgather_ring);
EMPI_ALG(empi_allgather_recursive_doubling);
EMPI_ALG(empi_allgather_bruck);
EMPI_ALG(empi_allgatherv_ring);
EMPI_ALG(empi_allgather_shm);
EMPI_ALG(empi_allgather_shm_cma);
EMPI_ALG(empi_allgatherv_shm);
EMPI_ALG(empi_allgatherv_shm_cma);
EMPI_ALG(empi_alltoall_pairwise);
EMPI_ALG(empi_alltoall_linear);
EMPI_ALG(empi_alltoall_bruck);
EMPI_ALG(empi_alltoall_shm);
EMPI_ALG(empi_alltoall_shm_cma);
EMPI_ALG(empi_alltoallv_pairwise);
EMPI_ALG(empi_alltoallv_linear);
EMPI_ALG(empi_alltoallv_shm);
EMPI_ALG(empi_alltoallw_pairwise);
EMPI_ALG(empi_alltoallw_linear);
EMPI_ALG(empi_reduce_scatter_reduce_scatterv);
EMPI_ALG(empi_reduce_scatter_pairwise);
EMPI_ALG(empi_reduce_scatter_shm);
EMPI_ALG(empi_reduce_scatter_shm_cma);
EMPI_ALG(empi_scan_recursive_doubling);
EMPI_ALG(empi_scan_linear);
EMPI_ALG(empi_exscan_recursive_doubling);
EMPI_ALG(empi_exscan_linear);
EMPI_ALG(empi_scan_shm_cma);
EMPI_ALG(empi_exscan_shm_cma);
EMPI_ALG(empi_scan_shm);
EMPI_ALG(empi_exscan_shm);
int empi_scan_shm_fast(const empi_coll_args_t *a, int *rc);
int empi_exscan_shm_fast(const empi_coll_args_t *a, int *rc);
int empi_scan_linear_fast(const empi_coll_args_t *a, int *rc);
int empi_exscan_linear_fast(const empi_coll_args_t *a, int *rc);

/* Blocking chains (scan, exscan) on at most this many contiguous bytes run without a schedule,
   their partial result in a stack buffer. */
#define EMPI_COLL_FAST_CHAIN_BYTES 256
static inline int empi_coll_fast_chain(const empi_coll_args_t *a)
{
    return a->rdt->is_contig && a->rcount * a->rdt->size <= EMPI_COLL_FAST_CHAIN_BYTES;
}

EMPI_ALG(empi_allreduce_hier);
EMPI_ALG(empi_reduce_hier);
EMPI_ALG(empi_bcast_hier);
EMPI_ALG(empi_barrier_hier);
int empi_allreduce_hier_fast(const empi_coll_args_t *a, int *rc);
int empi_reduce_hier_fast(const empi_coll_args_t *a, int *rc);
int empi_bcast_hier_fast(const empi_coll_args_t *a, int *rc);
int empi_barrier_hier_fast(const empi_coll_args_t *a, int *rc);
int empi_barrier_shm_fast(const empi_coll_args_t *a, int *rc);
int empi_barrier_shm_release_fast(const empi_coll_args_t *a, int *rc);
int empi_bcast_shm_fast(const empi_coll_args_t *a, int *rc);
int empi_gather_shm_fast(const empi_coll_args_t *a, int *rc);
int empi_scatter_shm_fast(const empi_coll_args_t *a, int *rc);
int empi_gatherv_shm_fast(const empi_coll_args_t *a, int *rc);
int empi_scatterv_shm_fast(const empi_coll_args_t *a, int *rc);
int empi_reduce_shm_fast(const empi_coll_args_t *a, int *rc);
int empi_reduce_shm_cma_fast(const empi_coll_args_t *a, int *rc);
int empi_reduce_shm_cma_root_fast(const empi_coll_args_t *a, int *rc);
int empi_allreduce_shm_fast(const empi_coll_args_t *a, int *rc);
int empi_allreduce_shm_cma_fast(const empi_coll_args_t *a, int *rc);
int empi_allreduce_shm_cma_each_fast(const empi_coll_args_t *a, int *rc);

/* The algorithm of a collective on an intercommunicator (inter/coll_inter.c), NULL if none. */
const empi_coll_alg_t *empi_coll_inter_alg(int coll);
const empi_coll_alg_t *empi_coll_choose(const empi_coll_args_t *a, int blocking);
const char *empi_coll_chosen_name(const empi_coll_args_t *a, int blocking);

/* Building blocks shared by algorithms (coll_common.c). */
/* Binomial bcast of (buf, count, dt) from root among all ranks of s->comm. */
int empi_build_bcast_binomial(empi_sched_t *s, void *buf, MPI_Count count, empi_datatype_t *dt, int root);
/* Binomial reduce into `acc` (holds this rank's contribution on entry; on exit the result at root).
   Non-commutative ops are handled (tree rooted at 0, then forwarded). `result` at root gets it. */
int empi_build_reduce_binomial(empi_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                               empi_datatype_t *dt, empi_op_t *op, int root);

/*
 * Non-power-of-two groups, the usual way: of the first 2*rem ranks (rem = p - 2^floor(log2 p)) the
 * even ones hand `buf` to their odd neighbour, which reduces it in (via `tmp`) and stands for both.
 * *newrank is this rank in the power-of-two group, -1 if it sat out. empi_coll_fold_peer maps a
 * power-of-two rank back to a communicator rank.
 */
int empi_build_fold_to_pow2(empi_sched_t *s, void *buf, void *tmp, MPI_Count n, empi_datatype_t *dt,
                            empi_op_t *op, int *newrank);
static inline int empi_coll_fold_peer(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}
/*
 * Recursive-halving reduce-scatter among the p2 = 2^k ranks of a folded group: `buf` holds this
 * rank's n elements, split into p2 blocks at disp[0..p2] (filled here). On return this rank's
 * reduced blocks are [*lo, *hi) of buf. Commutative ops only.
 */
int empi_build_halving_reduce_scatter(empi_sched_t *s, char *buf, char *tmp, MPI_Count n, empi_datatype_t *dt,
                                      empi_op_t *op, int newrank, int rem, MPI_Count **disp, int *lo, int *hi);

/* A byte view of (buf, count, dt) for algorithms that cut messages into byte ranges: the buffer
   itself when dt is contiguous, else a packed scratch copy (packed now if `fill`, unpacked back by
   empi_bytes_finish when `writeback`). */
typedef struct empi_bytes_view {
    char *bytes;
    MPI_Count len;
    void *buf;
    MPI_Count count;
    empi_datatype_t *dt;
    int packed;
} empi_bytes_view_t;
int empi_bytes_begin(empi_sched_t *s, empi_bytes_view_t *v, void *buf, MPI_Count count, empi_datatype_t *dt,
                     int fill);
int empi_bytes_finish(empi_sched_t *s, empi_bytes_view_t *v);

#define EMPI_TRY(x)                    \
    do {                               \
        int empi_try_rc_ = (x);        \
        if (empi_try_rc_ != MPI_SUCCESS) \
            return empi_try_rc_;       \
    } while (0)

#endif
