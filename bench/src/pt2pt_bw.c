/* Bandwidth between ranks 0 and 1: a window of nonblocking sends, completed
 * together, then a small acknowledgement so the sender cannot run ahead.
 * bibw: both ranks send and receive a window at the same time.
 * vector_bw: as bw, but every message is a vector datatype on both sides. */
#include "bench.h"
#include "dtype_layout.h"

#include <stdlib.h>
#include <string.h>

/* Keep at most this many bytes in flight per direction: every message of a
 * window needs its own receive buffer (overlapping receives are erroneous). */
#define BW_INFLIGHT_CAP ((size_t)64 << 20)

enum bw_mode { BW_UNI, BW_BIDIR, BW_VECTOR };

int bw_window(const bench_opts *o, size_t size)
{
    size_t w = (size_t)o->window;
    if (size > 0 && w * size > BW_INFLIGHT_CAP)
        w = BW_INFLIGHT_CAP / size ? BW_INFLIGHT_CAP / size : 1;
    return (int)w;
}

size_t bw_window_bytes(const bench_opts *o, size_t max_slot)
{
    size_t bytes = (size_t)o->window * max_slot;
    return bytes > BW_INFLIGHT_CAP + max_slot ? BW_INFLIGHT_CAP + max_slot : bytes;
}

/* One message of a window: `slot` bytes of buffer each. Contiguous messages
 * are `size` MPI_CHARs; vector messages one element of the layout, whose
 * gaps the receiver pre-fills so that -c sees any byte written there. */
typedef struct {
    dt_layout l; /* vector_bw only */
    int vector;
    size_t size, slot;
    char *gaps, *expect; /* vector_bw with -c: receive pre-fill, sender data */
} bw_msg;

static void msg_init(bw_msg *m, int vector, size_t size, const bench_opts *o)
{
    memset(m, 0, sizeof *m);
    m->vector = vector;
    m->size = m->slot = size;
    if (!vector)
        return;
    dt_layout_build(&m->l, DT_VECTOR_BW_BLOCK, size);
    m->slot = m->l.span;
    if (o->validate) {
        m->gaps = bench_alloc(m->slot);
        m->expect = bench_alloc(m->slot);
        pattern_fill(m->gaps, m->slot, size, 0, -1);
    }
}

static void msg_free(bw_msg *m)
{
    if (!m->vector)
        return;
    bench_free(m->gaps);
    bench_free(m->expect);
    dt_layout_free(&m->l);
}

static void msg_isend(const bw_msg *m, char *buf, int peer, MPI_Request *req)
{
    if (m->vector)
        MPI_Isend(buf, 1, m->l.type, peer, 10, MPI_COMM_WORLD, req);
    else
        MPI_Isend(buf, (int)m->size, MPI_CHAR, peer, 10, MPI_COMM_WORLD, req);
}

static void msg_irecv(const bw_msg *m, char *buf, int peer, MPI_Request *req)
{
    if (m->vector)
        MPI_Irecv(buf, 1, m->l.type, peer, 10, MPI_COMM_WORLD, req);
    else
        MPI_Irecv(buf, (int)m->size, MPI_CHAR, peer, 10, MPI_COMM_WORLD, req);
}

/* The sender fills the whole slot, gaps included: gap bytes that travel
 * would then overwrite the receiver's gap pattern and be caught. */
static long msg_check(bw_msg *m, const char *got, int iter, int src)
{
    if (!m->vector)
        return (long)pattern_check(got, m->size, m->size, iter, src);
    pattern_fill(m->expect, m->slot, m->size, iter, src);
    return (long)dt_check(&m->l, got, m->expect, m->gaps);
}

long run_bw(const bench_case *c, const bench_opts *o)
{
    int rank, np;
    enum bw_mode mode = (enum bw_mode)c->op;
    int bidir = mode == BW_BIDIR, vector = mode == BW_VECTOR;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2)
        bench_die("bandwidth needs at least 2 processes");

    static const report_col cols[] = {{"bandwidth_MBps", "Bandwidth (MB/s)", 0}};
    static const char *titles[] = {"bandwidth test", "bidirectional bandwidth test", "vector bandwidth test"};
    report_begin(o, c, titles[mode], cols, 1, "bandwidth_MBps");
    report_note("Window size: %d (fewer for large sizes: <= 64 MiB in flight)", o->window);
    size_t min = o->min_size, max_slot = o->max_size ? o->max_size : 1;
    if (vector) {
        char desc[120];
        dt_describe(DT_VECTOR_BW_BLOCK, desc, sizeof desc);
        report_note("Layout on both sides: %s; MB/s counts data bytes only", desc);
        min = dt_round_up(min, DT_VECTOR_BW_BLOCK);
        if (min != o->min_size)
            report_note("Sizes start at %zu: a multiple of %d bytes", min, DT_VECTOR_BW_BLOCK);
        max_slot = 2 * o->max_size; /* stride twice the block: span < 2 x size */
    }

    size_t bytes = bw_window_bytes(o, max_slot);
    char *sbuf = bench_alloc(bytes);
    char *rbuf = bench_alloc(bytes);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)o->window);
    if (!reqs)
        bench_die("out of memory");
    int peer = rank == 0 ? 1 : 0;
    int sends = bidir || rank == 0, recvs = bidir || rank == 1;
    long total = 0;

    for (size_t size = min; size <= o->max_size; size = next_size(size)) {
        bw_msg m;
        msg_init(&m, vector, size, o);
        int iters, skip, win = bw_window(o, m.slot);
        long errs = 0;
        bench_timer tm = {0};
        iters_for_size(o, size, &iters, &skip);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; rank < 2 && i < skip + iters; i++) {
            if (i == skip)
                timer_start(&tm);
            if (o->validate) {
                timer_pause(&tm);
                for (int w = 0; sends && w < win; w++)
                    pattern_fill(sbuf + (size_t)w * m.slot, m.slot, size, i, rank + 2 * w);
                for (int w = 0; recvs && vector && w < win; w++)
                    memcpy(rbuf + (size_t)w * m.slot, m.gaps, m.slot);
                timer_resume(&tm);
            }
            int n = 0;
            for (int w = 0; recvs && w < win; w++)
                msg_irecv(&m, rbuf + (size_t)w * m.slot, peer, &reqs[n++]);
            for (int w = 0; sends && w < win; w++)
                msg_isend(&m, sbuf + (size_t)w * m.slot, peer, &reqs[n++]);
            MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
            if (!bidir) {
                /* The ack closes the window: the sender's clock covers delivery. */
                char ack = 0;
                if (rank == 0)
                    MPI_Recv(&ack, 1, MPI_CHAR, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else
                    MPI_Send(&ack, 1, MPI_CHAR, peer, 11, MPI_COMM_WORLD);
            }
            if (o->validate && recvs) {
                timer_pause(&tm);
                for (int w = 0; w < win; w++)
                    errs += msg_check(&m, rbuf + (size_t)w * m.slot, i, peer + 2 * w);
                timer_resume(&tm);
            }
        }
        double t = rank < 2 ? timer_stop(&tm) : 0.0;
        long gerrs = 0;
        MPI_Reduce(&errs, &gerrs, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        double bytes_moved = (double)size * win * iters * (bidir ? 2.0 : 1.0);
        double bw = t > 0 ? bytes_moved / t / 1e6 : 0.0;
        report_row((long)size, iters, &bw, gerrs);
        total += gerrs;
        msg_free(&m);
    }
    free(reqs);
    bench_free(sbuf);
    bench_free(rbuf);
    return total;
}
