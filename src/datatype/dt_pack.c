/*
 * The pack engine: copy any byte range [offset, offset + len) of the packed stream of
 * (buf, count, dt) out of (pack) or into (unpack) user memory. It seeks by arithmetic (vectors)
 * or binary search (run lists and blocks), so pt2pt can produce a message in pieces without
 * keeping cursor state, and it never allocates.
 */
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "core/copy.h"
#include "datatype/dt_internal.h"

/*
 * Which way bytes move. XFER_PACK_NT packs with non-temporal stores where runs are long enough
 * (32-byte multiples, or from EMPI_COPY_VECTOR_MIN): for a destination that another core reads
 * next, such as a shared ring whose lines the reader's cache holds (pt2pt/stream_choice.c).
 */
typedef enum { XFER_PACK, XFER_UNPACK, XFER_PACK_NT } xfer_dir_t;

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

/*
 * Copy n bytes between distinct buffers. Runs of a struct are often a few bytes long, where a
 * memcpy call costs more than the copy: up to 32 bytes are moved with two possibly overlapping
 * loads and stores of the largest width that fits (the halves cover every byte exactly once or
 * twice, with the same value). Longer runs go through empi_copy: glibc's memcpy runs 20x slower on
 * AMD Zen from 4 KiB when dst - src is 1..31 modulo 4 KiB, which user buffers can be.
 */
typedef long long empi_v16 __attribute__((vector_size(16), aligned(1), may_alias));

static inline void copy_bytes(char *restrict d, const char *restrict s, size_t n)
{
    if (n > 32) {
        empi_copy(d, s, n);
    } else if (n >= 16) {
        empi_v16 a = *(const empi_v16 *)s, b = *(const empi_v16 *)(s + n - 16);
        *(empi_v16 *)d = a;
        *(empi_v16 *)(d + n - 16) = b;
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8), memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8), memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4), memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4), memcpy(d + n - 4, &b, 4);
    } else if (n > 0) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

static inline void move(char *mem, char *stream, MPI_Count n, xfer_dir_t dir)
{
    if (dir == XFER_UNPACK)
        copy_bytes(mem, stream, (size_t)n);
    else if (dir == XFER_PACK_NT && n >= EMPI_COPY_VECTOR_MIN)
        empi_copy_stream(stream, mem, (size_t)n);
    else
        copy_bytes(stream, mem, (size_t)n);
}

/*
 * The hot loop: `nblk` whole runs of `run` bytes at `mem`, `mem + stride`, ... Fixed-size cases
 * let the compiler turn each copy into a load/store pair instead of a memcpy call.
 */
#define BLOCK_LOOP(SZ)                                                                     \
    do {                                                                                   \
        if (dir == XFER_UNPACK) {                                                          \
            _Pragma("GCC unroll 4")                                                        \
            for (MPI_Count b = 0; b < nblk; b++, mem += stride, stream += (SZ))            \
                memcpy(mem, stream, (SZ));                                                 \
        } else {                                                                           \
            _Pragma("GCC unroll 4")                                                        \
            for (MPI_Count b = 0; b < nblk; b++, mem += stride, stream += (SZ))            \
                memcpy(stream, mem, (SZ));                                                 \
        }                                                                                  \
    } while (0)

/*
 * Mid-size runs (a multiple of 32 bytes, up to 2 KiB): a memcpy call per block costs about as
 * much as moving 256 bytes from cache, so these blocks are moved with inline 32-byte loads and
 * stores instead, in an AVX2 clone chosen at run time when the CPU has it (glibc's memcpy uses the
 * same width, so this is the like-for-like comparison). The optimize attribute stops GCC from
 * recognizing the inner loop as a memcpy and turning it back into the call it is here to avoid.
 */
typedef long long empi_v32 __attribute__((vector_size(32), aligned(1), may_alias));

/*
 * Stores land on 32-byte boundaries, with one unaligned store at each end of a run: unaligned
 * 32-byte stores split a cache line every other time, which costs twice when the other core holds
 * the lines (a stream of 16 KiB vector messages through shared slots: 6.5-7 GB/s packed 24 bytes
 * off a boundary, as behind a packet header, against 9-13 aligned).
 * Four loads ahead of four stores, as memcpy does, so loads are not serialized behind stores; and
 * the strided side of the block PREFETCH_BLOCKS strides ahead is prefetched (RW: 0 read, 1 write),
 * since the hardware prefetcher does not follow a stride with gaps well: a vector of 256-byte
 * blocks packs at 0.80 instead of 0.73 of memcpy's speed at 1 MiB, 0.72 instead of 0.60 at 4 MiB.
 */
