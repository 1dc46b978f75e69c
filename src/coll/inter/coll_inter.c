/*
 * Collectives on intercommunicators. The selection table is for intracommunicators; an
 * intercommunicator call always gets the one algorithm here for its collective (coll_select.c).
 *
 * Data that crosses between the groups goes straight to the remote ranks: every remote rank's
 * block is its own message (gather, scatter, allgather and alltoall families, and the root side
 * of rooted calls). Operations that combine a whole group run a local step on the
 * intercommunicator's hidden local_comm, then the two leaders (local rank 0 on each side) swap,
 * then another local step:
 *   barrier          local barrier, leaders swap zero bytes, local barrier
 *   bcast            the root sends to the remote leader, which broadcasts in its group
 *   reduce           local reduce to the leader, which sends to the root
 *   allreduce        local reduce to the leader, leaders swap, local broadcast
 *   reduce_scatter_block  local reduce, leaders swap, local scatter
 *   reduce_scatter   the same with the local group's recvcounts (both groups' totals are equal)
 * In a rooted call the root passes MPI_ROOT, the rest of its group MPI_PROC_NULL (nothing to do),
 * and the other group the root's rank.
 */
#include "coll/coll_algs.h"

/* Ops added between local_begin and local_end go to the local communicator: the builders the
   intracommunicator algorithms share are reused unchanged by pointing the schedule at it. */
typedef struct {
    empi_comm_t *inter;
    int mark;
} local_scope_t;

static local_scope_t local_begin(empi_sched_t *s)
{
    local_scope_t l = {s->comm, s->n};
    s->comm = s->comm->local_comm;
    return l;
}

static int local_end(empi_sched_t *s, local_scope_t l, int rc)
{
    for (int i = l.mark; i < s->n; i++)
        if (!s->ops[i].comm)
            s->ops[i].comm = s->comm;
    s->comm = l.inter;
    return rc;
}

static int local_barrier(empi_sched_t *s, const empi_coll_args_t *a)
{
    local_scope_t l = local_begin(s);
    int rc = empi_barrier_dissemination(s, a);
    if (rc == MPI_SUCCESS)
        rc = empi_sched_fence(s);
    return local_end(s, l, rc);
}

static int local_bcast(empi_sched_t *s, void *buf, MPI_Count count, empi_datatype_t *dt)
{
    local_scope_t l = local_begin(s);
    return local_end(s, l, empi_build_bcast_binomial(s, buf, count, dt, 0));
}

/* The group's reduction of sbuf at the leader, in a schedule buffer (NULL elsewhere). */
static int local_reduce(empi_sched_t *s, const void *sbuf, MPI_Count count, empi_datatype_t *dt, empi_op_t *op,
                        void **result)
{
    *result = NULL;
    if (s->comm->rank == 0 && !(*result = empi_sched_tmp_dt(s, count, dt)))
        return MPI_ERR_NO_MEM;
    local_scope_t l = local_begin(s);
    int rc = empi_build_reduce_binomial(s, sbuf, *result, count, dt, op, 0);
    if (rc == MPI_SUCCESS)
        rc = empi_sched_fence(s);
    return local_end(s, l, rc);
}

/* The leaders' swap with the remote leader (remote rank 0); a fence follows. */
static int leader_swap(empi_sched_t *s, const void *sbuf, MPI_Count scount, empi_datatype_t *sdt, void *rbuf,
                       MPI_Count rcount, empi_datatype_t *rdt)
{
    if (s->comm->rank != 0)
        return MPI_SUCCESS;
    EMPI_TRY(empi_sched_recv(s, rbuf, rcount, rdt, 0));
    EMPI_TRY(empi_sched_send(s, sbuf, scount, sdt, 0));
    return empi_sched_fence(s);
}

static int inter_barrier(empi_sched_t *s, const empi_coll_args_t *a)
{
    EMPI_TRY(local_barrier(s, a));
    EMPI_TRY(leader_swap(s, NULL, 0, empi_byte_type, NULL, 0, empi_byte_type));
    return local_barrier(s, a);
}

static int inter_bcast(empi_sched_t *s, const empi_coll_args_t *a)
{
    if (a->root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (a->root == MPI_ROOT) {
        EMPI_TRY(empi_sched_send(s, a->rbuf, a->rcount, a->rdt, 0));
        return empi_sched_fence(s);
    }
    if (s->comm->rank == 0) {
        EMPI_TRY(empi_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root));
        EMPI_TRY(empi_sched_fence(s));
    }
    return local_bcast(s, a->rbuf, a->rcount, a->rdt);
}

