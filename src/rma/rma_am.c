/*
 * The active-message path: RMA to a process whose memory we cannot touch (another node, or CMA
 * refused; EMPI_RMA_PATH=am forces it on one node for testing). Operations travel as EMPI_PKT_RMA
 * packets through the transports' packet path (pt2pt.h) and the target's progress engine applies
 * them to its memory exactly as a local origin would (same atomics, same accumulate lock, same
 * lock word), so AM and direct origins of one window stay mutually atomic and exclusive.
 *
 *   PUT  addr,len + data                  applied on arrival, no answer
 *   ACC  addr,len,elem,op + elements      applied on arrival; with FETCH the old values come back
 *   GET  addr,len                         answered by REPLY packets (data at a stream offset)
 *   CAS  addr + origin,compare            answered by one REPLY
 *   LOCK / UNLOCK / FLUSH                 answered by ACK once granted / released / reached
 * Packets of one pair arrive in order, so a FLUSH answered means every earlier operation of that
 * origin is applied. Each operation is cut at the target datatype's contiguous runs and at the
 * packet size; accumulates are cut at element boundaries. A lock request the target cannot grant
 * waits in a list the progress hook retries; handlers never block.
 *
 * Progress: the target applies packets when it enters the MPI library (any call that polls).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/copy.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "pt2pt/proto.h"
#include "pt2pt/pt2pt.h"
#include "rma/win.h"
#include "transport/transport.h"

enum { AM_PUT = 1, AM_GET, AM_ACC, AM_CAS, AM_LOCK, AM_UNLOCK, AM_FLUSH, AM_REGIONS, AM_REPLY, AM_ACK };
enum { AM_EXCLUSIVE = 1, AM_FETCH = 2, AM_PAIRS = 4, AM_DROPPED = 8 };

typedef struct am_hdr {
    uint8_t type;        /* EMPI_PKT_RMA */
    uint8_t am;          /* AM_* */
    uint8_t flags;
    uint8_t pad_;
    uint32_t win;        /* context id of the window's communicator */
    int32_t src;         /* origin's rank in the window */
    int32_t elem;        /* accumulates: predefined datatype handle of one element */
    int32_t op;          /* accumulates: predefined op handle */
    int32_t pad2_;
    uint64_t addr;       /* offset from the target's base (an address for dynamic windows) */
    uint64_t len;        /* payload bytes, or bytes asked for */
    uint64_t cookie;     /* origin's tracking record, echoed in answers */
    uint64_t stream;     /* stream offset of this piece in the origin's buffer */
} am_hdr_t;

/* Origin side: where answers go. */
typedef struct am_track {
    empi_win_t *w;
    int target;
    void *buf;           /* answer data lands in the stream of (buf, count, dt) */
    MPI_Count count;
    empi_datatype_t *dt;
    MPI_Count remaining; /* bytes (or acks) still to come */
    empi_request_t *req;
} am_track_t;

/* A packet that found no room, waiting in its peer's queue. */
typedef struct am_queued {
    struct am_queued *next;
    int peer;
    size_t len;
    unsigned char data[];
} am_queued_t;

/* A lock request the target could not grant yet. */
typedef struct empi_rma_am_wait {
    struct empi_rma_am_wait *next;
    int src;
    int exclusive;
    uint64_t cookie;
    uint64_t since_ns;
} am_wait_t;

/* Requests are granted in order, so a writer is not starved; but a reader queued behind a writer
   that waits for readers who in turn wait for that reader (a barrier inside their epochs) would
   wait forever: after EMPI_WIN_READER_PATIENCE_NS a queued reader gets in whenever readers hold the
   lock, as a local reader does (win_lock.c). */
static struct {
    empi_win_t *wins;              /* every live window, for arriving packets */
    am_queued_t *qhead, *qtail;    /* one FIFO for all peers keeps each pair in order */
    int nwaiting;                  /* lock requests waiting over all windows */
    int ready;
} am;

int empi_rma_am_windows;

static int am_progress(void);
static void am_deliver(int src, const void *pkt, size_t len);

