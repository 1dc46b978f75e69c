/*
 * Building layouts (the compiled form of a type, see dt_internal.h). Normalization happens here,
 * once, so pack and unpack meet as few and as long byte runs as possible:
 *   - zero-length runs and empty blocks disappear;
 *   - a run followed by one that starts where it ends merges with it;
 *   - copies of a single run that abut (stride == length) become one run;
 *   - a tree that expands to at most EMPI_DT_FLATTEN_LIMIT runs becomes a flat run list.
 * A vector whose block is one run keeps its loop form (pack's fastest path), however long.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datatype/dt_internal.h"

static empi_dt_layout_t *node_new(empi_node_kind_t kind)
{
    empi_dt_layout_t *l = calloc(1, sizeof *l);
    if (l) {
        l->kind = kind;
        l->refs = 1;
    }
    return l;
}

void empi_layout_ref(empi_dt_layout_t *l)
{
    if (l)
        __atomic_add_fetch(&l->refs, 1, __ATOMIC_RELAXED);
}

void empi_layout_unref(empi_dt_layout_t *l)
{
    if (!l || __atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    empi_layout_unref(l->child);
    if (l->kids)
        for (MPI_Count i = 0; i < l->n; i++)
            empi_layout_unref(l->kids[i]);
    if (l->disp != &l->one_disp)
        free(l->disp);
    if (l->len != &l->one_len)
        free(l->len);
    if (l->prefix != l->one_prefix)
        free(l->prefix);
    free(l->kids);
    free(l->kext);
    free(l);
}

empi_dt_layout_t *empi_layout_contig_run(MPI_Aint disp, MPI_Count len)
{
    empi_dt_layout_t *l = node_new(EMPI_NODE_RUNS);
    if (!l)
        return NULL;
    l->disp = &l->one_disp;
    l->len = &l->one_len;
    l->prefix = l->one_prefix;
    l->size = len;
    if (len > 0) {
        l->n = 1;
        l->one_disp = disp;
        l->one_len = len;
        l->one_prefix[1] = len;
    }
    return l;
}

/* Runs in stream order; drops empty runs and merges abutting ones. */
empi_dt_layout_t *empi_layout_runs(MPI_Count n, const MPI_Aint *disp, const MPI_Count *len)
{
    MPI_Count kept = 0;
    for (MPI_Count i = 0; i < n; i++)
        if (len[i] > 0)
            kept++;
    if (kept <= 1) {
        for (MPI_Count i = 0; i < n; i++)
            if (len[i] > 0)
                return empi_layout_contig_run(disp[i], len[i]);
        return empi_layout_contig_run(0, 0);
    }
    empi_dt_layout_t *l = node_new(EMPI_NODE_RUNS);
    if (!l)
        return NULL;
    l->disp = malloc((size_t)kept * sizeof(MPI_Aint));
    l->len = malloc((size_t)kept * sizeof(MPI_Count));
    l->prefix = malloc((size_t)(kept + 1) * sizeof(MPI_Count));
    if (!l->disp || !l->len || !l->prefix) {
        empi_layout_unref(l);
        return NULL;
    }
    MPI_Count m = 0, total = 0;
    for (MPI_Count i = 0; i < n; i++) {
        if (len[i] <= 0)
            continue;
        if (m > 0 && l->disp[m - 1] + (MPI_Aint)l->len[m - 1] == disp[i]) {
            l->len[m - 1] += len[i];
        } else {
            l->disp[m] = disp[i];
            l->len[m] = len[i];
            l->prefix[m] = total;
            m++;
        }
        total += len[i];
    }
    l->prefix[m] = total;
    l->n = m;
    l->size = total;
    if (m == 1) {   /* everything merged: use the inline form */
        MPI_Aint d = l->disp[0];
        free(l->disp), free(l->len), free(l->prefix);
        l->disp = &l->one_disp, l->len = &l->one_len, l->prefix = l->one_prefix;
        l->one_disp = d, l->one_len = total, l->one_prefix[0] = 0, l->one_prefix[1] = total;
    }
    return l;
}