#define PREFETCH_BLOCKS 4
#define COPY_RUN32(D, S, AHEAD, RW)                                                        \
    do {                                                                                   \
        MPI_Count i = (MPI_Count)(-(uintptr_t)(D) & 31);                                   \
        if (i)                                                                             \
            *(empi_v32 *)(D) = *(const empi_v32 *)(S);                                     \
        for (; i + 128 <= run; i += 128) {                                                 \
            __builtin_prefetch((AHEAD) + i, (RW));                                         \
            empi_v32 a0 = *(const empi_v32 *)((S) + i);                                    \
            empi_v32 a1 = *(const empi_v32 *)((S) + i + 32);                               \
            empi_v32 a2 = *(const empi_v32 *)((S) + i + 64);                               \
            empi_v32 a3 = *(const empi_v32 *)((S) + i + 96);                               \
            *(empi_v32 *)((D) + i) = a0;                                                   \
            *(empi_v32 *)((D) + i + 32) = a1;                                              \
            *(empi_v32 *)((D) + i + 64) = a2;                                              \
            *(empi_v32 *)((D) + i + 96) = a3;                                              \
        }                                                                                  \
        for (; i + 32 <= run; i += 32)                                                     \
            *(empi_v32 *)((D) + i) = *(const empi_v32 *)((S) + i);                         \
        if (i < run)                                                                       \
            *(empi_v32 *)((D) + run - 32) = *(const empi_v32 *)((S) + run - 32);           \
    } while (0)

/* 64-byte runs (a cache line: 8 doubles) are common and short enough for loop control to show. */
#define COPY_RUN64(D, S, AHEAD, RW)                                                        \
    do {                                                                                   \
        __builtin_prefetch((AHEAD), (RW));                                                 \
        empi_v32 a0 = *(const empi_v32 *)(S);                                              \
        empi_v32 a1 = *(const empi_v32 *)((S) + 32);                                       \
        *(empi_v32 *)(D) = a0;                                                             \
        *(empi_v32 *)((D) + 32) = a1;                                                      \
    } while (0)

#define RUNS_LOOP(COPY)                                                                    \
    if (dir == XFER_UNPACK) {                                                              \
        for (MPI_Count b = 0; b < nblk; b++, mem += stride, stream += run)                 \
            COPY(mem, stream, (const char *)((uintptr_t)mem + ahead), 1);                  \
    } else {                                                                               \
        for (MPI_Count b = 0; b < nblk; b++, mem += stride, stream += run)                 \
            COPY(stream, mem, (const char *)((uintptr_t)mem + ahead), 0);                  \
    }

/* The block ahead may lie past the buffer: its address is computed as an integer, never a pointer
   out of bounds; a prefetch of any address is harmless. */
#define RUNS32_BODY                                                                        \
    uintptr_t ahead = (uintptr_t)(PREFETCH_BLOCKS * stride);                               \
    uintptr_t skewed = ((uintptr_t)mem | (uintptr_t)stream | (uintptr_t)stride) & 31;      \
    if (run == 64 && !skewed) {                                                            \
        RUNS_LOOP(COPY_RUN64)                                                              \
    } else {                                                                               \
        RUNS_LOOP(COPY_RUN32)                                                              \
    }

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EMPI_HAVE_AVX2_CLONE 1
__attribute__((target("avx2"), optimize("no-tree-loop-distribute-patterns")))
static void strided_runs32_avx2(char *mem, MPI_Aint stride, MPI_Count run, MPI_Count nblk, char *stream,
                                xfer_dir_t dir)
{
    RUNS32_BODY
}

/*
 * The same packing with non-temporal stores. Writing lines that the other core read last costs a
 * cross-core round trip per line when the two cores are far apart; a one-way stream of 16 KiB
 * vector messages through shared slots ran at 8 GB/s with cached stores and 11-15 with these (two
 * processes, 256-byte blocks, 16 slots). A run starts 8-byte aligned (a packet's payload follows
 * 8- and 16-byte headers): 8-byte streaming stores reach the first 32-byte boundary and finish the
 * run, 32-byte ones do the rest, so no line mixes cached and streamed stores.
 */