int empi_rma_am_init(void)
{
    if (!am.ready) {
        empi_pt2pt_rma_handler = am_deliver;
        empi_progress_add_hook(am_progress);
        am.ready = 1;
    }
    return MPI_SUCCESS;
}

void empi_rma_am_register(empi_win_t *w)
{
    empi_rma_am_init();
    w->am_id = w->comm->context_id;
    w->next_am = am.wins;
    am.wins = w;
}

/* A window that has (or gets) a peer on the AM path: the process must poll in local calls. */
void empi_rma_am_uses(empi_win_t *w)
{
    if (!w->uses_am) {
        w->uses_am = 1;
        empi_rma_am_windows++;
    }
}

void empi_rma_am_unregister(empi_win_t *w)
{
    if (w->uses_am) {
        w->uses_am = 0;
        empi_rma_am_windows--;
    }
    for (empi_win_t **p = &am.wins; *p; p = &(*p)->next_am)
        if (*p == w) {
            *p = w->next_am;
            break;
        }
    while (w->am_waiting) {
        am_wait_t *x = w->am_waiting;
        w->am_waiting = x->next;
        free(x);
        am.nwaiting--;
    }
    while (w->am_early) {
        am_queued_t *q = w->am_early;
        w->am_early = q->next;
        free(q);
    }
}

/* Window creation does not synchronize: a peer that has returned from it may lock us (or put,
   under MPI_MODE_NOCHECK) while we still wait in its last exchange. */
static void keep_early(empi_win_t *w, int src, const void *pkt, size_t len)
{
    am_queued_t *q = malloc(sizeof *q + len), **tail = &w->am_early;
    if (!q)
        empi_fatal(MPI_ERR_NO_MEM, "out of memory keeping an RMA packet for a window being created");
    q->next = NULL;
    q->peer = src;
    q->len = len;
    memcpy(q->data, pkt, len);
    while (*tail)
        tail = &(*tail)->next;
    *tail = q;
}

void empi_rma_am_open(empi_win_t *w)
{
    w->am_open = 1;
    while (w->am_early) {
        am_queued_t *q = w->am_early;
        w->am_early = q->next;
        am_deliver(q->peer, q->data, q->len);
        free(q);
    }
}

static empi_win_t *find_win(uint32_t id)
{
    for (empi_win_t *w = am.wins; w; w = w->next_am)
        if (w->am_id == id)
            return w;
    return NULL;
}

/* ---- sending ---- */

static void send_packet(int peer, const am_hdr_t *h, const void *payload, size_t len)
{
    struct iovec iov[2] = {{(void *)h, sizeof *h}, {(void *)payload, len}};
    if (!am.qhead && empi_pt2pt_packet_send(peer, iov, len ? 2 : 1) == EMPI_OK)
        return;
    am_queued_t *q = malloc(sizeof *q + sizeof *h + len);
    if (!q)
        empi_fatal(MPI_ERR_NO_MEM, "out of memory queueing an RMA packet");
    q->next = NULL;
    q->peer = peer;
    q->len = sizeof *h + len;
    memcpy(q->data, h, sizeof *h);
    if (len)
        memcpy(q->data + sizeof *h, payload, len);
    if (am.qtail)
        am.qtail->next = q;
    else
        am.qhead = q;
    am.qtail = q;
}

static size_t max_payload(int peer)
{
    size_t m = empi_pt2pt_packet_max(peer);
    return m > sizeof(am_hdr_t) + 64 ? m - sizeof(am_hdr_t) : 64;
}

static am_hdr_t header(empi_win_t *w, int am_type, uint64_t addr, uint64_t len)
{
    am_hdr_t h;
    memset(&h, 0, sizeof h);
    h.type = EMPI_PKT_RMA;
    h.am = (uint8_t)am_type;
    h.win = w->am_id;
    h.src = w->rank;
    h.addr = addr;
    h.len = len;
    return h;
}

/* ---- origin side ---- */

static am_track_t *track(empi_win_t *w, int t, void *buf, MPI_Count count, empi_datatype_t *dt,
                         MPI_Count remaining, empi_request_t *req)
{
    am_track_t *k = malloc(sizeof *k);
    if (!k)
        return NULL;
    *k = (am_track_t){w, t, buf, count, dt, remaining, req};
    if (dt)
        empi_datatype_retain(dt);
    w->peers[t].am_pending++;
    return k;
}

