/*
 * The communication calls of one-sided MPI: Put, Get, Accumulate, Get_accumulate, Fetch_and_op,
 * Compare_and_swap, their request-based forms and their large-count (_c) forms. This file checks
 * arguments, the epoch and the target range once, then hands the operation to the path that
 * reaches the target (win.h). Request-based operations get a request completed with the operation:
 * at once on the DIRECT and CMA paths, when the target's answer is in for AM gets.
 */
#include "core/error.h"
#include "core/global.h"
#include "rma/win.h"

/* Request of an Rput/Rget/...: a plain request the RMA layer completes itself. */
static int new_request(empi_win_t *w, MPI_Request *request, empi_request_t **out)
{
    empi_request_t *req = empi_request_new(EMPI_REQ_COLL, w->comm);
    if (!req)
        return MPI_ERR_NO_MEM;
    *out = req;
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

/*
 * Every field set one by one: a designated initializer zero-fills the whole struct first, which GCC
 * emits as `rep stos`, a fifth of an 8-byte put's time on this machine.
 */
static inline void op_init(empi_rma_op_t *op, empi_rma_kind_t kind, const void *obuf, MPI_Count ocount, void *rbuf,
                           MPI_Count rcount, const void *cbuf, int target, MPI_Count tcount)
{
    op->kind = kind;
    op->obuf = obuf;
    op->ocount = ocount;
    op->odt = NULL;
    op->rbuf = rbuf;
    op->rcount = rcount;
    op->rdt = NULL;
    op->cbuf = cbuf;
    op->target = target;
    op->offset = 0;
    op->tcount = tcount;
    op->tdt = NULL;
    op->op = NULL;
    op->elem = NULL;
    op->bytes = 0;
    op->req = NULL;
    op->done_here = 0;
}

static int check_dt(MPI_Datatype h, MPI_Count count, empi_datatype_t **dt, const char **why)
{
    return empi_datatype_check(h, count, dt, why);
}

typedef struct {
    empi_win_t *w;
    int target;
    MPI_Aint off;
} dyn_runs_t;

static int run_outside(void *ctx, MPI_Aint disp, MPI_Count stream_off, MPI_Count len)
{
    (void)stream_off;
    dyn_runs_t *c = ctx;
    return !empi_win_dyn_contains(c->w, c->target, (uint64_t)(c->off + disp), (uint64_t)len);
}

/* Whether every byte the target datatype touches is attached: the datatype's whole span usually
   is; otherwise each of its contiguous runs must be (its holes may be memory nobody attached). */
static int dyn_inside(empi_win_t *w, empi_rma_op_t *op, MPI_Aint lo, MPI_Aint hi)
{
    if (empi_win_dyn_contains(w, op->target, (uint64_t)lo, (uint64_t)(hi - lo)))
        return 1;
    dyn_runs_t c = {w, op->target, op->offset};
    return empi_dt_runs(op->tcount, op->tdt, run_outside, &c) == 0;
}

/* The byte offset of the target buffer from the peer's base, and its bounds inside the window. */
static int check_range(empi_win_t *w, empi_rma_op_t *op, MPI_Aint disp, const char *fname)
{
    empi_win_peer_t *p = &w->peers[op->target];
    MPI_Aint off, span;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        off = disp;   /* an address in the target process */
    } else if (disp < 0 || __builtin_mul_overflow(disp, (MPI_Aint)p->disp_unit, &off)) {
        return empi_err_win(w, MPI_ERR_RMA_RANGE, "%s: target_disp %ld is outside the window of rank %d", fname,
                            (long)disp, op->target);
    }
    op->offset = off;
    if (op->tcount == 0 || op->bytes == 0)
        return MPI_SUCCESS;
    /* A negative extent lays the elements out downwards from the first. */
    MPI_Aint lo = 0, hi = 0;
    int overflow = __builtin_mul_overflow(op->tcount - 1, op->tdt->extent, &span) ||
                   __builtin_add_overflow(off, op->tdt->true_lb + (span < 0 ? span : 0), &lo) ||
                   __builtin_add_overflow(off, op->tdt->true_ub + (span > 0 ? span : 0), &hi);
    int inside = !overflow && (w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? dyn_inside(w, op, lo, hi)
                                                                   : lo >= 0 && hi <= p->size);
    if (!inside)
        return empi_err_win(w, MPI_ERR_RMA_RANGE,
                            "%s: target bytes [%ld, %ld) at target_disp %ld are outside the %s of rank %d", fname,
                            (long)lo, (long)hi, (long)disp,
                            w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? "attached regions" : "window", op->target);
    return MPI_SUCCESS;
}