static inline void nt8(char *d, const char *s)
{
    long long v;
    memcpy(&v, s, 8);
    _mm_stream_si64((long long *)(void *)d, v);
}

__attribute__((target("avx2"))) static inline void nt_run(char *d, const char *s, MPI_Count n)
{
    for (; ((uintptr_t)d & 31) && n; d += 8, s += 8, n -= 8)
        nt8(d, s);
    for (; n >= 128; d += 128, s += 128, n -= 128) {
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *)s);
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32));
        __m256i a2 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 64));
        __m256i a3 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 96));
        _mm256_stream_si256((__m256i *)(void *)d, a0);
        _mm256_stream_si256((__m256i *)(void *)(d + 32), a1);
        _mm256_stream_si256((__m256i *)(void *)(d + 64), a2);
        _mm256_stream_si256((__m256i *)(void *)(d + 96), a3);
    }
    for (; n >= 32; d += 32, s += 32, n -= 32)
        _mm256_stream_si256((__m256i *)(void *)d, _mm256_loadu_si256((const __m256i *)(const void *)s));
    for (; n; d += 8, s += 8, n -= 8)
        nt8(d, s);
}

__attribute__((target("avx2"))) static void pack_runs32_nt_avx2(const char *mem, MPI_Aint stride, MPI_Count run,
                                                                MPI_Count nblk, char *stream)
{
    uintptr_t ahead = (uintptr_t)(PREFETCH_BLOCKS * stride);
    for (MPI_Count b = 0; b < nblk; b++, mem += stride, stream += run) {
        for (MPI_Count i = 0; i < run; i += 128)
            __builtin_prefetch((const char *)((uintptr_t)mem + ahead) + i, 0);
        nt_run(stream, mem, run);
    }
}
#endif

__attribute__((optimize("no-tree-loop-distribute-patterns")))
static void strided_runs32(char *mem, MPI_Aint stride, MPI_Count run, MPI_Count nblk, char *stream,
                           xfer_dir_t dir)
{
    RUNS32_BODY
}

/*
 * Packing 8-byte runs (strided doubles) is bound by one store per element: two elements are
 * gathered into one 16-byte store instead (pack of a vector of 8-byte blocks at 1 MiB: 0.55 ->
 * 0.7 of memcpy).
 */
static void pack_runs8(const char *mem, MPI_Aint stride, MPI_Count nblk, char *stream)
{
    MPI_Count b = 0;
#pragma GCC unroll 2
    for (; b + 2 <= nblk; b += 2, mem += 2 * stride, stream += 16) {
        long long x0, x1;
        memcpy(&x0, mem, 8), memcpy(&x1, mem + stride, 8);
        *(empi_v16 *)stream = (empi_v16){x0, x1};
    }
    if (b < nblk)
        memcpy(stream, mem, 8);
}

static void strided_runs(char *mem, MPI_Aint stride, MPI_Count run, MPI_Count nblk, char *stream,
                         xfer_dir_t dir)
{
    if (run % 32 == 0 && run >= 64 && run <= 2048 && nblk > 1) {
#ifdef EMPI_HAVE_AVX2_CLONE
        if (dir == XFER_PACK_NT && ((uintptr_t)stream & 7) == 0 && empi_cpu_has_avx2()) {
            pack_runs32_nt_avx2(mem, stride, run, nblk, stream);
            return;
        }
        if (empi_cpu_has_avx2()) {
            strided_runs32_avx2(mem, stride, run, nblk, stream, dir);
            return;
        }
#endif
        strided_runs32(mem, stride, run, nblk, stream, dir);
        return;
    }
    switch (run) {
    case 1: BLOCK_LOOP(1); break;
    case 2: BLOCK_LOOP(2); break;
    case 4: BLOCK_LOOP(4); break;
    case 8:
        if (dir == XFER_UNPACK)
            BLOCK_LOOP(8);
        else
            pack_runs8(mem, stride, nblk, stream);
        break;
    case 12: BLOCK_LOOP(12); break;
    case 16: BLOCK_LOOP(16); break;
    case 32: BLOCK_LOOP(32); break;
    default:
        for (MPI_Count b = 0; b < nblk; b++, mem += stride, stream += run)
            move(mem, stream, run, dir);
        break;
    }
}

