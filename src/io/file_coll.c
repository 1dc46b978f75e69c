/*
 * Collective data access: the *_all calls, ordered access and split collectives end up here.
 *
 * When the processes' accesses are noncontiguous in the file (interleaved views), each one alone
 * would issue a system call per small extent. Two-phase I/O instead makes a few processes
 * ("aggregators", the cb_nodes hint) responsible for contiguous file domains: the range the call
 * touches is cut into one domain per aggregator, and in rounds of at most cb_buffer_size bytes
 * every process sends the pieces of its data that fall in an aggregator's window (offsets first,
 * then the bytes), so the aggregator writes each window with one pwrite per covered range, or
 * reads the window with one pread and sends the pieces back. Holes are never written: a window is
 * written range by range, so data between the pieces stays what it was.
 *
 * Independent access is kept when it is as good or when two-phase cannot apply: one process, no
 * small extents anywhere or a read (hint "automatic", see SMALL_EXTENT), atomic mode (whose locks
 * serialize anyway), converting data representations, or extents not in increasing file order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll/coll_api.h"
#include "core/global.h"
#include "io/io.h"

typedef struct {
    MPI_Offset off, len, spos;   /* file offset, length, position in this process's stream */
} extent_t;

/* What every process tells the others before deciding. */
typedef struct {
    MPI_Offset lo, hi;           /* file range touched, lo == hi when nothing */
    MPI_Offset flags;
} plan_t;

enum { PLAN_SMALL = 1, PLAN_UNORDERED = 2 };

/*
 * Automatic mode: two-phase writes pay when the extents are small (a system call per extent costs
 * more than moving the bytes through an aggregator); measured on one host, the crossover lies
 * between 1 and 4 KiB per extent. Reads stay independent: sieving reads on a shared page cache
 * beat aggregation (docs/IO.md has the numbers).
 */
#define SMALL_EXTENT 2048

typedef struct {
    empi_file_t *f;
    int dir, n, naggr, my_aggr;
    MPI_Offset glo, ghi, domain, window, rounds;
    extent_t *ext;
    MPI_Offset next;             /* extents in ext */
    MPI_Offset *cursor;          /* per aggregator: first extent not yet wholly sent */
    char *stream;
    char *wbuf;                  /* an aggregator's window */
} twophase_t;

static int aggr_rank(const twophase_t *t, int a)
{
    return (int)((long long)a * t->n / t->naggr);
}

/* The extents of stream bytes [pos, pos + len) of the view, with their stream positions. */
static int build_extents(empi_file_t *f, MPI_Offset pos, MPI_Offset len, extent_t **out, MPI_Offset *n,
                         plan_t *plan)
{
    empi_view_iter_t it;
    MPI_Offset cap = 16, off, l, spos = 0;
    extent_t *e = malloc((size_t)cap * sizeof *e);
    if (!e)
        return MPI_ERR_NO_MEM;
    *n = 0;
    empi_view_iter_init(&it, &f->view, pos, len);
    plan->flags = 0;
    while (empi_view_iter_next(&it, &off, &l)) {
        if (*n == cap) {
            extent_t *g = realloc(e, (size_t)(cap *= 2) * sizeof *e);
            if (!g) {
                free(e);
                return MPI_ERR_NO_MEM;
            }
            e = g;
        }
        if (*n > 0 && off < e[*n - 1].off + e[*n - 1].len)
            plan->flags |= PLAN_UNORDERED;
        e[(*n)++] = (extent_t){off, l, spos};
        spos += l;
    }
    if (*n > 1 && spos / *n < SMALL_EXTENT)
        plan->flags |= PLAN_SMALL;
    plan->lo = *n ? e[0].off : 0;
    plan->hi = *n ? e[*n - 1].off + e[*n - 1].len : 0;
    *out = e;
    return MPI_SUCCESS;
}

static void window_of(const twophase_t *t, int a, MPI_Offset round, MPI_Offset *ws, MPI_Offset *we)
{
    MPI_Offset dstart = t->glo + a * t->domain, dend = dstart + t->domain;
    if (dend > t->ghi)
        dend = t->ghi;
    *ws = dstart + round * t->window;
    *we = *ws + t->window < dend ? *ws + t->window : dend;
}

