/*
 * Accumulate-family operations across nodes as transport atomics (libfabric fi_atomic and
 * friends: transport mem_atomic), towards targets alone on their node in the window (rma_net.c
 * decides which). One operation per call, complete on return: an accumulate is applied at the
 * target, a fetch has its result. Taken when the element type is an integer or floating type of 1-8
 * bytes and the transport offers the op on it, whatever the layouts: a derived target datatype
 * becomes one atomic per contiguous run. Whether the transport offers an op is fixed per op and
 * type, so concurrent accumulates with the same op and type all take the same path, as
 * element-wise atomicity needs. Anything else goes by active messages; an AM accumulate to a target
 * is flushed before the next transport atomic to it, so accumulates from one origin stay in order
 * (accumulate_ordering).
 */
#include <stdlib.h>

#include "rma/win.h"
#include "transport/transport.h"

empi_transport_t *empi_transport_for(int world_rank);

static int amo_type(empi_basic_t b)
{
    switch (b) {
    case EMPI_BASIC_FLOAT: case EMPI_BASIC_DOUBLE: case EMPI_BASIC_REAL: case EMPI_BASIC_DOUBLE_PRECISION:
    case EMPI_BASIC_REAL4: case EMPI_BASIC_REAL8:
        return EMPI_AMO_FLOAT;
    case EMPI_BASIC_SCHAR: case EMPI_BASIC_SHORT: case EMPI_BASIC_INT: case EMPI_BASIC_LONG:
    case EMPI_BASIC_LONG_LONG: case EMPI_BASIC_INT8: case EMPI_BASIC_INT16: case EMPI_BASIC_INT32:
    case EMPI_BASIC_INT64: case EMPI_BASIC_AINT: case EMPI_BASIC_COUNT: case EMPI_BASIC_OFFSET:
    case EMPI_BASIC_INTEGER: case EMPI_BASIC_INTEGER1: case EMPI_BASIC_INTEGER2: case EMPI_BASIC_INTEGER4:
    case EMPI_BASIC_INTEGER8:
        return EMPI_AMO_SIGNED;
    case EMPI_BASIC_UCHAR: case EMPI_BASIC_USHORT: case EMPI_BASIC_UINT: case EMPI_BASIC_ULONG:
    case EMPI_BASIC_ULONG_LONG: case EMPI_BASIC_UINT8: case EMPI_BASIC_UINT16: case EMPI_BASIC_UINT32:
    case EMPI_BASIC_UINT64: case EMPI_BASIC_BYTE:
        return EMPI_AMO_UNSIGNED;
    case EMPI_BASIC_CHAR:   /* reduced as an 8-bit integer of char's signedness (op_kernels.c) */
        return (char)-1 < 0 ? EMPI_AMO_SIGNED : EMPI_AMO_UNSIGNED;
    default:
        return -1;
    }
}

static int amo_op(MPI_Op h)
{
    static const struct { MPI_Op mpi; int amo; } ops[] = {
        {MPI_SUM, EMPI_AMO_SUM},   {MPI_PROD, EMPI_AMO_PROD}, {MPI_MIN, EMPI_AMO_MIN},
        {MPI_MAX, EMPI_AMO_MAX},   {MPI_LAND, EMPI_AMO_LAND}, {MPI_LOR, EMPI_AMO_LOR},
        {MPI_LXOR, EMPI_AMO_LXOR}, {MPI_BAND, EMPI_AMO_BAND}, {MPI_BOR, EMPI_AMO_BOR},
        {MPI_BXOR, EMPI_AMO_BXOR}, {MPI_REPLACE, EMPI_AMO_REPLACE}, {MPI_NO_OP, EMPI_AMO_READ},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].mpi == h)
            return ops[i].amo;
    return -1;
}

/* The operation's kind, op and element type as an empi_amo_t without addresses, or -1 when no
   transport atomic can carry it. */