static void track_done(am_track_t *k)
{
    k->w->peers[k->target].am_pending--;
    if (k->req)
        empi_request_set_complete(k->req);
    if (k->dt)
        empi_datatype_release(k->dt);
    free(k);
}

typedef struct {
    empi_win_t *w;
    empi_rma_op_t *op;
    am_track_t *k;
    size_t piece;
    char *scratch;
    size_t nrec;         /* pair records in scratch */
    MPI_Count first;     /* stream offset of the first of them */
} am_ctx_t;

static int issue_run(void *c, MPI_Aint disp, MPI_Count s, MPI_Count len)
{
    am_ctx_t *x = c;
    empi_rma_op_t *op = x->op;
    int peer = x->w->peers[op->target].world;
    for (MPI_Count done = 0; done < len;) {
        size_t n = (size_t)(len - done) < x->piece ? (size_t)(len - done) : x->piece;
        uint64_t addr = (uint64_t)op->offset + (uint64_t)disp + (uint64_t)done;
        int type = op->kind == EMPI_RMA_PUT ? AM_PUT : op->kind == EMPI_RMA_GET ? AM_GET : AM_ACC;
        am_hdr_t h = header(x->w, type, addr, n);
        h.stream = (uint64_t)(s + done);
        h.cookie = (uint64_t)(uintptr_t)x->k;
        const void *payload = NULL;
        size_t plen = 0;
        if (type == AM_ACC) {
            h.elem = (int32_t)(intptr_t)op->elem->handle;
            h.op = (int32_t)(intptr_t)op->op->handle;
            h.flags = op->kind == EMPI_RMA_GET_ACC ? AM_FETCH : 0;
        }
        if (type != AM_GET && !(type == AM_ACC && op->op->handle == MPI_NO_OP)) {
            empi_dt_pack(op->obuf, op->ocount, op->odt, s + done, x->scratch, (MPI_Count)n);
            payload = x->scratch;
            plen = n;
        }
        send_packet(peer, &h, payload, plen);
        done += (MPI_Count)n;
    }
    return 0;
}

/*
 * A pair type with a gap (MPI_DOUBLE_INT: 8 + 4 bytes in 16) has runs that split its elements, and
 * the target must apply whole elements. Its accumulates travel as records instead: the element's
 * target address, then its value laid out as in memory. A packet holds consecutive elements of the
 * stream, so a fetched answer is one piece of the result stream as usual.
 */
static size_t pair_record(const empi_datatype_t *elem)
{
    return sizeof(uint64_t) + (size_t)elem->extent;
}

static void flush_pairs(am_ctx_t *x)
{
    if (x->nrec == 0)
        return;
    empi_rma_op_t *op = x->op;
    am_hdr_t h = header(x->w, AM_ACC, 0, x->nrec * (size_t)op->elem->size);
    h.stream = (uint64_t)x->first;
    h.cookie = (uint64_t)(uintptr_t)x->k;
    h.elem = (int32_t)(intptr_t)op->elem->handle;
    h.op = (int32_t)(intptr_t)op->op->handle;
    h.flags = AM_PAIRS | (op->kind == EMPI_RMA_GET_ACC ? AM_FETCH : 0);
    send_packet(x->w->peers[op->target].world, &h, x->scratch, x->nrec * pair_record(op->elem));
    x->nrec = 0;
}

static int issue_pair_run(void *c, MPI_Aint disp, MPI_Count s, MPI_Count len)
{
    am_ctx_t *x = c;
    empi_rma_op_t *op = x->op;
    MPI_Count es = op->elem->size;
    size_t rec = pair_record(op->elem);
    unsigned char packed[64];
    /* the elements that start in this run */
    for (MPI_Count o = (es - s % es) % es; o < len; o += es) {
        if (x->nrec == 0)
            x->first = s + o;
        char *r = x->scratch + x->nrec * rec;
        uint64_t addr = (uint64_t)op->offset + (uint64_t)disp + (uint64_t)o;
        memcpy(r, &addr, sizeof addr);
        memset(r + sizeof addr, 0, rec - sizeof addr);
        if (op->op->handle != MPI_NO_OP) {
            empi_dt_pack(op->obuf, op->ocount, op->odt, s + o, packed, es);
            empi_dt_unpack(r + sizeof addr, 1, op->elem, 0, packed, es);
        }
        if (++x->nrec == x->piece / rec)
            flush_pairs(x);
    }
    return 0;
}

