/*
 * Accumulate-family operations across nodes as transport atomics (libfabric fi_atomic and
 * friends: transport mem_atomic), towards targets alone on their node in the window (rma_net.c
 * decides which). One operation per call, complete on return: an accumulate is applied at the
 * target, a fetch has its result. Taken when origin, target and result are contiguous runs of one
 * integer or floating type of 1-8 bytes and the transport offers the op on it; whether it does is
 * fixed per op and type, so concurrent accumulates with the same op and type all take the same
 * path. Anything else goes by active messages; an AM accumulate to a target is flushed before the
 * next transport atomic to it, so accumulates from one origin stay in order (accumulate_ordering).
 */
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

/* The operation as one empi_amo_t, or -1 when its shape does not fit one. */
static int describe(const empi_win_peer_t *p, const empi_rma_op_t *op, empi_amo_t *a)
{
    int type = amo_type(op->tdt->basic);
    int o = op->kind == EMPI_RMA_CAS ? EMPI_AMO_REPLACE : amo_op(op->op->handle);
    int fetch = op->kind != EMPI_RMA_ACC;
    const empi_datatype_t *rdt = op->kind == EMPI_RMA_CAS ? op->tdt : op->rdt;   /* CAS: one datatype */
    if (type < 0 || o < 0 || !op->elem || !op->tdt->is_contig || (o == EMPI_AMO_READ && !fetch) ||
        (o != EMPI_AMO_READ && !op->odt->is_contig) || (fetch && !rdt->is_contig))
        return -1;
    *a = (empi_amo_t){
        .kind = op->kind == EMPI_RMA_CAS ? EMPI_AMO_CSWAP : fetch ? EMPI_AMO_FETCH : EMPI_AMO_ACC,
        .op = o, .type = type, .esize = (size_t)op->elem->size,
        .count = (size_t)op->bytes / (size_t)op->elem->size,
        .origin = o == EMPI_AMO_READ ? NULL : (const char *)op->obuf + op->odt->true_lb,
        .compare = op->cbuf,
        .result = fetch ? (char *)op->rbuf + rdt->true_lb : NULL,
        .raddr = p->net_raddr + (uint64_t)op->offset + (uint64_t)op->tdt->true_lb,
        .key = p->net_key};
    return 0;
}

int empi_rma_net_atomic(empi_win_t *w, empi_rma_op_t *op)
{
    empi_win_peer_t *p = &w->peers[op->target];
    empi_amo_t a;
    if (describe(p, op, &a) != 0)
        return EMPI_RMA_NET_DECLINED;
    empi_transport_t *tp = empi_transport_for(p->world);
    if (p->am_acc_unflushed) {
        int rc = empi_rma_am_flush(w, op->target);
        if (rc != MPI_SUCCESS)
            return rc;
        p->am_acc_unflushed = 0;
    }
    int rc = tp->mem_atomic(p->world, &a);
    if (rc == EMPI_AGAIN)
        return EMPI_RMA_NET_DECLINED;
    if (rc != EMPI_OK)
        return MPI_ERR_OTHER;
    op->done_here = 1;
    return MPI_SUCCESS;
}