/* Stream bytes [skip, skip + len) of one instance of l whose origin is mem. */
static void xfer(const empi_dt_layout_t *l, char *mem, MPI_Count skip, MPI_Count len,
                 char *stream, xfer_dir_t dir)
{
    switch (l->kind) {
    case EMPI_NODE_RUNS: {
        MPI_Count i = (l->n == 1 || skip == 0) ? 0 : seek(l->prefix, l->n, skip);
        MPI_Count off = skip - l->prefix[i];
        while (len > 0) {
            MPI_Count take = l->len[i] - off;
            if (take > len)
                take = len;
            move(mem + l->disp[i] + off, stream, take, dir);
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
                move(p + off, stream, take, dir);
                stream += take, len -= take, p += l->stride;
            }
            MPI_Count nblk = len / cs;
            strided_runs(p, l->stride, cs, nblk, stream, dir);
            p += (MPI_Aint)nblk * l->stride;
            stream += nblk * cs;
            len -= nblk * cs;
            if (len)
                move(p, stream, len, dir);
            break;
        }
        while (len > 0) {
            MPI_Count take = cs - off < len ? cs - off : len;
            xfer(c, p, off, take, stream, dir);
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
                xfer(k, mem + l->disp[i] + (MPI_Aint)j * l->kext[i], off, take, stream, dir);
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
                          char *stream, MPI_Count len, xfer_dir_t dir)
{
    (void)count;
    if (len <= 0)
        return;
    if (dt->is_contig) {
        move(buf + dt->true_lb + offset, stream, len, dir);
        return;
    }
    MPI_Count size = dt->size;
    /* a whole message starts at offset 0: no division on the common path */
    MPI_Count i = offset ? offset / size : 0, off = offset ? offset % size : 0;
    /* one vector-of-runs type with many elements: treat the elements as a longer vector */
    const empi_dt_layout_t *l = dt->layout;
    MPI_Aint d;
    MPI_Count rl;
    if (empi_layout_is_one_run(l, &d, &rl) && off == 0) {
        MPI_Count nblk = len / size;
        strided_runs(buf + (MPI_Aint)i * dt->extent + d, dt->extent, size, nblk, stream, dir);
        i += nblk, stream += nblk * size, len -= nblk * size;
    }
    /* whole elements of a vector of single runs: one strided loop per element (one for all of
     * them when the elements continue the stride), without xfer's seek */
    if (l->kind == EMPI_NODE_VEC && off == 0 && len >= size && empi_layout_is_one_run(l->child, &d, &rl)) {
        MPI_Count nel = len / size;
        char *p = buf + (MPI_Aint)i * dt->extent + l->disp0 + d;
        if (dt->extent == (MPI_Aint)l->n * l->stride) {
            strided_runs(p, l->stride, rl, nel * l->n, stream, dir);
            stream += nel * size;
        } else {
            for (MPI_Count e = 0; e < nel; e++, p += dt->extent, stream += size)
                strided_runs(p, l->stride, rl, l->n, stream, dir);
        }
        i += nel, len -= nel * size;
    }
    /* whole elements of a run-list type (a struct, say): a flat double loop, no per-element call */
    if (l->kind == EMPI_NODE_RUNS && off == 0 && len >= size) {
        MPI_Count nel = len / size;
        char *p = buf + (MPI_Aint)i * dt->extent;
        for (MPI_Count e = 0; e < nel; e++, p += dt->extent)
            for (MPI_Count r = 0; r < l->n; r++) {
                move(p + l->disp[r], stream, l->len[r], dir);
                stream += l->len[r];
            }
        i += nel, len -= nel * size;
    }
    while (len > 0) {
        MPI_Count take = size - off < len ? size - off : len;
        xfer(l, buf + (MPI_Aint)i * dt->extent, off, take, stream, dir);
        stream += take, len -= take, off = 0, i++;
    }
}

void empi_dt_pack(const void *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count offset,
                  void *out, MPI_Count len)
{
    xfer_elements((char *)buf, count, dt, offset, out, len, XFER_PACK);
}

void empi_dt_pack_stream(const void *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count offset,
                         void *out, MPI_Count len)
{
    xfer_elements((char *)buf, count, dt, offset, out, len, XFER_PACK_NT);
#if defined(__x86_64__) && defined(__GNUC__)
    _mm_sfence();   /* before the caller publishes the bytes with a release store */
#endif
}

void empi_dt_unpack(void *buf, MPI_Count count, const empi_datatype_t *dt, MPI_Count offset,
                    const void *in, MPI_Count len)
{
    xfer_elements(buf, count, dt, offset, (char *)in, len, XFER_UNPACK);
}
