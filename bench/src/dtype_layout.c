/* Layouts of the datatype cases: a vector of equal blocks at twice their
 * size apart, or an indexed type with irregular block lengths and gaps.
 * Both are built from MPI_DOUBLE (see dtype_layout.h). */
#include "dtype_layout.h"

#include <stdlib.h>
#include <string.h>

/* Indexed layout: blocks of 1..32 doubles separated by gaps of 1..16
 * doubles, drawn from a fixed-seed generator (no libc rand(): its sequence
 * differs between C libraries and the layout must not). */
#define IDX_SEED 20240607u
#define IDX_MAX_BLOCK 32
#define IDX_MAX_GAP 16

static uint32_t idx_next(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

size_t dt_unit(int shape)
{
    return shape == DT_INDEXED ? DT_ELEM_BYTES : (size_t)shape;
}

size_t dt_round_up(size_t size, int shape)
{
    size_t u = dt_unit(shape);
    return size < u ? u : (size + u - 1) / u * u;
}

void dt_describe(int shape, char *buf, size_t cap)
{
    if (shape == DT_INDEXED)
        snprintf(buf, cap, "indexed of MPI_DOUBLE: blocks of %d..%d B, gaps of %d..%d B (fixed seed)",
                 DT_ELEM_BYTES, IDX_MAX_BLOCK * DT_ELEM_BYTES, DT_ELEM_BYTES, IDX_MAX_GAP * DT_ELEM_BYTES);
    else
        snprintf(buf, cap, "vector of MPI_DOUBLE: %d-byte blocks, stride %d bytes", shape, 2 * shape);
}

/* Counts the blocks and, once l->offs/lens exist, records them. */
static int layout_blocks(dt_layout *l, int shape, size_t size)
{
    size_t elems = size / DT_ELEM_BYTES, at = 0;
    int n = 0;
    if (shape != DT_INDEXED) {
        size_t per = (size_t)shape / DT_ELEM_BYTES;
        for (size_t done = 0; done < elems; done += per, n++)
            if (l->offs) {
                l->offs[n] = 2 * done * DT_ELEM_BYTES;
                l->lens[n] = (size_t)shape;
            }
        return n;
    }
    uint32_t st = IDX_SEED;
    for (size_t done = 0; done < elems; n++) {
        size_t len = 1 + idx_next(&st) % IDX_MAX_BLOCK;
        size_t gap = 1 + idx_next(&st) % IDX_MAX_GAP;
        if (len > elems - done)
            len = elems - done;
        if (l->offs) {
            l->offs[n] = at * DT_ELEM_BYTES;
            l->lens[n] = len * DT_ELEM_BYTES;
        }
        done += len;
        at += len + gap;
    }
    return n;
}

void dt_layout_build(dt_layout *l, int shape, size_t size)
{
    memset(l, 0, sizeof *l);
    l->size = size;
    l->nblocks = layout_blocks(l, shape, size);
    l->offs = malloc(sizeof(size_t) * (size_t)(l->nblocks + 1));
    l->lens = malloc(sizeof(size_t) * (size_t)(l->nblocks + 1));
    if (!l->offs || !l->lens)
        bench_die("out of memory");
    layout_blocks(l, shape, size);
    l->span = l->nblocks ? l->offs[l->nblocks - 1] + l->lens[l->nblocks - 1] : 0;

    if (shape != DT_INDEXED) {
        int per = shape / DT_ELEM_BYTES;
        MPI_Type_vector(l->nblocks, per, 2 * per, MPI_DOUBLE, &l->type);
    } else {
        int *bl = malloc(sizeof(int) * (size_t)(l->nblocks + 1));
        int *disp = malloc(sizeof(int) * (size_t)(l->nblocks + 1));
        if (!bl || !disp)
            bench_die("out of memory");
        for (int i = 0; i < l->nblocks; i++) {
            bl[i] = (int)(l->lens[i] / DT_ELEM_BYTES);
            disp[i] = (int)(l->offs[i] / DT_ELEM_BYTES);
        }
        MPI_Type_indexed(l->nblocks, bl, disp, MPI_DOUBLE, &l->type);
        free(bl);
        free(disp);
    }
    MPI_Type_commit(&l->type);
}

void dt_layout_free(dt_layout *l)
{
    MPI_Type_free(&l->type);
    free(l->offs);
    free(l->lens);
    memset(l, 0, sizeof *l);
}

static size_t count_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    size_t bad = 0;
    for (size_t j = 0; j < n; j++)
        bad += a[j] != b[j];
    return bad;
}

size_t dt_check(const dt_layout *l, const void *got, const void *data, const void *gaps)
{
    const unsigned char *g = got, *d = data, *z = gaps;
    size_t bad = 0, at = 0;
    for (int i = 0; i < l->nblocks; i++) {
        bad += count_diff(g + at, z + at, l->offs[i] - at);
        bad += count_diff(g + l->offs[i], d + l->offs[i], l->lens[i]);
        at = l->offs[i] + l->lens[i];
    }
    /* --self-test: as pattern_check, report one simulated wrong byte. */
    if (bench_self_test && bad == 0)
        bad = 1;
    return bad;
}
