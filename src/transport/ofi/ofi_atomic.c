/*
 * mem_atomic: one-sided atomics on exposed window memory through libfabric (fi_atomicmsg,
 * fi_fetch_atomicmsg, fi_compare_atomicmsg), each waited for: an accumulate is delivery complete
 * (applied at the target) on return, a fetch has its result. Whether the provider offers an op on
 * a type is asked once (fi_*atomicvalid, which also bounds the elements per operation) and
 * remembered, so the same op and type always take the same path, which keeps concurrent
 * accumulates atomic with each other.
 */
#include <string.h>

#include "transport/ofi/ofi_internal.h"

#define NTYPES 3
#define NSIZES 4   /* 1, 2, 4, 8 bytes */
#define NOPS (EMPI_AMO_READ + 1)
#define NKINDS 3

/* 0 unknown, -1 not offered, else 1 + the elements one operation may carry */
static long valid[NKINDS][NOPS][NTYPES][NSIZES];

static int size_index(size_t esize)
{
    return esize == 1 ? 0 : esize == 2 ? 1 : esize == 4 ? 2 : esize == 8 ? 3 : -1;
}

static int fi_type(int type, size_t esize, enum fi_datatype *dt)
{
    static const enum fi_datatype ints[] = {FI_INT8, FI_INT16, FI_INT32, FI_INT64};
    static const enum fi_datatype uints[] = {FI_UINT8, FI_UINT16, FI_UINT32, FI_UINT64};
    int s = size_index(esize);
    if (s < 0)
        return -1;
    if (type == EMPI_AMO_FLOAT) {
        if (esize != 4 && esize != 8)
            return -1;
        *dt = esize == 4 ? FI_FLOAT : FI_DOUBLE;
    } else {
        *dt = type == EMPI_AMO_SIGNED ? ints[s] : uints[s];
    }
    return 0;
}

static enum fi_op fi_op_of(int kind, int op)
{
    static const enum fi_op ops[NOPS] = {FI_SUM, FI_PROD, FI_MIN, FI_MAX, FI_LAND, FI_LOR, FI_LXOR,
                                         FI_BAND, FI_BOR, FI_BXOR, FI_ATOMIC_WRITE, FI_ATOMIC_READ};
    return kind == EMPI_AMO_CSWAP ? FI_CSWAP : ops[op];
}

/* Elements per operation the provider takes for this kind, op and type; 0 when not offered. */
static size_t offered(const empi_amo_t *a, enum fi_datatype dt, enum fi_op op)
{
    long *v = &valid[a->kind][a->op][a->type][size_index(a->esize)];
    if (*v == 0) {
        size_t max = 0;
        int rc = a->kind == EMPI_AMO_ACC     ? fi_atomicvalid(O.ep, dt, op, &max)
                 : a->kind == EMPI_AMO_FETCH ? fi_fetch_atomicvalid(O.ep, dt, op, &max)
                                             : fi_compare_atomicvalid(O.ep, dt, op, &max);
        *v = rc == 0 && max > 0 ? 1 + (long)max : -1;
    }
    return *v > 0 ? (size_t)(*v - 1) : 0;
}

/* One posted piece. The descriptors libfabric is handed live here, in the caller's frame, until the
   completion: a provider that retransmits (ofi_rxd) may read them again after the post returned. */
typedef struct {
    const empi_amo_t *a;
    int peer;
    enum fi_datatype dt;
    enum fi_op op;
    size_t first, n;   /* elements of this piece */
    void *desc[3];     /* origin, compare, result */
    struct fi_ioc ioc, res, cmp;
    struct fi_rma_ioc rioc;
    struct fi_msg_atomic msg;
} amo_piece_t;

static ssize_t post_amo(void *arg, void *ctx)
{
    amo_piece_t *p = arg;
    const empi_amo_t *a = p->a;
    size_t off = p->first * a->esize;
    /* A read takes no operand; libfabric still wants a buffer, and the result is one. */
    const void *operand = a->op == EMPI_AMO_READ ? a->result : a->origin;
    p->ioc = (struct fi_ioc){(char *)(uintptr_t)operand + off, p->n};
    p->rioc = (struct fi_rma_ioc){a->raddr + off, p->n, a->key};
    p->msg = (struct fi_msg_atomic){.msg_iov = &p->ioc, .desc = &p->desc[a->op == EMPI_AMO_READ ? 2 : 0],
                                    .iov_count = 1, .addr = empi_ofi_mem_addr(p->peer), .rma_iov = &p->rioc,
                                    .rma_iov_count = 1, .datatype = p->dt, .op = p->op, .context = ctx};
    if (a->kind == EMPI_AMO_ACC)
        return fi_atomicmsg(O.ep, &p->msg, FI_DELIVERY_COMPLETE | FI_COMPLETION);
    p->res = (struct fi_ioc){(char *)a->result + off, p->n};
    if (a->kind == EMPI_AMO_FETCH)
        return fi_fetch_atomicmsg(O.ep, &p->msg, &p->res, &p->desc[2], 1, FI_COMPLETION);
    p->cmp = (struct fi_ioc){(char *)(uintptr_t)a->compare + off, p->n};
    return fi_compare_atomicmsg(O.ep, &p->msg, &p->cmp, &p->desc[1], 1, &p->res, &p->desc[2], 1, FI_COMPLETION);
}

int empi_ofi_mem_atomic(int peer, const empi_amo_t *a)
{
    enum fi_datatype dt;
    if (!O.can_atomic || a->op >= NOPS || fi_type(a->type, a->esize, &dt) != 0)
        return EMPI_AGAIN;
    enum fi_op op = fi_op_of(a->kind, a->op);
    size_t max = offered(a, dt, op);
    if (max == 0)
        return EMPI_AGAIN;
    if (!empi_ofi_can_reach_memory(peer))
        return EMPI_ERROR;
    size_t bytes = a->count * a->esize;
    empi_ofi_mr_t *mr[3] = {NULL, NULL, NULL};
    const void *bufs[3] = {a->op == EMPI_AMO_READ ? NULL : a->origin,
                           a->kind == EMPI_AMO_CSWAP ? a->compare : NULL, a->kind == EMPI_AMO_ACC ? NULL : a->result};
    amo_piece_t p = {.a = a, .peer = peer, .dt = dt, .op = op};
    int rc = EMPI_OK;
    for (int i = 0; i < 3; i++)
        if (bufs[i] && empi_ofi_mr_local_needed() &&
            empi_ofi_mr_acquire(bufs[i], bytes, FI_READ | FI_WRITE, &mr[i]) != 0)
            rc = EMPI_ERROR;
    for (int i = 0; i < 3; i++)
        p.desc[i] = empi_ofi_mr_desc(mr[i]);
    for (size_t first = 0; rc == EMPI_OK && first < a->count; first += p.n) {
        p.first = first;
        p.n = a->count - first < max ? a->count - first : max;
        if (empi_ofi_complete_one(post_amo, &p, "fi_atomic") != 0)
            rc = EMPI_ERROR;
    }
    for (int i = 0; i < 3; i++)
        empi_ofi_mr_release(mr[i]);
    O.rma_atomics += rc == EMPI_OK;
    return rc;
}
