/* The vector loop behind empi_copy (see copy.h for why it exists). */
#include "core/copy.h"

#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>

/* n >= 16. Stores are aligned after one unaligned head store; the tail is one unaligned store that
   may rewrite bytes already copied (harmless: source and destination do not overlap). */
void empi_copy_vector(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    const char *end_s = s + n;
    char *end_d = d + n;
    _mm_storeu_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
    size_t skew = 16 - ((uintptr_t)d & 15);
    d += skew;
    s += skew;
    n -= skew;
    while (n >= 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
        _mm_store_si128((__m128i *)(void *)d, a);
        _mm_store_si128((__m128i *)(void *)(d + 16), b);
        _mm_store_si128((__m128i *)(void *)(d + 32), c);
        _mm_store_si128((__m128i *)(void *)(d + 48), e);
        s += 64;
        d += 64;
        n -= 64;
    }
    while (n >= 16) {
        _mm_store_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
        s += 16;
        d += 16;
        n -= 16;
    }
    if (n)
        _mm_storeu_si128((__m128i *)(void *)(end_d - 16), _mm_loadu_si128((const __m128i *)(const void *)(end_s - 16)));
}

#else

void empi_copy_vector(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

#endif
