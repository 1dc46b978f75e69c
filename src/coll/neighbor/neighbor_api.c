/*
 * Neighborhood collectives (MPI-4.1 section 8.6): each process sends block k to out[k] and
 * receives block k from in[k], the neighbor lists its topology stores (src/topo/topo.h). One
 * schedule round posts every receive and send at once: a neighborhood is small, so there is no
 * algorithm to select. MPI_PROC_NULL neighbors keep their blocks and move nothing. Blocking,
 * nonblocking and persistent forms share the schedule, as the other collectives do.
 *
 * Matching: all messages of one call carry the schedule's tag, so messages between one pair of
 * processes meet in posting order (MPI's non-overtaking rule). For graph and distributed-graph
 * topologies the k-th edge to a process meets the k-th edge from it: post in list order. In a
 * Cartesian dimension of size 1 or 2 with periods the -1 and +1 neighbors are the same process;
 * the standard (MPI-4.1 section 8.6, Example 8.10) wants block 2d, sent to the -1 neighbor, to land
 * in that neighbor's block 2d+1 (it came from its +1 side) and the reverse, so receives are posted
 * per dimension as 2d+1 then 2d while sends go 2d then 2d+1. Other dimensions never pair the same
 * two processes twice, so the order changes nothing there.
 */
#include "coll/neighbor/neighbor_api.h"
#include "core/error.h"
#include "core/global.h"
#include "pt2pt/pt2pt.h"
#include "topo/topo.h"

/* How one side's (send or receive) buffer is cut into per-neighbor blocks. */
typedef enum {
    NBR_SAME,          /* every block is the buffer itself (allgather's send side) */
    NBR_CONSECUTIVE,   /* block k at k * count extents */
    NBR_DISPLS,        /* block k: counts[k] at displs[k] extents */
    NBR_BYTES,         /* block k: counts[k] of types[k] at displs[k] bytes (alltoallw) */
} nbr_shape_t;

typedef struct {
    const char *name;                 /* "send" or "recv", for messages */
    nbr_shape_t shape;
    char *buf;
    MPI_Count count;                  /* NBR_SAME, NBR_CONSECUTIVE */
    const int *ci;                    /* per-block counts: int or MPI_Count */
    const MPI_Count *cc;
    const int *di;                    /* per-block displacements: int or MPI_Aint */
    const MPI_Aint *dc;
    MPI_Datatype type;                /* all shapes but NBR_BYTES */
    const MPI_Datatype *types;        /* NBR_BYTES */
    empi_datatype_t *dt;              /* type, once checked */
} nbr_side_t;

static MPI_Count count_at(const nbr_side_t *sd, int k)
{
    if (sd->shape == NBR_SAME || sd->shape == NBR_CONSECUTIVE)
        return sd->count;
    return sd->ci ? sd->ci[k] : sd->cc[k];
}

/* A null type is tolerated where nothing moves, as in alltoallw. */
static int block_type(const nbr_side_t *sd, int k, MPI_Count count, empi_datatype_t **dt, const char **why)
{
    if (sd->shape != NBR_BYTES) {
        *dt = sd->dt;
        return MPI_SUCCESS;
    }
    if (count == 0 && sd->types[k] == MPI_DATATYPE_NULL) {
        *dt = empi_byte_type;
        return MPI_SUCCESS;
    }
    return empi_datatype_check(sd->types[k], count, dt, why);
}

static char *block_addr(const nbr_side_t *sd, int k, const empi_datatype_t *dt)
{
    switch (sd->shape) {
    case NBR_SAME:
        return sd->buf;
    case NBR_CONSECUTIVE:
        return empi_coll_off(sd->buf, (MPI_Count)k * sd->count, dt);
    case NBR_DISPLS:
        return empi_coll_off(sd->buf, sd->di ? sd->di[k] : sd->dc[k], dt);
    default:
        return sd->buf + sd->dc[k];
    }
}