/*
 * This process's pieces in every aggregator's window of this round: meta gets (offset, length)
 * pairs grouped by destination rank, where the stream position of each piece, data (writes) the
 * bytes; counts are per rank.
 */
static int gather_pieces(twophase_t *t, MPI_Offset round, MPI_Offset **meta, MPI_Offset **where, MPI_Count *mcount,
                         char **data, MPI_Count *dcount)
{
    MPI_Offset npieces = 0, nbytes = 0;
    for (int pass = 0; pass < 2; pass++) {
        MPI_Offset mi = 0, di = 0;
        for (int a = 0; a < t->naggr; a++) {
            MPI_Offset ws, we, c = t->cursor[a];
            int d = aggr_rank(t, a);
            window_of(t, a, round, &ws, &we);
            for (; ws < we && c < t->next && t->ext[c].off < we; c++) {
                const extent_t *e = &t->ext[c];
                MPI_Offset s = e->off > ws ? e->off : ws, end = e->off + e->len < we ? e->off + e->len : we;
                if (s >= end)
                    continue;
                if (pass == 1) {
                    (*meta)[mi] = s, (*meta)[mi + 1] = end - s;
                    (*where)[mi / 2] = e->spos + (s - e->off);
                    mcount[d] += 2, dcount[d] += end - s;
                    if (t->dir == EMPI_IO_WRITE)
                        memcpy(*data + di, t->stream + e->spos + (s - e->off), (size_t)(end - s));
                }
                mi += 2, di += end - s;
                if (e->off + e->len > we)
                    break;   /* the rest of this extent belongs to a later window */
            }
            if (pass == 1)
                t->cursor[a] = c;
        }
        if (pass == 0) {
            npieces = mi, nbytes = di;
            *meta = malloc((size_t)(npieces ? npieces : 1) * sizeof **meta);
            *where = malloc((size_t)(npieces / 2 + 1) * sizeof **where);
            *data = malloc((size_t)(nbytes ? nbytes : 1));
            if (!*meta || !*where || !*data)
                return MPI_ERR_NO_MEM;
        }
    }
    return MPI_SUCCESS;
}

static int cmp_piece(const void *a, const void *b)
{
    MPI_Offset x = ((const MPI_Offset *)a)[0], y = ((const MPI_Offset *)b)[0];
    return x < y ? -1 : x > y;
}

/* Aggregator, write: place the pieces in the window and write each covered range once. */
static int aggregate_write(twophase_t *t, MPI_Offset ws, MPI_Offset *meta, MPI_Offset nmeta, const char *data)
{
    MPI_Offset di = 0;
    for (MPI_Offset i = 0; i < nmeta; i += 2) {
        memcpy(t->wbuf + (meta[i] - ws), data + di, (size_t)meta[i + 1]);
        di += meta[i + 1];
    }
    qsort(meta, (size_t)(nmeta / 2), 2 * sizeof *meta, cmp_piece);
    int rc = MPI_SUCCESS;
    for (MPI_Offset i = 0; i < nmeta && rc == MPI_SUCCESS;) {
        MPI_Offset s = meta[i], e = meta[i] + meta[i + 1];
        for (i += 2; i < nmeta && meta[i] <= e; i += 2)
            if (meta[i] + meta[i + 1] > e)
                e = meta[i] + meta[i + 1];
        MPI_Offset done = 0;
        char *p = t->wbuf + (s - ws);
        while (done < e - s) {
            ssize_t w = pwrite(t->f->fd, p + done, (size_t)(e - s - done), (off_t)(s + done));
            if (w <= 0) {
                rc = w < 0 ? empi_io_errno_class(errno) : MPI_ERR_IO;
                break;
            }
            done += w;
        }
    }
    return rc;
}

