/* empi_copy, both vector loops behind it and the streaming copy: every size around the vector threshold and the loops'
   steps, every alignment of source and destination; the bytes copied must match and the bytes
   around the destination stay put. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/copy.h"

#define GUARD 64

static int isa = -1;   /* -1: empi_copy itself; 0: the SSE2 loop; 1: the AVX2 loop; 2, 3: streaming, SSE2 and AVX2 */

static int check(size_t n, size_t src_off, size_t dst_off, unsigned char *src, unsigned char *dst)
{
    for (size_t i = 0; i < n + 2 * GUARD + 32; i++)
        src[i] = (unsigned char)(i * 131u + n + src_off);
    memset(dst, 0xA5, n + 2 * GUARD + 32);
    if (isa < 0 || n < 64)
        empi_copy(dst + GUARD + dst_off, src + src_off, n);
    else if (isa >= 2)
        empi_copy_stream_isa(dst + GUARD + dst_off, src + src_off, n, isa - 2);
    else
        empi_copy_vector_isa(dst + GUARD + dst_off, src + src_off, n, isa);
    for (size_t i = 0; i < GUARD + dst_off; i++)
        if (dst[i] != 0xA5) {
            fprintf(stderr, "n=%zu src+%zu dst+%zu: byte %zu before the destination changed\n", n, src_off, dst_off, i);
            return 1;
        }
    if (memcmp(dst + GUARD + dst_off, src + src_off, n) != 0) {
        fprintf(stderr, "n=%zu src+%zu dst+%zu: copied bytes differ\n", n, src_off, dst_off);
        return 1;
    }
    for (size_t i = GUARD + dst_off + n; i < n + 2 * GUARD + 32; i++)
        if (dst[i] != 0xA5) {
            fprintf(stderr, "n=%zu src+%zu dst+%zu: byte %zu after the destination changed\n", n, src_off, dst_off, i);
            return 1;
        }
    return 0;
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 15, 16, 17, 63, 64, 65, 2047, 2048, 2049, 2063, 2064, 2079,
                                   2111, 2112, 4096, 4097, 16383, 16384, 65536 + 13, 1 << 20};
    size_t max = 1 << 20;
    unsigned char *src = malloc(max + 2 * GUARD + 32), *dst = malloc(max + 2 * GUARD + 32);
    if (!src || !dst)
        return 2;
    int failures = 0, cases = 0;
    for (isa = -1; isa <= 3; isa++) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            /* A megabyte's head and tail take the same paths as the smaller sizes': a sample of
               its alignments (aligned, odd, and both halves of a vector) is enough. */
            size_t step = sizes[k] > 65536 + 13 ? 7 : 1;
            for (size_t so = 0; so < 32; so += step)
                for (size_t doff = 0; doff < 32; doff += step, cases++)
                    failures += check(sizes[k], so, doff, src, dst);
        }
        for (size_t n = 2000; n < 2300; n++, cases++)
            failures += check(n, n % 32, (n / 32) % 32, src, dst);
    }
    free(src);
    free(dst);
    printf("%d cases, %d failures\n", cases, failures);
    return failures != 0;
}