static int is_split_pair(const empi_datatype_t *elem)
{
    return elem && elem->basic >= EMPI_BASIC_FLOAT_INT && elem->size != elem->extent;
}

int empi_rma_am(empi_win_t *w, empi_rma_op_t *op)
{
    empi_win_peer_t *p = &w->peers[op->target];
    if (op->kind == EMPI_RMA_CAS) {
        size_t es = (size_t)op->elem->size;
        am_track_t *k = track(w, op->target, op->rbuf, 1, op->elem, (MPI_Count)es, op->req);
        if (!k)
            return MPI_ERR_NO_MEM;
        unsigned char two[32];
        memcpy(two, op->obuf, es);
        memcpy(two + es, op->cbuf, es);
        am_hdr_t h = header(w, AM_CAS, (uint64_t)op->offset + (uint64_t)op->tdt->true_lb, es);
        h.elem = (int32_t)(intptr_t)op->elem->handle;
        h.cookie = (uint64_t)(uintptr_t)k;
        send_packet(p->world, &h, two, 2 * es);
        return MPI_SUCCESS;
    }
    am_ctx_t x = {w, op, NULL, max_payload(p->world), NULL, 0, 0};
    if (op->elem && !is_split_pair(op->elem))
        x.piece = x.piece / (size_t)op->elem->size * (size_t)op->elem->size;
    if (op->kind == EMPI_RMA_GET)
        x.k = track(w, op->target, (void *)op->obuf, op->ocount, op->odt, op->bytes, op->req);
    else if (op->kind == EMPI_RMA_GET_ACC)
        x.k = track(w, op->target, op->rbuf, op->rcount, op->rdt, op->bytes, op->req);
    if ((op->kind == EMPI_RMA_GET || op->kind == EMPI_RMA_GET_ACC) && !x.k)
        return MPI_ERR_NO_MEM;
    if (x.k && op->bytes == 0) {
        track_done(x.k);
        return MPI_SUCCESS;
    }
    x.scratch = malloc(x.piece);
    if (!x.scratch)
        return MPI_ERR_NO_MEM;
    if (is_split_pair(op->elem)) {
        empi_dt_runs(op->tcount, op->tdt, issue_pair_run, &x);
        flush_pairs(&x);
    } else {
        empi_dt_runs(op->tcount, op->tdt, issue_run, &x);
    }
    free(x.scratch);
    return MPI_SUCCESS;
}

/* Send a control request and wait for its answer (whose data, if any, lands in buf). */
static int round_trip(empi_win_t *w, int t, int am_type, int flags, void *buf)
{
    am_track_t *k = track(w, t, buf, 0, NULL, 1, NULL);
    if (!k)
        return MPI_ERR_NO_MEM;
    am_hdr_t h = header(w, am_type, 0, 0);
    h.flags = (uint8_t)flags;
    h.cookie = (uint64_t)(uintptr_t)k;
    empi_win_peer_t *p = &w->peers[t];
    send_packet(p->world, &h, NULL, 0);
    EMPI_PROGRESS_UNTIL(p->am_pending == 0);
    return MPI_SUCCESS;
}

int empi_rma_am_regions(empi_win_t *w, int t)
{
    empi_win_peer_t *p = &w->peers[t];
    if (!p->dyn_known && !(p->dyn_known = calloc(EMPI_WIN_DYN_MAX, sizeof *p->dyn_known)))
        return MPI_ERR_NO_MEM;
    return round_trip(w, t, AM_REGIONS, 0, p->dyn_known); /* on_answer sets ndyn_known */
}

int empi_rma_am_lock(empi_win_t *w, int t, int exclusive)
{
    return round_trip(w, t, AM_LOCK, exclusive ? AM_EXCLUSIVE : 0, NULL);
}