/* Aggregator, read: one pread of the span the pieces need, then the pieces in request order. */
static int aggregate_read(twophase_t *t, MPI_Offset ws, const MPI_Offset *meta, MPI_Offset nmeta, char *out)
{
    MPI_Offset lo = -1, hi = 0;
    for (MPI_Offset i = 0; i < nmeta; i += 2) {
        if (lo < 0 || meta[i] < lo)
            lo = meta[i];
        if (meta[i] + meta[i + 1] > hi)
            hi = meta[i] + meta[i + 1];
    }
    if (lo < 0)
        return MPI_SUCCESS;
    MPI_Offset done = 0;
    while (done < hi - lo) {
        ssize_t r = pread(t->f->fd, t->wbuf + (lo - ws) + done, (size_t)(hi - lo - done), (off_t)(lo + done));
        if (r < 0)
            return empi_io_errno_class(errno);
        if (r == 0)   /* the file shrank under us: what is missing reads as zeros */
            memset(t->wbuf + (lo - ws) + done, 0, (size_t)(hi - lo - done)), r = hi - lo - done;
        done += r;
    }
    MPI_Offset di = 0;
    for (MPI_Offset i = 0; i < nmeta; i += 2) {
        memcpy(out + di, t->wbuf + (meta[i] - ws), (size_t)meta[i + 1]);
        di += meta[i + 1];
    }
    return MPI_SUCCESS;
}

static void displs_of(const MPI_Count *counts, MPI_Aint *displs, int n, MPI_Offset *total)
{
    MPI_Offset s = 0;
    for (int i = 0; i < n; i++) {
        displs[i] = (MPI_Aint)s;
        s += counts[i];
    }
    *total = s;
}

static int exchange(twophase_t *t, const char *fname, const void *sbuf, const MPI_Count *scount, void *rbuf,
                    const MPI_Count *rcount, MPI_Datatype dt)
{
    int n = t->n;
    MPI_Aint *sd = malloc((size_t)n * sizeof *sd), *rd = malloc((size_t)n * sizeof *rd);
    if (!sd || !rd) {
        free(sd), free(rd);
        return MPI_ERR_NO_MEM;
    }
    MPI_Offset ignore;
    displs_of(scount, sd, n, &ignore);
    displs_of(rcount, rd, n, &ignore);
    int rc = empi_coll_alltoallv(fname, EMPI_COLL_ALLTOALLV, sbuf, NULL, scount, NULL, sd, dt, NULL, rbuf, NULL,
                                 rcount, NULL, rd, dt, NULL, t->f->comm->handle, EMPI_COLL_BLOCKING, NULL);
    free(sd), free(rd);
    return rc;
}

/* The first round after `round` in which this process has data for some aggregator (t->rounds
   when none): rounds where no process has any are skipped, so sparse accesses far apart do not
   walk every window between them. */
static MPI_Offset next_round(const twophase_t *t, MPI_Offset round)
{
    MPI_Offset best = t->rounds;
    for (int a = 0; a < t->naggr; a++) {
        MPI_Offset dstart = t->glo + a * t->domain, dend = dstart + t->domain < t->ghi ? dstart + t->domain : t->ghi;
        MPI_Offset from = dstart + (round + 1) * t->window, lo = 0, hi = t->next;
        if (from >= dend)
            continue;
        while (lo < hi) {   /* the first extent ending after `from` */
            MPI_Offset mid = lo + (hi - lo) / 2;
            if (t->ext[mid].off + t->ext[mid].len <= from)
                lo = mid + 1;
            else
                hi = mid;
        }
        MPI_Offset x = lo < t->next && t->ext[lo].off > from ? t->ext[lo].off : from;
        if (lo < t->next && x < dend && (x - dstart) / t->window < best)
            best = (x - dstart) / t->window;
    }
    return best;
}

/* One round: pieces to the aggregators, their I/O, and for reads the data back; *next is the
   next round in which any process has data. */