static int inter_reduce(empi_sched_t *s, const empi_coll_args_t *a)
{
    if (a->root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (a->root == MPI_ROOT) {
        EMPI_TRY(empi_sched_recv(s, a->rbuf, a->rcount, a->rdt, 0));
        return empi_sched_fence(s);
    }
    void *partial;
    EMPI_TRY(local_reduce(s, a->sbuf, a->rcount, a->rdt, a->op, &partial));
    if (s->comm->rank == 0)
        EMPI_TRY(empi_sched_send(s, partial, a->rcount, a->rdt, a->root));
    return empi_sched_fence(s);
}

static int inter_allreduce(empi_sched_t *s, const empi_coll_args_t *a)
{
    void *partial;
    EMPI_TRY(local_reduce(s, a->sbuf, a->rcount, a->rdt, a->op, &partial));
    EMPI_TRY(leader_swap(s, partial, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt));
    return local_bcast(s, a->rbuf, a->rcount, a->rdt);
}

/*
 * The remote group's reduction of `total` elements scattered over the local group, local rank i
 * getting counts[i] (every rank the same `block` when counts is NULL). What this group sends is
 * `sent` elements: reduced locally, its leader hands it to the remote leader.
 */
static int reduce_then_scatter(empi_sched_t *s, const empi_coll_args_t *a, MPI_Count sent, MPI_Count total,
                               const MPI_Count *counts, MPI_Count block)
{
    int n = s->comm->size, rank = s->comm->rank;
    void *partial, *mine = NULL;
    EMPI_TRY(local_reduce(s, a->sbuf, sent, a->rdt, a->op, &partial));
    if (rank == 0 && !(mine = empi_sched_tmp_dt(s, total, a->rdt)))
        return MPI_ERR_NO_MEM;
    EMPI_TRY(leader_swap(s, partial, sent, a->rdt, mine, total, a->rdt));
    local_scope_t l = local_begin(s);
    int err = MPI_SUCCESS;
    if (rank != 0) {
        err = empi_sched_recv(s, a->rbuf, counts ? counts[rank] : block, a->rdt, 0);
    } else {
        MPI_Count off = counts ? counts[0] : block;
        for (int i = 1; i < n && err == MPI_SUCCESS; i++) {
            MPI_Count c = counts ? counts[i] : block;
            err = empi_sched_send(s, empi_coll_off(mine, off, a->rdt), c, a->rdt, i);
            off += c;
        }
        if (err == MPI_SUCCESS)
            err = empi_sched_copy(s, mine, counts ? counts[0] : block, a->rdt, a->rbuf, counts ? counts[0] : block,
                                  a->rdt);
    }
    if (err == MPI_SUCCESS)
        err = empi_sched_fence(s);
    return local_end(s, l, err);
}

/* MPI 4.1 6.10.1: every process sends rcount * (local size) elements, a count both groups share, and
   gets rcount of the remote reduction (so groups of different sizes pass different rcounts). */
static int inter_reduce_scatter_block(empi_sched_t *s, const empi_coll_args_t *a)
{
    MPI_Count total = a->rcount * s->comm->size;
    return reduce_then_scatter(s, a, total, total, NULL, a->rcount);
}

/*
 * MPI 4.1 6.10.1: every process of a group sends the sum of its group's recvcounts elements and
 * gets its recvcounts[i] of the other group's reduction, so the two groups' sums must be equal.
 */
static int inter_reduce_scatter(empi_sched_t *s, const empi_coll_args_t *a)
{
    MPI_Count total = 0;
    for (int i = 0; i < s->comm->size; i++)
        total += a->rcounts[i];
    return reduce_then_scatter(s, a, total, total, a->rcounts, 0);
}

/* ---- the block families: one message per remote rank ---- */

typedef struct {
    const void *buf;
    MPI_Count count;
    empi_datatype_t *dt;
} block_t;

/* Remote rank i's block of the receive side. */
static block_t recv_block(const empi_coll_args_t *a, int i)
{
    char *r = a->rbuf;
    switch (a->coll) {
    case EMPI_COLL_GATHERV:
    case EMPI_COLL_ALLGATHERV:
    case EMPI_COLL_ALLTOALLV: return (block_t){empi_coll_off(r, a->rdispls[i], a->rdt), a->rcounts[i], a->rdt};
    case EMPI_COLL_ALLTOALLW: return (block_t){r + a->rdispls[i], a->rcounts[i], a->rdts[i]};
    case EMPI_COLL_SCATTER:
    case EMPI_COLL_SCATTERV: return (block_t){r, a->rcount, a->rdt};
    default: return (block_t){empi_coll_off(r, a->rcount * i, a->rdt), a->rcount, a->rdt};
    }
}

/* Remote rank i's block of the send side. */
static block_t send_block(const empi_coll_args_t *a, int i)
{
    const char *sb = a->sbuf;
    switch (a->coll) {
    case EMPI_COLL_SCATTERV:
    case EMPI_COLL_ALLTOALLV: return (block_t){empi_coll_off(sb, a->sdispls[i], a->sdt), a->scounts[i], a->sdt};
    case EMPI_COLL_ALLTOALLW: return (block_t){sb + a->sdispls[i], a->scounts[i], a->sdts[i]};
    case EMPI_COLL_SCATTER:
    case EMPI_COLL_ALLTOALL: return (block_t){empi_coll_off(sb, a->scount * i, a->sdt), a->scount, a->sdt};
    default: return (block_t){sb, a->scount, a->sdt};
    }
}

/* Receive from `from` (MPI_ROOT: every remote rank) and send to `to` (likewise); MPI_PROC_NULL
   skips a side. */
static int blocks(empi_sched_t *s, const empi_coll_args_t *a, int from, int to)
{
    int m = s->comm->remote_group->size;
    for (int i = 0; i < m; i++) {
        if (from == MPI_ROOT || from == i) {
            block_t b = recv_block(a, i);
            EMPI_TRY(empi_sched_recv(s, (void *)b.buf, b.count, b.dt, i));
        }
        if (to == MPI_ROOT || to == i) {
            block_t b = send_block(a, i);
            EMPI_TRY(empi_sched_send(s, b.buf, b.count, b.dt, i));
        }
    }
    return empi_sched_fence(s);
}

static int inter_gather(empi_sched_t *s, const empi_coll_args_t *a)
{
    if (a->root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    return a->root == MPI_ROOT ? blocks(s, a, MPI_ROOT, MPI_PROC_NULL) : blocks(s, a, MPI_PROC_NULL, a->root);
}

static int inter_scatter(empi_sched_t *s, const empi_coll_args_t *a)
{
    if (a->root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    return a->root == MPI_ROOT ? blocks(s, a, MPI_PROC_NULL, MPI_ROOT) : blocks(s, a, a->root, MPI_PROC_NULL);
}

static int inter_all_blocks(empi_sched_t *s, const empi_coll_args_t *a)
{
    return blocks(s, a, MPI_ROOT, MPI_ROOT);
}

static const empi_coll_alg_t inter_algs[] = {
    {EMPI_COLL_BARRIER, "inter", 0, inter_barrier, "local barrier, leaders swap, local barrier"},
    {EMPI_COLL_BCAST, "inter", 0, inter_bcast, "root to the remote leader, local binomial bcast"},
    {EMPI_COLL_REDUCE, "inter", 0, inter_reduce, "local binomial reduce, leader sends to the root"},
    {EMPI_COLL_ALLREDUCE, "inter", 0, inter_allreduce, "local reduce, leaders swap, local bcast"},
    {EMPI_COLL_GATHER, "inter", 0, inter_gather, "the root receives from every remote rank"},
    {EMPI_COLL_GATHERV, "inter", 0, inter_gather, "the root receives from every remote rank"},
    {EMPI_COLL_SCATTER, "inter", 0, inter_scatter, "the root sends to every remote rank"},
    {EMPI_COLL_SCATTERV, "inter", 0, inter_scatter, "the root sends to every remote rank"},
    {EMPI_COLL_ALLGATHER, "inter", 0, inter_all_blocks, "every rank exchanges with every remote rank"},
    {EMPI_COLL_ALLGATHERV, "inter", 0, inter_all_blocks, "every rank exchanges with every remote rank"},
    {EMPI_COLL_ALLTOALL, "inter", 0, inter_all_blocks, "every rank exchanges with every remote rank"},
    {EMPI_COLL_ALLTOALLV, "inter", 0, inter_all_blocks, "every rank exchanges with every remote rank"},
    {EMPI_COLL_ALLTOALLW, "inter", 0, inter_all_blocks, "every rank exchanges with every remote rank"},
    {EMPI_COLL_REDUCE_SCATTER_BLOCK, "inter", 0, inter_reduce_scatter_block,
     "local reduce, leaders swap, local scatter"},
    {EMPI_COLL_REDUCE_SCATTER, "inter", 0, inter_reduce_scatter, "local reduce, leaders swap, local scatterv"},
};

const empi_coll_alg_t *empi_coll_inter_alg(int coll)
{
    for (size_t i = 0; i < sizeof inter_algs / sizeof inter_algs[0]; i++)
        if (inter_algs[i].coll == coll)
            return &inter_algs[i];
    return NULL;
}