int empi_rma_am_unlock(empi_win_t *w, int t, int exclusive)
{
    return round_trip(w, t, AM_UNLOCK, exclusive ? AM_EXCLUSIVE : 0, NULL);
}

int empi_rma_am_flush(empi_win_t *w, int t)
{
    return round_trip(w, t, AM_FLUSH, 0, NULL);
}

/* ---- target side ---- */

static void answer(empi_win_t *w, const am_hdr_t *rq, int am_type, uint64_t stream, const void *data, size_t len)
{
    am_hdr_t h = header(w, am_type, 0, len);
    h.cookie = rq->cookie;
    h.stream = stream;
    send_packet(w->peers[rq->src].world, &h, data, len);
}

/* Our memory at [addr, addr + len), or NULL when it is not in the window. */
static char *local_mem(empi_win_t *w, uint64_t addr, uint64_t len)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return empi_win_dyn_local_contains(w, addr, len) ? (char *)(uintptr_t)addr : NULL;
    if (addr > (uint64_t)w->mysize || len > (uint64_t)w->mysize - addr)
        return NULL;
    return (char *)w->base + addr;
}

/* The origin counts answered bytes: it is told how many will not come, or it would wait forever. */
static void answer_dropped(empi_win_t *w, const am_hdr_t *rq)
{
    am_hdr_t h = header(w, AM_REPLY, rq->len, 0);
    h.flags = AM_DROPPED;
    h.cookie = rq->cookie;
    h.stream = rq->stream;
    send_packet(w->peers[rq->src].world, &h, NULL, 0);
}

static void answer_get(empi_win_t *w, const am_hdr_t *h, const char *mem)
{
    answer(w, h, AM_REPLY, h->stream, mem, (size_t)h->len);
}

static void apply_acc(empi_win_t *w, const am_hdr_t *h, const void *payload, char *mem)
{
    empi_datatype_t *elem = empi_datatype_get((MPI_Datatype)(intptr_t)h->elem);
    empi_op_t *op = empi_op_get((MPI_Op)(intptr_t)h->op);
    if (!elem || !op)
        empi_fatal(MPI_ERR_INTERN, "corrupt RMA packet: bad element type or op");
    empi_win_peer_t *me = &w->peers[w->rank];
    int atomics = me->atomics && empi_rma_atomic_ok(elem, mem) && !empi_rma_acc_bulk((MPI_Count)h->len, elem);
    void *fetch = (h->flags & AM_FETCH) ? malloc((size_t)h->len + 1) : NULL;
    if ((h->flags & AM_FETCH) && !fetch)
        empi_fatal(MPI_ERR_NO_MEM, "out of memory answering an RMA get-accumulate");
    empi_win_acc_hold(&me->slot->acc_lock, atomics);
    empi_rma_apply(op, elem, payload, mem, fetch, (MPI_Count)h->len / elem->size, atomics);
    empi_win_acc_drop(&me->slot->acc_lock, atomics);
    if (fetch) {
        answer(w, h, AM_REPLY, h->stream, fetch, (size_t)h->len);
        free(fetch);
    }
}

/* Records of whole pair elements (see flush_pairs), applied under the accumulate lock. */
static void apply_pairs(empi_win_t *w, const am_hdr_t *h, const unsigned char *payload)
{
    empi_datatype_t *elem = empi_datatype_get((MPI_Datatype)(intptr_t)h->elem);
    empi_op_t *op = empi_op_get((MPI_Op)(intptr_t)h->op);
    if (!elem || !op || !is_split_pair(elem))
        empi_fatal(MPI_ERR_INTERN, "corrupt RMA packet: bad pair type or op");
    size_t es = (size_t)elem->size, rec = pair_record(elem), n = (size_t)h->len / es;
    uint64_t span = (uint64_t)(elem->true_ub - elem->true_lb);
    char *fetch = (h->flags & AM_FETCH) ? calloc(n ? n : 1, es) : NULL;
    if ((h->flags & AM_FETCH) && !fetch)
        empi_fatal(MPI_ERR_NO_MEM, "out of memory answering an RMA get-accumulate");
    empi_win_peer_t *me = &w->peers[w->rank];
    empi_win_spin_acquire(&me->slot->acc_lock);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *r = payload + i * rec;
        uint64_t addr;
        memcpy(&addr, r, sizeof addr);
        char *mem = local_mem(w, addr, span);
        if (!mem) {
            fprintf(stderr, "EtherMPI: rank %d: dropped an RMA accumulate outside the window (offset %llu)\n",
                    w->rank, (unsigned long long)addr);
            continue;
        }
        if (fetch)
            empi_dt_pack(mem, 1, elem, 0, fetch + i * es, (MPI_Count)es);
        if (op->handle != MPI_NO_OP)
            empi_op_apply(op, r + sizeof addr, mem, 1, elem);
    }
    empi_win_spin_release(&me->slot->acc_lock);
    if (fetch) {
        answer(w, h, AM_REPLY, h->stream, fetch, (size_t)h->len);
        free(fetch);
    }
}

