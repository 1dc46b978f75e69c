/*
 * empi_copy: memcpy for data that crosses cores (shared rings, node-wide collective buffers,
 * shared windows, received payload).
 *
 * Why not memcpy: glibc copies 2 KiB .. 512 KiB with `rep movsb`, and on AMD Zen (this project's
 * machines) `rep movsb` reading cache lines that another core just wrote runs at about 2 GB/s, while
 * a plain loop of vector moves runs the same copy at 17-19 GB/s (measured: two processes streaming
 * 4 MiB through four 16 KiB slots); and from 4 KiB up to about 512 KiB it runs at 2 GB/s instead of
 * 45 whenever dst - src is 1..31 modulo 4 KiB, even within one core. So every copy of message
 * bytes goes through here. Below 2 KiB glibc uses vector moves anyway, so small copies stay with
 * memcpy, which the compiler can inline.
 */
#ifndef EMPI_COPY_H
#define EMPI_COPY_H

#include <stddef.h>
#include <string.h>

#define EMPI_COPY_VECTOR_MIN 2048u

void empi_copy_vector(void *dst, const void *src, size_t n);
/*
 * The same with non-temporal stores, for data that will not fit in the caches anyway: a 4 MiB
 * received message written this way skips reading the destination into the cache first (ping-pong
 * of 4 MiB 15-25% faster here). n >= 16, dst and src must not overlap.
 */
void empi_copy_stream(void *dst, const void *src, size_t n);
/* The same as empi_copy_vector / empi_copy_stream with the instruction set chosen by the caller
   (1: AVX2 where the CPU has it), for tests. */
void empi_copy_vector_isa(void *dst, const void *src, size_t n, int avx2);
void empi_copy_stream_isa(void *dst, const void *src, size_t n, int avx2);
/* 1 if this CPU runs AVX2 code (checked once); 0 on other architectures. */
int empi_cpu_has_avx2(void);

/* dst and src must not overlap. */
static inline void empi_copy(void *dst, const void *src, size_t n)
{
    if (n < EMPI_COPY_VECTOR_MIN)
        memcpy(dst, src, n);
    else
        empi_copy_vector(dst, src, n);
}

/* With non-temporal stores when `stream` and the piece is long enough for the vector loops, else
   with empi_copy. */
static inline void empi_copy_way(void *dst, const void *src, size_t n, int stream)
{
    if (stream && n >= EMPI_COPY_VECTOR_MIN)
        empi_copy_stream(dst, src, n);
    else
        empi_copy(dst, src, n);
}

/*
 * Copy n bytes into a destination buffer of `total` bytes: streamed once `total` reaches
 * stream_min (a tunable; 0: never).
 */
static inline void empi_copy_for(void *dst, const void *src, size_t n, size_t total, size_t stream_min)
{
    empi_copy_way(dst, src, n, stream_min && total >= stream_min);
}

#endif