static int round_trip(twophase_t *t, const char *fname, MPI_Offset round, int *io_rc, MPI_Offset *next)
{
    int n = t->n, rc;
    MPI_Count *cnt = calloc((size_t)4 * n, sizeof *cnt);   /* send meta, send data, recv meta, recv data */
    MPI_Offset *meta = NULL, *rmeta = NULL, *where = NULL;
    char *data = NULL, *rdata = NULL;
    if (!cnt)
        return MPI_ERR_NO_MEM;
    MPI_Count *smc = cnt, *sdc = cnt + n, *rmc = cnt + 2 * n, *rdc = cnt + 3 * n;
    rc = gather_pieces(t, round, &meta, &where, smc, &data, sdc);
    /* counts travel as (meta, data, this process's next round) triples per rank */
    MPI_Count *pairs = malloc((size_t)6 * n * sizeof *pairs), mine = next_round(t, round);
    if (rc == MPI_SUCCESS && !pairs)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        for (int i = 0; i < n; i++)
            pairs[3 * i] = smc[i], pairs[3 * i + 1] = sdc[i], pairs[3 * i + 2] = mine;
        rc = empi_coll_gather(fname, EMPI_COLL_ALLTOALL, pairs, 3, MPI_COUNT, pairs + 3 * n, 3, MPI_COUNT, 0,
                              t->f->comm->handle, EMPI_COLL_BLOCKING, NULL);
    }
    MPI_Offset nrmeta = 0, nrdata = 0;
    if (rc == MPI_SUCCESS) {
        *next = t->rounds;
        for (int i = 0; i < n; i++) {
            const MPI_Count *got = pairs + 3 * n + 3 * i;
            rmc[i] = got[0], rdc[i] = got[1], nrmeta += rmc[i], nrdata += rdc[i];
            if (got[2] < *next)
                *next = got[2];
        }
        rmeta = malloc((size_t)(nrmeta ? nrmeta : 1) * sizeof *rmeta);
        rdata = malloc((size_t)(nrdata ? nrdata : 1));
        if (!rmeta || !rdata)
            rc = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS)
        rc = exchange(t, fname, meta, smc, rmeta, rmc, MPI_OFFSET);
    if (rc == MPI_SUCCESS && t->dir == EMPI_IO_WRITE)
        rc = exchange(t, fname, data, sdc, rdata, rdc, MPI_BYTE);
    MPI_Offset ws = 0, we = 0;
    if (t->my_aggr >= 0)
        window_of(t, t->my_aggr, round, &ws, &we);
    if (rc == MPI_SUCCESS && t->my_aggr >= 0 && *io_rc == MPI_SUCCESS)
        *io_rc = t->dir == EMPI_IO_WRITE ? aggregate_write(t, ws, rmeta, nrmeta, rdata)
                                         : aggregate_read(t, ws, rmeta, nrmeta, rdata);
    if (rc == MPI_SUCCESS && t->dir == EMPI_IO_READ) {
        rc = exchange(t, fname, rdata, rdc, data, sdc, MPI_BYTE);
        MPI_Offset di = 0, npieces = 0;   /* pieces come back in the order they were asked for */
        for (int i = 0; i < n; i++)
            npieces += smc[i];
        for (MPI_Offset i = 0; rc == MPI_SUCCESS && i < npieces; i += 2) {
            memcpy(t->stream + where[i / 2], data + di, (size_t)meta[i + 1]);
            di += meta[i + 1];
        }
    }
    free(cnt), free(pairs), free(meta), free(where), free(rmeta), free(data), free(rdata);
    return rc;
}

static int two_phase(twophase_t *t, const char *fname, const plan_t *plans)
{
    empi_file_t *f = t->f;
    t->glo = -1, t->ghi = 0;
    for (int i = 0; i < t->n; i++)
        if (plans[i].hi > plans[i].lo) {
            if (t->glo < 0 || plans[i].lo < t->glo)
                t->glo = plans[i].lo;
            if (plans[i].hi > t->ghi)
                t->ghi = plans[i].hi;
        }
    if (t->glo < 0)
        return MPI_SUCCESS;
    t->naggr = f->cb_nodes > 0 && f->cb_nodes < t->n ? f->cb_nodes : t->n;
    t->domain = (t->ghi - t->glo + t->naggr - 1) / t->naggr;
    t->window = f->cb_buffer_size < t->domain ? f->cb_buffer_size : t->domain;
    t->rounds = (t->domain + t->window - 1) / t->window;
    t->my_aggr = -1;
    for (int a = 0; a < t->naggr; a++)
        if (aggr_rank(t, a) == f->comm->rank)
            t->my_aggr = a;
    t->cursor = calloc((size_t)t->naggr, sizeof *t->cursor);
    t->wbuf = t->my_aggr >= 0 ? malloc((size_t)t->window) : NULL;
    int rc = (!t->cursor || (t->my_aggr >= 0 && !t->wbuf)) ? MPI_ERR_NO_MEM : MPI_SUCCESS, io_rc = MPI_SUCCESS;
    /* every process runs the same rounds, even after an I/O failure, so none is left waiting */
    for (MPI_Offset r = 0; r < t->rounds && rc == MPI_SUCCESS;)
        rc = round_trip(t, fname, r, &io_rc, &r);
    free(t->cursor), free(t->wbuf);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = empi_io_allmax(f->comm, fname, &io_rc, 1);
    return rc != MPI_SUCCESS ? rc : io_rc;
}