static void apply_cas(empi_win_t *w, const am_hdr_t *h, const unsigned char *payload, char *mem)
{
    empi_datatype_t *elem = empi_datatype_get((MPI_Datatype)(intptr_t)h->elem);
    empi_win_peer_t *me = &w->peers[w->rank];
    int atomics = me->atomics && empi_rma_atomic_ok(elem, mem);
    unsigned char old[16];
    empi_win_acc_hold(&me->slot->acc_lock, atomics);
    empi_rma_cas(elem, payload, payload + h->len, old, mem, atomics);
    empi_win_acc_drop(&me->slot->acc_lock, atomics);
    answer(w, h, AM_REPLY, 0, old, (size_t)h->len);
}

static int try_grant(empi_win_t *w, int src, int exclusive, uint64_t cookie)
{
    /* no deferring to a waiting writer: the queue of requests here keeps the order */
    if (!empi_win_lock_try(&w->peers[w->rank].slot->lock, exclusive, 0))
        return 0;
    am_hdr_t rq = header(w, AM_LOCK, 0, 0);
    rq.src = src;
    rq.cookie = cookie;
    answer(w, &rq, AM_ACK, 0, NULL, 0);
    return 1;
}

static void on_lock(empi_win_t *w, const am_hdr_t *h)
{
    int exclusive = (h->flags & AM_EXCLUSIVE) != 0;
    if (!w->am_waiting && try_grant(w, h->src, exclusive, h->cookie))
        return;
    am_wait_t *x = malloc(sizeof *x), **tail = &w->am_waiting;
    if (!x)
        empi_fatal(MPI_ERR_NO_MEM, "out of memory queueing an RMA lock request");
    *x = (am_wait_t){NULL, h->src, exclusive, h->cookie, empi_now_ns()};
    while (*tail)
        tail = &(*tail)->next;
    *tail = x;
    am.nwaiting++;
}

/* Answers at the origin: data into its buffer, or one more acknowledgement. */
static void on_answer(const am_hdr_t *h, const void *payload)
{
    am_track_t *k = (am_track_t *)(uintptr_t)h->cookie;
    if (h->am == AM_REPLY && (h->flags & AM_DROPPED)) {
        k->remaining -= (MPI_Count)h->addr; /* bytes asked for */
    } else if (h->am == AM_REPLY && h->len) {
        if (k->dt && k->dt->is_contig)
            empi_copy((char *)k->buf + k->dt->true_lb + h->stream, payload, (size_t)h->len);
        else
            empi_dt_unpack(k->buf, k->count, k->dt, (MPI_Count)h->stream, payload, (MPI_Count)h->len);
        k->remaining -= (MPI_Count)h->len;
    } else {
        if (h->am == AM_ACK && k->buf) { /* the target's attached regions */
            size_t n = (size_t)h->len / sizeof(struct empi_win_region);
            memcpy(k->buf, payload, n * sizeof(struct empi_win_region));
            k->w->peers[k->target].ndyn_known = (uint32_t)n;
            k->w->peers[k->target].dyn_partial = h->stream != 0;
        }
        k->remaining--;
    }
    if (k->remaining <= 0)
        track_done(k);
}