/* Check one side of a call with n blocks; raises on c. */
static int check_side(empi_comm_t *c, const char *fn, nbr_side_t *sd, int n)
{
    const char *why = NULL;
    int per_block = sd->shape == NBR_DISPLS || sd->shape == NBR_BYTES;
    if (sd->shape != NBR_BYTES) {
        int rc = empi_datatype_check(sd->type, per_block ? 0 : sd->count, &sd->dt, &why);
        if (rc != MPI_SUCCESS)
            return empi_err_comm(c, rc, "%s: %stype: %s", fn, sd->name, why ? why : "invalid");
    }
    /* no in-place form; a per-block side's NULL buffer is judged block by block below */
    const char *problem = empi_buffer_problem(sd->buf, per_block || n == 0 ? 0 : sd->count, sd->dt);
    if (problem)
        return empi_err_comm(c, MPI_ERR_BUFFER, "%s: %sbuf %s", fn, sd->name, problem);
    if (!per_block || n == 0)
        return MPI_SUCCESS;
    if ((!sd->ci && !sd->cc) || (!sd->di && !sd->dc) || (sd->shape == NBR_BYTES && !sd->types))
        return empi_err_comm(c, MPI_ERR_ARG, "%s: the %s counts, displacements or types are NULL", fn, sd->name);
    for (int k = 0; k < n; k++) {
        MPI_Count count = count_at(sd, k);
        empi_datatype_t *dt;
        if (count < 0)
            return empi_err_comm(c, MPI_ERR_COUNT, "%s: %scounts[%d] is negative (%lld)", fn, sd->name, k,
                                 (long long)count);
        int rc = block_type(sd, k, count, &dt, &why);
        if (rc != MPI_SUCCESS)
            return empi_err_comm(c, rc, "%s: %stypes[%d]: %s", fn, sd->name, k, why ? why : "invalid");
        MPI_Aint displ = sd->dc ? sd->dc[k] : sd->di[k];
        if (empi_buffer_missing_at(sd->buf, sd->shape == NBR_BYTES ? displ : displ * dt->extent, count, dt))
            return empi_err_comm(c, MPI_ERR_BUFFER, "%s: %sbuf is NULL with %lld elements for neighbor %d", fn,
                                 sd->name, (long long)count, k);
    }
    return MPI_SUCCESS;
}

/* One side's blocks into the schedule (receive or send), datatypes held for nonblocking forms. */
static int build_side(empi_sched_t *s, const nbr_side_t *sd, const int *peers, int n, int recv, int cart, int hold)
{
    int rc = hold ? empi_sched_hold(s, sd->dt) : MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int k = recv && cart ? i ^ 1 : i;
        if (peers[k] == MPI_PROC_NULL)
            continue;
        MPI_Count count = count_at(sd, k);
        empi_datatype_t *dt;
        const char *why;
        block_type(sd, k, count, &dt, &why);   /* checked before */
        char *addr = block_addr(sd, k, dt);
        if (hold && sd->shape == NBR_BYTES)
            rc = empi_sched_hold(s, dt);
        if (rc == MPI_SUCCESS)
            rc = recv ? empi_sched_recv(s, addr, count, dt, peers[k]) : empi_sched_send(s, addr, count, dt, peers[k]);
    }
    return rc;
}

/* Build the exchange and run it (blocking) or hand it to a request; raises on failure. */
static int run(const char *fn, empi_comm_t *c, const empi_topo_t *t, const nbr_side_t *snd, const nbr_side_t *rcv,
               int mode, MPI_Request *request)
{
    int cart = t->hdr.kind == MPI_CART, hold = mode != EMPI_COLL_BLOCKING;
    empi_sched_t stack, *s = &stack;
    empi_request_t *req = NULL;
    empi_lock();
    int rc = MPI_ERR_NO_MEM;
    if (mode == EMPI_COLL_BLOCKING)
        empi_sched_init(s, c);
    else
        s = empi_sched_new_for(c, mode == EMPI_COLL_PERSISTENT, 1, &rc);
    rc = s ? build_side(s, rcv, t->in, t->nin, 1, cart, hold) : rc;
    if (rc == MPI_SUCCESS)
        rc = build_side(s, snd, t->out, t->nout, 0, cart, hold);
    if (rc == MPI_SUCCESS)
        rc = empi_sched_fence(s);
    if (rc == MPI_SUCCESS)
        rc = mode == EMPI_COLL_BLOCKING ? empi_sched_run(s)
                                        : empi_sched_request(s, mode == EMPI_COLL_PERSISTENT, &req);
    if (s && !req)
        empi_sched_free(s);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "%s: %s", fn,
                             rc == MPI_ERR_NO_MEM ? "out of memory" : "the exchange with the neighbors failed");
    if (req)
        *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