static int describe(const empi_win_peer_t *p, const empi_rma_op_t *op, empi_amo_t *a)
{
    int type = op->elem ? amo_type(op->elem->basic) : -1;
    int o = op->kind == EMPI_RMA_CAS ? EMPI_AMO_REPLACE : amo_op(op->op->handle);
    int fetch = op->kind != EMPI_RMA_ACC;
    if (type < 0 || o < 0 || (o == EMPI_AMO_READ && !fetch))
        return -1;
    *a = (empi_amo_t){.kind = op->kind == EMPI_RMA_CAS ? EMPI_AMO_CSWAP : fetch ? EMPI_AMO_FETCH : EMPI_AMO_ACC,
                      .op = o, .type = type, .esize = (size_t)op->elem->size, .compare = op->cbuf,
                      .key = p->net_key};
    return 0;
}

/* One contiguous run of the target buffer: its elements as one transport atomic, origin and
   result taken from the same place in their packed streams. */
typedef struct {
    empi_transport_t *tp;
    int world;
    empi_amo_t a;
    uint64_t at;             /* remote address of the target buffer's origin */
    const char *origin;      /* packed operand stream (NULL for MPI_NO_OP) */
    char *result;            /* packed result stream (NULL for accumulates) */
} amo_walk_t;

static int amo_run(void *c, MPI_Aint disp, MPI_Count s, MPI_Count len)
{
    amo_walk_t *x = c;
    empi_amo_t a = x->a;
    a.count = (size_t)len / a.esize;
    a.raddr = x->at + (uint64_t)disp;
    a.origin = x->origin ? x->origin + s : NULL;
    a.result = x->result ? x->result + s : NULL;
    int rc = x->tp->mem_atomic(x->world, &a);
    /* Whether the transport offers this op on this type never changes, so only the first run can
       be declined, before anything was applied. */
    if (rc == EMPI_AGAIN && s == 0)
        return EMPI_RMA_NET_DECLINED;
    return rc == EMPI_OK ? 0 : MPI_ERR_OTHER;
}

int empi_rma_net_atomic(empi_win_t *w, empi_rma_op_t *op)
{
    empi_win_peer_t *p = &w->peers[op->target];
    amo_walk_t x = {.tp = op->target == w->rank ? w->net_tp : empi_transport_for(p->world), .world = p->world,
                    .at = p->net_raddr + (uint64_t)op->offset};
    if (describe(p, op, &x.a) != 0)
        return EMPI_RMA_NET_DECLINED;
    if (p->am_acc_unflushed) {
        int rc = empi_rma_am_flush(w, op->target);
        if (rc != MPI_SUCCESS)
            return rc;
        p->am_acc_unflushed = 0;
    }
    /* Derived layouts go run by run: atomicity is per element, so they stay atomic with the
       contiguous accumulates of the same op and type that take the transport too. */
    void *otmp = NULL, *rtmp = NULL;
    const empi_datatype_t *rdt = op->kind == EMPI_RMA_CAS ? op->tdt : op->rdt;   /* CAS: one datatype */
    int rc = MPI_SUCCESS;
    if (x.a.op != EMPI_AMO_READ && !(x.origin = empi_rma_stream(op->obuf, op->ocount, op->odt, op->bytes, &otmp)))
        rc = MPI_ERR_NO_MEM;
    if (x.a.kind != EMPI_AMO_ACC && !(x.result = empi_rma_sink(op->rbuf, rdt, op->bytes, &rtmp)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = empi_dt_runs(op->tcount, op->tdt, amo_run, &x);
    if (rc == MPI_SUCCESS && rtmp)
        empi_dt_unpack(op->rbuf, op->kind == EMPI_RMA_CAS ? 1 : op->rcount, rdt, 0, rtmp, op->bytes);
    free(otmp);
    free(rtmp);
    if (rc == MPI_SUCCESS)
        op->done_here = 1;
    return rc;
}