/* Number of runs l expands to, saturating at limit + 1. */
static MPI_Count count_runs(const empi_dt_layout_t *l, MPI_Count limit)
{
    switch (l->kind) {
    case EMPI_NODE_RUNS:
        return l->n;
    case EMPI_NODE_VEC: {
        MPI_Count c = count_runs(l->child, limit);
        if (c == 0)
            return 0;
        return l->n > (limit + 1) / c ? limit + 1 : l->n * c;
    }
    case EMPI_NODE_BLOCKS: {
        MPI_Count total = 0;
        for (MPI_Count i = 0; i < l->n && total <= limit; i++) {
            MPI_Count c = count_runs(l->kids[i], limit);
            total += (c && l->len[i] > (limit + 1) / c) ? limit + 1 : l->len[i] * c;
        }
        return total > limit ? limit + 1 : total;
    }
    }
    return limit + 1;
}

static void emit_runs(const empi_dt_layout_t *l, MPI_Aint base, MPI_Aint *disp, MPI_Count *len,
                      MPI_Count *m)
{
    switch (l->kind) {
    case EMPI_NODE_RUNS:
        for (MPI_Count i = 0; i < l->n; i++) {
            disp[*m] = base + l->disp[i];
            len[*m] = l->len[i];
            (*m)++;
        }
        break;
    case EMPI_NODE_VEC:
        for (MPI_Count i = 0; i < l->n; i++)
            emit_runs(l->child, base + l->disp0 + (MPI_Aint)i * l->stride, disp, len, m);
        break;
    case EMPI_NODE_BLOCKS:
        for (MPI_Count i = 0; i < l->n; i++)
            for (MPI_Count j = 0; j < l->len[i]; j++)
                emit_runs(l->kids[i], base + l->disp[i] + (MPI_Aint)j * l->kext[i], disp, len, m);
        break;
    }
}

typedef struct {
    MPI_Count n;
    MPI_Aint *disp;   /* NULL while counting */
    MPI_Count *len;
} flat_runs_t;

static int collect_run(void *ctx, MPI_Aint disp, MPI_Count stream_off, MPI_Count len)
{
    (void)stream_off;
    flat_runs_t *f = ctx;
    if (f->disp) {
        f->disp[f->n] = disp;
        f->len[f->n] = len;
    }
    f->n++;
    return 0;
}

/* Two walks of empi_dt_runs (count, then fill), so the run merging lives in one place. */
int empi_dt_flatten(const empi_datatype_t *dt, MPI_Count *n, MPI_Aint **disp, MPI_Count **len)
{
    flat_runs_t f = {0, NULL, NULL};
    *n = 0, *disp = NULL, *len = NULL;
    empi_dt_runs(1, dt, collect_run, &f);
    if (f.n == 0)
        return MPI_SUCCESS;
    if ((size_t)f.n > SIZE_MAX / sizeof(MPI_Aint))
        return MPI_ERR_NO_MEM;
    MPI_Count total = f.n;
    f = (flat_runs_t){0, malloc((size_t)total * sizeof(MPI_Aint)), malloc((size_t)total * sizeof(MPI_Count))};
    if (!f.disp || !f.len) {
        free(f.disp), free(f.len);
        return MPI_ERR_NO_MEM;
    }
    empi_dt_runs(1, dt, collect_run, &f);
    *n = f.n, *disp = f.disp, *len = f.len;
    return MPI_SUCCESS;
}

/* Replace l by its flat run list when that is small; consumes l. */
static empi_dt_layout_t *maybe_flatten(empi_dt_layout_t *l)
{
    MPI_Aint run_disp;
    MPI_Count run_len;
    if (!l || l->kind == EMPI_NODE_RUNS)
        return l;
    if (l->kind == EMPI_NODE_VEC && empi_layout_is_one_run(l->child, &run_disp, &run_len))
        return l;   /* the strided loop beats a run list at any length */
    MPI_Count c = count_runs(l, EMPI_DT_FLATTEN_LIMIT);
    if (c > EMPI_DT_FLATTEN_LIMIT)
        return l;
    MPI_Aint disp[EMPI_DT_FLATTEN_LIMIT];
    MPI_Count len[EMPI_DT_FLATTEN_LIMIT];
    MPI_Count m = 0;
    emit_runs(l, 0, disp, len, &m);
    empi_dt_layout_t *flat = empi_layout_runs(m, disp, len);
    if (!flat)
        return l;
    empi_layout_unref(l);
    return flat;
}