/* Checks every neighborhood collective starts with; c and t := the communicator and its topology. */
static int enter(const char *fn, MPI_Comm comm, int mode, MPI_Request *request, const void *sbuf, empi_comm_t **c,
                 empi_topo_t **t)
{
    EMPI_CHECK(empi_comm_check(comm, fn, c));
    EMPI_CHECK(empi_topo_check(*c, 0, fn, t));
    if (mode != EMPI_COLL_BLOCKING && !request)
        return empi_err_comm(*c, MPI_ERR_REQUEST, "%s: request is NULL", fn);
    if (sbuf == MPI_IN_PLACE)
        return empi_err_comm(*c, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed in neighborhood collectives", fn);
    return MPI_SUCCESS;
}

/* Check both sides against the topology, then run. */
static int check_and_run(const char *fn, empi_comm_t *c, const empi_topo_t *t, nbr_side_t *snd, nbr_side_t *rcv,
                         int mode, MPI_Request *request)
{
    EMPI_CHECK(check_side(c, fn, snd, t->nout));
    EMPI_CHECK(check_side(c, fn, rcv, t->nin));
    return run(fn, c, t, snd, rcv, mode, request);
}

int empi_neighbor_uniform(const char *fn, int which, const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                          MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm, int mode, MPI_Request *request)
{
    empi_comm_t *c;
    empi_topo_t *t;
    EMPI_CHECK(enter(fn, comm, mode, request, sbuf, &c, &t));
    nbr_side_t snd = {.name = "send", .shape = which == EMPI_NEIGHBOR_ALLTOALL ? NBR_CONSECUTIVE : NBR_SAME,
                      .buf = (char *)sbuf, .count = scount, .type = sdt};
    nbr_side_t rcv = {.name = "recv", .shape = NBR_CONSECUTIVE, .buf = rbuf, .count = rcount, .type = rdt};
    return check_and_run(fn, c, t, &snd, &rcv, mode, request);
}

int empi_neighbor_allgatherv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                             const int *rci, const MPI_Count *rcc, const int *rdi, const MPI_Aint *rdc,
                             MPI_Datatype rdt, MPI_Comm comm, int mode, MPI_Request *request)
{
    empi_comm_t *c;
    empi_topo_t *t;
    EMPI_CHECK(enter(fn, comm, mode, request, sbuf, &c, &t));
    nbr_side_t snd = {.name = "send", .shape = NBR_SAME, .buf = (char *)sbuf, .count = scount, .type = sdt};
    nbr_side_t rcv = {.name = "recv", .shape = NBR_DISPLS, .buf = rbuf, .ci = rci, .cc = rcc, .di = rdi, .dc = rdc,
                      .type = rdt};
    return check_and_run(fn, c, t, &snd, &rcv, mode, request);
}

int empi_neighbor_alltoallv(const char *fn, const void *sbuf, const int *sci, const MPI_Count *scc, const int *sdi,
                            const MPI_Aint *sdc, MPI_Datatype sdt, void *rbuf, const int *rci, const MPI_Count *rcc,
                            const int *rdi, const MPI_Aint *rdc, MPI_Datatype rdt, MPI_Comm comm, int mode,
                            MPI_Request *request)
{
    empi_comm_t *c;
    empi_topo_t *t;
    EMPI_CHECK(enter(fn, comm, mode, request, sbuf, &c, &t));
    nbr_side_t snd = {.name = "send", .shape = NBR_DISPLS, .buf = (char *)sbuf, .ci = sci, .cc = scc, .di = sdi,
                      .dc = sdc, .type = sdt};
    nbr_side_t rcv = {.name = "recv", .shape = NBR_DISPLS, .buf = rbuf, .ci = rci, .cc = rcc, .di = rdi, .dc = rdc,
                      .type = rdt};
    return check_and_run(fn, c, t, &snd, &rcv, mode, request);
}

int empi_neighbor_alltoallw(const char *fn, const void *sbuf, const int *sci, const MPI_Count *scc,
                            const MPI_Aint *sdispls, const MPI_Datatype *sdts, void *rbuf, const int *rci,
                            const MPI_Count *rcc, const MPI_Aint *rdispls, const MPI_Datatype *rdts, MPI_Comm comm,
                            int mode, MPI_Request *request)
{
    empi_comm_t *c;
    empi_topo_t *t;
    EMPI_CHECK(enter(fn, comm, mode, request, sbuf, &c, &t));
    nbr_side_t snd = {.name = "send", .shape = NBR_BYTES, .buf = (char *)sbuf, .ci = sci, .cc = scc, .dc = sdispls,
                      .types = sdts};
    nbr_side_t rcv = {.name = "recv", .shape = NBR_BYTES, .buf = rbuf, .ci = rci, .cc = rcc, .dc = rdispls,
                      .types = rdts};
    return check_and_run(fn, c, t, &snd, &rcv, mode, request);
}
