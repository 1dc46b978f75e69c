/* Pack/unpack throughput (pack_vec8 .. pack_vec1024, pack_indexed): MPI_Pack
 * and MPI_Unpack of one noncontiguous message, against memcpy of the same
 * number of bytes measured in the same run, so the ratio shows how much the
 * library's datatype engine costs over a plain copy. Rank 0 measures alone:
 * no communication is involved, and idle peers keep the memory bus quiet. */
#include "dtype_layout.h"

#include <string.h>

enum pack_step { STEP_PACK, STEP_UNPACK, STEP_MEMCPY };

typedef struct {
    dt_layout l;
    int validate;
    int packed_len;           /* position after MPI_Pack */
    int packed_cap;           /* MPI_Pack_size */
    char *src, *dst, *gaps;   /* typed buffers (span bytes) */
    char *packed, *copy;      /* contiguous buffers */
    long errors;
} pack_run;

/* -c, before each iteration (untimed): fresh data to pack, a cleared pack
 * buffer, and an unpack target holding the gap pattern. */
static void step_prepare(pack_run *p, enum pack_step s, int iter)
{
    if (s == STEP_PACK) {
        pattern_fill(p->src, p->l.span, p->l.size, iter, 0);
        memset(p->packed, 0, (size_t)p->packed_cap);
    } else if (s == STEP_UNPACK) {
        memcpy(p->dst, p->gaps, p->l.span);
    }
}

/* -c, after each unpack (untimed): unpack(pack(src)) must reproduce src in
 * the blocks, leave the gaps alone and consume exactly what pack wrote. */
static void step_check(pack_run *p, enum pack_step s, int consumed)
{
    if (s != STEP_UNPACK)
        return;
    p->errors += (long)dt_check(&p->l, p->dst, p->src, p->gaps);
    p->errors += consumed != p->packed_len;
}

static double time_step(pack_run *p, enum pack_step s, int skip, int iters)
{
    bench_timer tm = {0};
    for (int i = 0; i < skip + iters; i++) {
        int pos = 0;
        if (i == skip)
            timer_start(&tm);
        if (p->validate) {
            timer_pause(&tm);
            step_prepare(p, s, i);
            timer_resume(&tm);
        }
        switch (s) {
        case STEP_PACK:
            MPI_Pack(p->src, 1, p->l.type, p->packed, p->packed_cap, &pos, MPI_COMM_SELF);
            p->packed_len = pos;
            break;
        case STEP_UNPACK:
            MPI_Unpack(p->packed, p->packed_cap, &pos, p->dst, 1, p->l.type, MPI_COMM_SELF);
            break;
        case STEP_MEMCPY:
            memcpy(p->copy, p->packed, p->l.size);
            break;
        }
        if (p->validate) {
            timer_pause(&tm);
            step_check(p, s, pos);
            timer_resume(&tm);
        }
    }
    return timer_stop(&tm);
}

static void measure_size(const bench_opts *o, int shape, size_t size, double *vals, int *iters, long *errors)
{
    pack_run p = {.validate = o->validate};
    int skip;
    iters_for_size(o, size, iters, &skip);
    dt_layout_build(&p.l, shape, size);
    MPI_Pack_size(1, p.l.type, MPI_COMM_SELF, &p.packed_cap);
    p.src = bench_alloc(p.l.span);
    p.dst = bench_alloc(p.l.span);
    p.gaps = bench_alloc(p.l.span);
    p.packed = bench_alloc((size_t)p.packed_cap);
    p.copy = bench_alloc(size);
    pattern_fill(p.src, p.l.span, size, 0, 0);
    pattern_fill(p.gaps, p.l.span, size, 0, 1); /* differs from any src fill */

    /* Unpack works on what the pack loop produced last. */
    double t_pack = time_step(&p, STEP_PACK, skip, *iters);
    double t_unpack = time_step(&p, STEP_UNPACK, skip, *iters);
    double t_copy = time_step(&p, STEP_MEMCPY, skip, *iters);
    double bytes = (double)size * *iters;
    vals[0] = t_pack > 0 ? bytes / t_pack / 1e6 : 0.0;
    vals[1] = t_unpack > 0 ? bytes / t_unpack / 1e6 : 0.0;
    vals[2] = t_copy > 0 ? bytes / t_copy / 1e6 : 0.0;
    vals[3] = vals[2] > 0 ? vals[0] / vals[2] : 0.0;
    vals[4] = vals[2] > 0 ? vals[1] / vals[2] : 0.0;
    *errors = p.errors;

    bench_free(p.src);
    bench_free(p.dst);
    bench_free(p.gaps);
    bench_free(p.packed);
    bench_free(p.copy);
    dt_layout_free(&p.l);
}

long run_pack(const bench_case *c, const bench_opts *o)
{
    static const report_col cols[] = {{"pack_MBps", "Pack MB/s", 0},
                                      {"unpack_MBps", "Unpack MB/s", 0},
                                      {"memcpy_MBps", "memcpy MB/s", 0},
                                      {"pack_vs_memcpy", "Pack/memcpy", 0},
                                      {"unpack_vs_memcpy", "Unpack/memcpy", 0}};
    char desc[120];
    size_t min = dt_round_up(o->min_size, c->op);
    long total = 0;

    report_begin(o, c, "pack/unpack throughput test", cols, 5, "pack_MBps");
    dt_describe(c->op, desc, sizeof desc);
    report_note("Layout: %s", desc);
    report_note("Rank 0 measures; memcpy copies the same number of contiguous bytes");
    if (min != o->min_size)
        report_note("Sizes start at %zu: a multiple of %zu bytes", min, dt_unit(c->op));
    if (bench_rank() != 0)
        return 0;
    for (size_t size = min; size <= o->max_size; size = next_size(size)) {
        double vals[5];
        int iters;
        long errs;
        measure_size(o, c->op, size, vals, &iters, &errs);
        report_row((long)size, iters, vals, errs);
        total += errs;
    }
    return total;
}