/* Bytes of the stream from pos that lie before the end of the file (collective reads stop there). */
static MPI_Offset readable(empi_file_t *f, MPI_Offset pos, MPI_Offset want)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return want;
    MPI_Offset avail = empi_view_stream_before(&f->view, (MPI_Offset)st.st_size) - pos;
    return avail < 0 ? 0 : avail < want ? avail : want;
}

int empi_io_collective(empi_io_call_t *c, MPI_Count *bytes)
{
    empi_file_t *f = c->f;
    int enabled = c->dir == EMPI_IO_WRITE ? f->cb_write : f->cb_read;
    /* the same everywhere: the view's representation and the atomicity are set collectively */
    if (f->comm->size == 1 || enabled == 0 || f->atomic || f->view.rep || (enabled < 0 && c->dir == EMPI_IO_READ))
        return empi_io_access(c, bytes);
    MPI_Offset pos = c->offset * f->view.esize, total = c->count * c->dt->size;
    if (c->dir == EMPI_IO_READ)
        total = readable(f, pos, total);
    twophase_t t = {.f = f, .dir = c->dir, .n = f->comm->size};
    plan_t mine = {0}, *plans = malloc((size_t)t.n * sizeof *plans);
    int rc = plans ? build_extents(f, pos, total, &t.ext, &t.next, &mine) : MPI_ERR_NO_MEM;
    /* an erroneous NULL buffer fails this process's access alone, after the group's exchange */
    int missing = empi_buffer_missing(c->buf, c->count, c->dt);
    if (rc == MPI_SUCCESS && missing)
        rc = MPI_ERR_BUFFER;
    /* a non-contiguous memory side goes through a packed copy: allocated before the exchange, so
       that failing to get it sends everyone to independent access */
    char *copy = NULL;
    if (rc == MPI_SUCCESS && !c->dt->is_contig && !(copy = malloc((size_t)(total ? total : 1))))
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS)
        mine.flags = PLAN_UNORDERED;   /* tell the others to go independent: nobody waits alone */
    int rc2 = empi_coll_gather(c->fname, EMPI_COLL_ALLGATHER, &mine, 3, MPI_OFFSET, plans, 3, MPI_OFFSET, 0,
                               f->comm->handle, EMPI_COLL_BLOCKING, NULL);
    MPI_Offset flags = 0;
    for (int i = 0; rc2 == MPI_SUCCESS && i < t.n; i++)
        flags |= plans[i].flags;
    if (rc2 != MPI_SUCCESS || (flags & PLAN_UNORDERED) || (enabled < 0 && !(flags & PLAN_SMALL))) {
        free(copy), free(plans), free(t.ext);
        if (rc2 != MPI_SUCCESS)
            return rc2;
        return missing ? MPI_ERR_BUFFER : empi_io_access(c, bytes);
    }
    /* the user's bytes in place when contiguous (NULL with nothing to move is fine) */
    t.stream = copy ? copy : (char *)c->buf + c->dt->true_lb;
    if (copy && c->dir == EMPI_IO_WRITE)
        empi_dt_pack(c->buf, c->count, c->dt, 0, copy, total);
    rc = two_phase(&t, c->fname, plans);
    if (rc == MPI_SUCCESS && copy && c->dir == EMPI_IO_READ)
        empi_dt_unpack(c->buf, c->count, c->dt, 0, copy, total);
    free(copy), free(plans), free(t.ext);
    *bytes = rc == MPI_SUCCESS ? total : 0;
    return rc;
}