empi_dt_layout_t *empi_layout_vec(MPI_Count count, MPI_Aint disp0, MPI_Aint stride,
                                  empi_dt_layout_t *child)
{
    MPI_Aint d;
    MPI_Count len;
    if (count <= 0 || child->size == 0)
        return empi_layout_contig_run(0, 0);
    if (empi_layout_is_one_run(child, &d, &len) && (count == 1 || stride == (MPI_Aint)len))
        return empi_layout_contig_run(disp0 + d, count * len);
    empi_dt_layout_t *l = node_new(EMPI_NODE_VEC);
    if (!l)
        return NULL;
    l->n = count;
    l->disp0 = disp0;
    l->stride = stride;
    l->child = child;
    empi_layout_ref(child);
    l->size = count * child->size;
    return maybe_flatten(l);
}

empi_dt_layout_t *empi_layout_repeat(const empi_datatype_t *dt, MPI_Count count, MPI_Aint disp)
{
    return empi_layout_vec(count, disp, dt->extent, dt->layout);
}

empi_dt_layout_t *empi_layout_blocks(MPI_Count n, const MPI_Aint *disp, const MPI_Count *cnt,
                                     empi_dt_layout_t *const *kids, const MPI_Aint *kext)
{
    MPI_Count kept = 0;
    for (MPI_Count i = 0; i < n; i++)
        if (cnt[i] > 0 && kids[i]->size > 0)
            kept++;
    empi_dt_layout_t *l = node_new(EMPI_NODE_BLOCKS);
    if (!l)
        return NULL;
    l->disp = malloc((size_t)(kept ? kept : 1) * sizeof(MPI_Aint));
    l->len = malloc((size_t)(kept ? kept : 1) * sizeof(MPI_Count));
    l->prefix = malloc((size_t)(kept + 1) * sizeof(MPI_Count));
    l->kids = calloc((size_t)(kept ? kept : 1), sizeof(empi_dt_layout_t *));
    l->kext = malloc((size_t)(kept ? kept : 1) * sizeof(MPI_Aint));
    if (!l->disp || !l->len || !l->prefix || !l->kids || !l->kext) {
        empi_layout_unref(l);
        return NULL;
    }
    MPI_Count m = 0, total = 0;
    for (MPI_Count i = 0; i < n; i++) {
        if (cnt[i] <= 0 || kids[i]->size == 0)
            continue;
        l->disp[m] = disp[i];
        l->len[m] = cnt[i];
        l->kids[m] = kids[i];
        empi_layout_ref(kids[i]);
        l->kext[m] = kext[i];
        l->prefix[m] = total;
        total += cnt[i] * kids[i]->size;
        m++;
    }
    l->prefix[m] = total;
    l->n = m;
    l->size = total;
    if (m == 1) {   /* one block is a vector of its kid */
        empi_dt_layout_t *v = empi_layout_vec(l->len[0], l->disp[0], l->kext[0], l->kids[0]);
        empi_layout_unref(l);
        return v;
    }
    if (m == 0) {
        empi_layout_unref(l);
        return empi_layout_contig_run(0, 0);
    }
    /* blocks whose kid is one run abutting over the block: a run list, however many */
    bool all_runs = true;
    for (MPI_Count i = 0; i < m && all_runs; i++) {
        MPI_Aint d;
        MPI_Count len;
        all_runs = empi_layout_is_one_run(l->kids[i], &d, &len) &&
                   (l->len[i] == 1 || l->kext[i] == (MPI_Aint)len);
    }
    if (all_runs) {
        MPI_Aint *rd = malloc((size_t)m * sizeof(MPI_Aint));
        MPI_Count *rl = malloc((size_t)m * sizeof(MPI_Count));
        empi_dt_layout_t *r = NULL;
        if (rd && rl) {
            for (MPI_Count i = 0; i < m; i++) {
                rd[i] = l->disp[i] + l->kids[i]->disp[0];
                rl[i] = l->len[i] * l->kids[i]->len[0];
            }
            r = empi_layout_runs(m, rd, rl);
        }
        free(rd), free(rl);
        if (r) {
            empi_layout_unref(l);
            return r;
        }
    }
    return maybe_flatten(l);
}