static int run(empi_win_t *w, empi_rma_op_t *op)
{
    empi_win_peer_t *p = &w->peers[op->target];
    int rc;
    empi_rma_am_poll();
    if (EMPI_LIKELY(p->path == EMPI_RMA_DIRECT)) {
        /* our own memory, served to other nodes by transport atomics (rma_net.c) */
        if (EMPI_UNLIKELY(p->net_amo) && op->kind >= EMPI_RMA_ACC &&
            (rc = empi_rma_net_atomic(w, op)) != EMPI_RMA_NET_DECLINED)
            return rc;
        return empi_rma_direct(w, op);
    }
    if (p->path == EMPI_RMA_CMA) {
        rc = empi_rma_cma(w, op);
        if (rc != EMPI_RMA_CMA_REFUSED)
            return rc;
        p->path = EMPI_RMA_AM;   /* the kernel will not let us: the target's handler does it */
        empi_rma_am_uses(w);
    }
    if (op->kind == EMPI_RMA_GET && p->net_read) {
        if (empi_rma_net_get(w, op) == MPI_SUCCESS)
            return MPI_SUCCESS;
        p->net_read = 0;   /* the transport cannot read this peer after all: the target's handler does it */
    }
    if (op->kind == EMPI_RMA_PUT && p->net_write) {
        if (empi_rma_net_put(w, op) == MPI_SUCCESS)
            return MPI_SUCCESS;
        p->net_write = 0;  /* nor write it */
    }
    if (op->kind >= EMPI_RMA_ACC && p->net_amo) {
        rc = empi_rma_net_atomic(w, op);
        if (rc != EMPI_RMA_NET_DECLINED)
            return rc;
        p->am_acc_unflushed = 1;
    }
    p->sync |= EMPI_WIN_SYNC_TOUCHED;
    return empi_rma_am(w, op);
}

/*
 * Everything but the operation itself. Returns MPI_SUCCESS with *skip set for MPI_PROC_NULL
 * targets, or the raised error.
 */
static int prepare(empi_win_t *w, const char *fname, empi_rma_op_t *op, MPI_Datatype odt, MPI_Datatype tdt,
                   MPI_Aint disp, const MPI_Request *request, int *skip)
{
    const char *why = "";
    *skip = 0;
    int rc = check_dt(odt, op->ocount, &op->odt, &why);
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "%s: origin datatype %s", fname, why);
    if ((rc = check_dt(tdt, op->tcount, &op->tdt, &why)) != MPI_SUCCESS)
        return empi_err_win(w, rc, "%s: target datatype %s", fname, why);
    if (op->target == MPI_PROC_NULL) {
        *skip = 1;
        return MPI_SUCCESS;
    }
    if (op->target < 0 || op->target >= w->size)
        return empi_err_win(w, MPI_ERR_RANK, "%s: target_rank %d is not in the window's group of %d", fname,
                            op->target, w->size);
    if (empi_win_access_ok(w, op->target) != MPI_SUCCESS)
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "%s: no access epoch is open for target %d", fname, op->target);
    if (request && !empi_win_passive_ok(w, op->target))
        return empi_err_win(w, MPI_ERR_RMA_SYNC,
                            "%s: request-based operations need a passive-target epoch (lock or lock_all) on "
                            "target %d, not a fence or start epoch",
                            fname, op->target);
    op->bytes = op->tcount * op->tdt->size;
    int uses_origin = op->kind != EMPI_RMA_GET_ACC || op->op->handle != MPI_NO_OP;
    if (uses_origin && op->ocount * op->odt->size != op->bytes)
        return empi_err_win(w, MPI_ERR_TYPE, "%s: the origin has %ld bytes of data, the target %ld", fname,
                            (long)(op->ocount * op->odt->size), (long)op->bytes);
    const empi_datatype_t *rdt = op->rdt ? op->rdt : op->tdt;   /* compare_and_swap: one datatype */
    if (uses_origin && empi_buffer_missing(op->obuf, op->ocount, op->odt))
        return empi_err_win(w, MPI_ERR_BUFFER, "%s: origin_addr is NULL with data to move", fname);
    if (op->kind >= EMPI_RMA_GET_ACC && empi_buffer_missing(op->rbuf, op->rcount, rdt))
        return empi_err_win(w, MPI_ERR_BUFFER, "%s: result_addr is NULL", fname);
    if (op->kind == EMPI_RMA_CAS && empi_buffer_missing(op->cbuf, 1, rdt))
        return empi_err_win(w, MPI_ERR_BUFFER, "%s: compare_addr is NULL", fname);
    return check_range(w, op, disp, fname);
}

/* Accumulate family: one predefined op, origin and target of the same basic type. */
static int prepare_acc(empi_win_t *w, const char *fname, empi_rma_op_t *op, MPI_Op mop)
{
    op->op = empi_op_get(mop);
    if (!op->op)
        return empi_err_win(w, MPI_ERR_OP, "%s: invalid op %p", fname, (void *)mop);
    if (!op->op->predefined)
        return empi_err_win(w, MPI_ERR_OP, "%s: one-sided accumulates take predefined operations only", fname);
    return MPI_SUCCESS;
}

