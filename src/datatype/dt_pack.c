/*
 * The pack engine: copy any byte range [offset, offset + len) of the packed stream of
 * (buf, count, dt) out of (pack) or into (unpack) user memory. It seeks by arithmetic (vectors)
 * or binary search (run lists and blocks), so pt2pt can produce a message in pieces without
 * keeping cursor state, and it never allocates.
 */
#include <string.h>

#include "datatype/dt_internal.h"

/* Index i with prefix[i] <= off < prefix[i + 1]. */
static MPI_Count seek(const MPI_Count *prefix, MPI_Count n, MPI_Count off)
{
    MPI_Count lo = 0, hi = n - 1;
    while (lo < hi) {
        MPI_Count mid = (lo + hi + 1) / 2;
        if (prefix[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static inline void move(char *mem, char *stream, MPI_Count n, int unpack)
{
    if (unpack)
        memcpy(mem, stream, (size_t)n);
    else
        memcpy(stream, mem, (size_t)n);
}

/*
 * The hot loop: `nblk` whole runs of `run` bytes at `mem`, `mem + stride`, ... Fixed-size cases
 * let the compiler turn each copy into a load/store pair instead of a memcpy call.
 */
#define BLOCK_LOOP(SZ)                                                                     \
    do {                                                                                   \
        if (unpack)                                                                        \
            for (MPI_Count b = 0; b < nblk; b++, mem += stride, stream += (SZ))            \
                memcpy(mem, stream, (SZ));                                                 \
        else                                                                               \
            for (MPI_Count b = 0; b < nblk; b++, mem += stride, stream += (SZ))            \
                memcpy(stream, mem, (SZ));                                                 \
    } while (0)

static void strided_runs(char *mem, MPI_Aint stride, MPI_Count run, MPI_Count nblk, char *stream,
                         int unpack)
{
    switch (run) {
    case 1: BLOCK_LOOP(1); break;
    case 2: BLOCK_LOOP(2); break;
    case 4: BLOCK_LOOP(4); break;
    case 8: BLOCK_LOOP(8); break;
    case 12: BLOCK_LOOP(12); break;
    case 16: BLOCK_LOOP(16); break;
    case 32: BLOCK_LOOP(32); break;
    default: BLOCK_LOOP(run); break;
    }
}

/* Stream bytes [skip, skip + len) of one instance of l whose origin is mem. */
static void xfer(const empi_dt_layout_t *l, char *mem, MPI_Count skip, MPI_Count len,
                 char *stream, int unpack)
{
    switch (l->kind) {
    case EMPI_NODE_RUNS: {
        MPI_Count i = l->n == 1 ? 0 : seek(l->prefix, l->n, skip);
        MPI_Count off = skip - l->prefix[i];
        while (len > 0) {
            MPI_Count take = l->len[i] - off;
            if (take > len)
                take = len;
            move(mem + l->disp[i] + off, stream, take, unpack);
            stream += take;
            len -= take;
            off = 0;
            i++;
        }
        break;
    }
    case EMPI_NODE_VEC: {
        const empi_dt_layout_t *c = l->child;
        MPI_Count cs = c->size;
        MPI_Count i = skip / cs, off = skip % cs;
        char *p = mem + l->disp0 + (MPI_Aint)i * l->stride;
        if (c->kind == EMPI_NODE_RUNS && c->n == 1) {
            p += c->disp[0];
            if (off) {   /* finish a block we start inside */
                MPI_Count take = cs - off < len ? cs - off : len;
                move(p + off, stream, take, unpack);
                stream += take, len -= take, p += l->stride;
            }
            MPI_Count nblk = len / cs;
            strided_runs(p, l->stride, cs, nblk, stream, unpack);
            p += (MPI_Aint)nblk * l->stride;
            stream += nblk * cs;
            len -= nblk * cs;
            if (len)
                move(p, stream, len, unpack);
            break;
        }
        while (len > 0) {
            MPI_Count take = cs - off < len ? cs - off : len;
            xfer(c, p, off, take, stream, unpack);
            stream += take, len -= take, off = 0, p += l->stride;
        }
        break;
    }
    case EMPI_NODE_BLOCKS: {
        MPI_Count i = seek(l->prefix, l->n, skip);
        MPI_Count inblk = skip - l->prefix[i];
        while (len > 0) {
            const empi_dt_layout_t *k = l->kids[i];
            MPI_Count cs = k->size;
            MPI_Count j = inblk / cs, off = inblk % cs;
            for (; j < l->len[i] && len > 0; j++) {
                MPI_Count take = cs - off < len ? cs - off : len;
                xfer(k, mem + l->disp[i] + (MPI_Aint)j * l->kext[i], off, take, stream, unpack);
                stream += take, len -= take, off = 0;
            }
            inblk = 0;
            i++;
        }
        break;
    }
    }
}

static void xfer_elements(char *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count offset,
                          char *stream, MPI_Count len, int unpack)
{
    (void)count;
    if (len <= 0)
        return;
    if (dt->is_contig) {
        move(buf + dt->true_lb + offset, stream, len, unpack);
        return;
    }
    MPI_Count size = dt->size;
    MPI_Count i = offset / size, off = offset % size;
    /* one vector-of-runs type with many elements: treat the elements as a longer vector */
    const empi_dt_layout_t *l = dt->layout;
    MPI_Aint d;
    MPI_Count rl;
    if (empi_layout_is_one_run(l, &d, &rl) && off == 0) {
        MPI_Count nblk = len / size;
        strided_runs(buf + (MPI_Aint)i * dt->extent + d, dt->extent, size, nblk, stream, unpack);
        i += nblk, stream += nblk * size, len -= nblk * size;
    }
    while (len > 0) {
        MPI_Count take = size - off < len ? size - off : len;
        xfer(l, buf + (MPI_Aint)i * dt->extent, off, take, stream, unpack);
        stream += take, len -= take, off = 0, i++;
    }
}

void empi_dt_pack(const void *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count offset,
                  void *out, MPI_Count len)
{
    xfer_elements((char *)buf, count, dt, offset, out, len, 0);
}

void empi_dt_unpack(void *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count offset,
                    const void *in, MPI_Count len)
{
    xfer_elements(buf, count, dt, offset, (char *)in, len, 1);
}