static void am_deliver(int src, const void *pkt, size_t len)
{
    am_hdr_t h;
    if (len < sizeof h)
        empi_fatal(MPI_ERR_INTERN, "corrupt RMA packet: too short");
    memcpy(&h, pkt, sizeof h);
    const unsigned char *payload = (const unsigned char *)pkt + sizeof h;
    if (h.am == AM_REPLY || h.am == AM_ACK) {
        on_answer(&h, payload);
        return;
    }
    empi_win_t *w = find_win(h.win);
    if (!w)
        empi_fatal(MPI_ERR_INTERN, "RMA packet for a window this process does not have");
    if (!w->am_open) {
        keep_early(w, src, pkt, len);
        return;
    }
    if (h.am == AM_ACC && (h.flags & AM_PAIRS)) {
        apply_pairs(w, &h, payload);
        return;
    }
    char *mem = NULL;
    if (h.am == AM_PUT || h.am == AM_GET || h.am == AM_ACC || h.am == AM_CAS) {
        mem = local_mem(w, h.addr, h.len);
        if (!mem) {
            fprintf(stderr, "EtherMPI: rank %d: dropped an RMA operation outside the window (offset %llu, %llu bytes)\n",
                    w->rank, (unsigned long long)h.addr, (unsigned long long)h.len);
            if (h.am == AM_GET || h.am == AM_CAS || (h.flags & AM_FETCH))
                answer_dropped(w, &h);
            return;
        }
    }
    switch (h.am) {
    case AM_PUT: empi_copy(mem, payload, (size_t)h.len); break;
    case AM_GET: answer_get(w, &h, mem); break;
    case AM_ACC: apply_acc(w, &h, payload, mem); break;
    case AM_CAS: apply_cas(w, &h, payload, mem); break;
    case AM_LOCK: on_lock(w, &h); break;
    case AM_UNLOCK:
        empi_win_lock_release(&w->peers[w->rank].slot->lock, (h.flags & AM_EXCLUSIVE) != 0);
        answer(w, &h, AM_ACK, 0, NULL, 0);
        break;
    case AM_FLUSH: answer(w, &h, AM_ACK, 0, NULL, 0); break;
    case AM_REGIONS: {
        const struct empi_win_region *r;
        int n = w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? empi_win_dyn_table(w, &r) : 0;
        /* A table larger than a packet goes in part, marked so (stream 1): the origin then leaves
           the regions it was not told of to this side's check. */
        int fit = (int)(max_payload(w->peers[h.src].world) / sizeof *r);
        answer(w, &h, AM_ACK, n > fit, n ? r : NULL, (size_t)(n < fit ? n : fit) * sizeof *r);
        break;
    }
    default: empi_fatal(MPI_ERR_INTERN, "corrupt RMA packet: unknown operation");
    }
}

/* Push queued packets in order, then retry lock requests that had to wait. */
static int am_progress(void)
{
    int events = 0;
    while (am.qhead) {
        am_queued_t *q = am.qhead;
        struct iovec iov = {q->data, q->len};
        if (empi_pt2pt_packet_send(q->peer, &iov, 1) != EMPI_OK)
            break;
        am.qhead = q->next;
        if (!am.qhead)
            am.qtail = NULL;
        free(q);
        events++;
    }
    if (am.nwaiting == 0)
        return events;
    uint64_t now = 0;
    for (empi_win_t *w = am.wins; w; w = w->next_am) {
        while (w->am_waiting && try_grant(w, w->am_waiting->src, w->am_waiting->exclusive, w->am_waiting->cookie)) {
            am_wait_t *x = w->am_waiting;
            w->am_waiting = x->next;
            free(x);
            am.nwaiting--;
            events++;
        }
        for (am_wait_t **at = w->am_waiting ? &w->am_waiting->next : NULL; at && *at;) {
            am_wait_t *x = *at;
            now = now ? now : empi_now_ns();
            if (!x->exclusive && now - x->since_ns > EMPI_WIN_READER_PATIENCE_NS && try_grant(w, x->src, 0, x->cookie)) {
                *at = x->next;
                free(x);
                am.nwaiting--;
                events++;
            } else {
                at = &x->next;
            }
        }
    }
    return events;
}