static int check_acc_types(empi_win_t *w, const char *fname, empi_rma_op_t *op)
{
    empi_basic_t b = op->tdt->basic;
    int no_op = op->op->handle == MPI_NO_OP;
    if (b == EMPI_BASIC_NONE || (!no_op && op->odt->basic != b) || (op->rdt && op->rdt->basic != b))
        return empi_err_win(w, MPI_ERR_TYPE, "%s: origin%s and target datatypes must be made of one same basic type",
                            fname, op->rdt ? ", result" : "");
    /* an operation on no element combines nothing: any op is acceptable then */
    if (op->tcount * op->tdt->size != 0 && empi_op_check(op->op, op->tdt) != MPI_SUCCESS)
        return empi_err_win(w, MPI_ERR_OP, "%s: the operation is not defined on the target datatype", fname);
    op->elem = empi_rma_elem_type(b);
    if (!op->elem)
        return empi_err_win(w, MPI_ERR_TYPE, "%s: no element type for the target datatype", fname);
    return MPI_SUCCESS;
}

static int finish(empi_win_t *w, const char *fname, empi_rma_op_t *op, MPI_Request *request)
{
    if (request) {
        if (new_request(w, request, &op->req) != MPI_SUCCESS)
            return empi_err_win(w, MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    /* no byte to move (the buffers may then be NULL): complete at once on every path */
    int empty = op->bytes == 0 && op->kind != EMPI_RMA_CAS;
    int rc = empty ? MPI_SUCCESS : run(w, op);
    if (op->req && (empty || op->done_here || rc != MPI_SUCCESS || op->kind == EMPI_RMA_PUT ||
                    op->kind == EMPI_RMA_ACC || w->peers[op->target].path != EMPI_RMA_AM))
        empi_request_set_complete(op->req);
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "%s: the operation on rank %d failed", fname, op->target);
    return MPI_SUCCESS;
}

/* A request for an operation with nothing to do (MPI_PROC_NULL target). */
static int finish_skipped(empi_win_t *w, const char *fname, MPI_Request *request)
{
    empi_request_t *req;
    if (request) {
        if (new_request(w, request, &req) != MPI_SUCCESS)
            return empi_err_win(w, MPI_ERR_NO_MEM, "%s: out of memory", fname);
        empi_request_set_complete(req);
    }
    return MPI_SUCCESS;
}

static int put_get(const char *fname, empi_rma_kind_t kind, const void *obuf, MPI_Count ocount, MPI_Datatype odt,
                   int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *request)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, fname, &w));
    if (request == NULL && fname[4] == 'R')
        return empi_err_win(w, MPI_ERR_ARG, "%s: request is NULL", fname);
    if (!request && obuf && odt == tdt && ocount == tcount &&
        empi_rma_put_get_fast(w, kind == EMPI_RMA_GET, obuf, tcount, tdt, target, disp) == MPI_SUCCESS)
        return MPI_SUCCESS;
    empi_rma_op_t op;
    op_init(&op, kind, obuf, ocount, NULL, 0, NULL, target, tcount);
    int skip;
    EMPI_CHECK(prepare(w, fname, &op, odt, tdt, disp, request, &skip));
    if (skip)
        return finish_skipped(w, fname, request);
    empi_lock();
    int rc = finish(w, fname, &op, request);
    empi_unlock();
    return rc;
}

static int accumulate(const char *fname, const void *obuf, MPI_Count ocount, MPI_Datatype odt, void *rbuf,
                      MPI_Count rcount, MPI_Datatype rdt, int target, MPI_Aint disp, MPI_Count tcount,
                      MPI_Datatype tdt, MPI_Op mop, MPI_Win win, MPI_Request *request, int fetch)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, fname, &w));
    if (request == NULL && fname[4] == 'R')
        return empi_err_win(w, MPI_ERR_ARG, "%s: request is NULL", fname);
    if (!fetch && mop == MPI_NO_OP)
        return empi_err_win(w, MPI_ERR_OP, "%s: MPI_NO_OP is for MPI_Get_accumulate and MPI_Fetch_and_op only", fname);
    if (fetch && mop == MPI_NO_OP) {   /* which ignores the origin's count and datatype */
        ocount = rcount;
        odt = rdt;
    }
    if (!request && obuf && odt == tdt && ocount == tcount && (!fetch || (rbuf && rdt == tdt && rcount == tcount)) &&
        empi_rma_acc_fast(w, obuf, tcount, tdt, fetch ? rbuf : NULL, target, disp, mop) == MPI_SUCCESS)
        return MPI_SUCCESS;
    empi_rma_op_t op;
    op_init(&op, fetch ? EMPI_RMA_GET_ACC : EMPI_RMA_ACC, obuf, ocount, rbuf, rcount, NULL, target, tcount);
    EMPI_CHECK(prepare_acc(w, fname, &op, mop));
    if (fetch) {
        const char *why = "";
        int rc = check_dt(rdt, rcount, &op.rdt, &why);
        if (rc != MPI_SUCCESS)
            return empi_err_win(w, rc, "%s: result datatype %s", fname, why);
    }
    int skip;
    EMPI_CHECK(prepare(w, fname, &op, odt, tdt, disp, request, &skip));
    if (skip)
        return finish_skipped(w, fname, request);
    if (fetch && op.rcount * op.rdt->size != op.bytes)
        return empi_err_win(w, MPI_ERR_TYPE, "%s: the result buffer holds %ld bytes, the target %ld", fname,
                            (long)(op.rcount * op.rdt->size), (long)op.bytes);
    EMPI_CHECK(check_acc_types(w, fname, &op));
    empi_lock();
    int rc = finish(w, fname, &op, request);
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Put)
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return put_get("MPI_Put", EMPI_RMA_PUT, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, NULL);
}

EMPI_WEAK_ALIAS(Put_c)
int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return put_get("MPI_Put_c", EMPI_RMA_PUT, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, NULL);
}

EMPI_WEAK_ALIAS(Get)
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return put_get("MPI_Get", EMPI_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, NULL);
}

EMPI_WEAK_ALIAS(Get_c)
int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return put_get("MPI_Get_c", EMPI_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, NULL);
}

EMPI_WEAK_ALIAS(Rput)
int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return put_get("MPI_Rput", EMPI_RMA_PUT, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, request);
}

EMPI_WEAK_ALIAS(Rput_c)
int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request)
{
    return put_get("MPI_Rput_c", EMPI_RMA_PUT, origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request);
}

EMPI_WEAK_ALIAS(Rget)
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return put_get("MPI_Rget", EMPI_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, request);
}

EMPI_WEAK_ALIAS(Rget_c)
int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                MPI_Request *request)
{
    return put_get("MPI_Rget_c", EMPI_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request);
}

EMPI_WEAK_ALIAS(Accumulate)
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return accumulate("MPI_Accumulate", origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                      target_rank, target_disp, target_count, target_datatype, op, win, NULL, 0);
}

EMPI_WEAK_ALIAS(Accumulate_c)
int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype,
                      MPI_Op op, MPI_Win win)
{
    return accumulate("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                      target_rank, target_disp, target_count, target_datatype, op, win, NULL, 0);
}

EMPI_WEAK_ALIAS(Raccumulate)
int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    return accumulate("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                      target_rank, target_disp, target_count, target_datatype, op, win, request, 0);
}

EMPI_WEAK_ALIAS(Raccumulate_c)
int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype,
                       MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return accumulate("MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                      target_rank, target_disp, target_count, target_datatype, op, win, request, 0);
}

EMPI_WEAK_ALIAS(Get_accumulate)
int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, NULL, 1);
}

EMPI_WEAK_ALIAS(Get_accumulate_c)
int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win)
{
    return accumulate("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, NULL, 1);
}

EMPI_WEAK_ALIAS(Rget_accumulate)
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                         int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request)
{
    return accumulate("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request, 1);
}

EMPI_WEAK_ALIAS(Rget_accumulate_c)
int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                           void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                           MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request *request)
{
    return accumulate("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype, result_addr,
                      result_count, result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                      win, request, 1);
}

EMPI_WEAK_ALIAS(Fetch_and_op)
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Fetch_and_op", &w));
    empi_datatype_t *dt = empi_datatype_get(datatype);
    if (dt && !dt->predefined)
        return empi_err_win(w, MPI_ERR_TYPE, "MPI_Fetch_and_op: datatype must be a predefined datatype");
    return accumulate("MPI_Fetch_and_op", origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                      target_disp, 1, datatype, op, win, NULL, 1);
}

EMPI_WEAK_ALIAS(Compare_and_swap)
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    const char *fname = "MPI_Compare_and_swap";
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, fname, &w));
    empi_rma_op_t op;
    op_init(&op, EMPI_RMA_CAS, origin_addr, 1, result_addr, 1, compare_addr, target_rank, 1);
    int skip;
    EMPI_CHECK(prepare(w, fname, &op, datatype, datatype, target_disp, NULL, &skip));
    if (skip)
        return MPI_SUCCESS;
    if (!op.tdt->predefined || !empi_rma_cas_type_ok(op.tdt->basic) || op.tdt->size > 8)
        return empi_err_win(w, MPI_ERR_TYPE, "%s: the datatype must be a predefined integer, logical or byte type",
                            fname);
    op.elem = op.tdt;
    empi_lock();
    int rc = finish(w, fname, &op, NULL);
    empi_unlock();
    return rc;
}
