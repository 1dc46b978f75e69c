/* The table of foreign processes (procs.h). Grows only; lookups by (job, rank) are linear, which
   is fine at connection time, the only time they happen. */
#include "runtime/procs.h"

#include "core/fnv.h"
#include "runtime/bootstrap.h"

#include <stdlib.h>
#include <string.h>

typedef struct foreign {
    uint64_t job;
    int node; /* empi_procs_node */
    empi_proc_desc_t desc;
} foreign_t;

static foreign_t *foreign;
static int nforeign, cap, nforeign_nodes;
static uint64_t my_job;

extern empi_boot_info_t *empi_boot_self_info(void);

/* Job ids are random hex strings already, this only folds them to 64 bits. */
static uint64_t hash_jobid(const char *jobid, size_t max)
{
    return empi_fnv1a64(EMPI_FNV64_BASIS, jobid, strnlen(jobid, max));
}

static const empi_boot_info_t *boot(void)
{
    const empi_boot_info_t *b = empi_boot_self_info();
    if (!my_job)
        my_job = hash_jobid(b->jobid, sizeof b->jobid);
    return b;
}

int empi_procs_describe_self(empi_proc_desc_t *out)
{
    const empi_boot_info_t *b = boot();
    memset(out, 0, sizeof *out);
    memcpy(out->jobid, b->jobid, sizeof out->jobid);
    out->rank = b->rank;
    out->node = b->node_id;
    size_t len = 0;
    if (empi_boot_get(b->rank, "tcp", out->record, sizeof out->record, &len) != 0)
        return -1;
    out->record_len = (uint32_t)len;
    return 0;
}

int empi_procs_total(void)
{
    return boot()->size + nforeign;
}

int empi_procs_find(uint64_t job, int rank)
{
    const empi_boot_info_t *b = boot();
    if (job == my_job)
        return rank >= 0 && rank < b->size ? rank : -1;
    for (int i = 0; i < nforeign; i++)
        if (foreign[i].job == job && foreign[i].desc.rank == rank)
            return b->size + i;
    return -1;
}

int empi_procs_add(const empi_proc_desc_t *d)
{
    uint64_t job = hash_jobid(d->jobid, sizeof d->jobid);
    int known = empi_procs_find(job, d->rank);
    if (known >= 0)
        return known;
    if (nforeign == cap) {
        int ncap = cap ? 2 * cap : 16;
        foreign_t *f = realloc(foreign, sizeof *f * (size_t)ncap);
        if (!f)
            return -1;
        foreign = f;
        cap = ncap;
    }
    int node = -1;
    for (int i = 0; i < nforeign && node < 0; i++)
        if (foreign[i].job == job && foreign[i].desc.node == d->node)
            node = foreign[i].node;
    if (node < 0)
        node = boot()->num_nodes + nforeign_nodes++;
    foreign[nforeign] = (foreign_t){job, node, *d};
    return boot()->size + nforeign++;
}

uint64_t empi_procs_job(int i)
{
    const empi_boot_info_t *b = boot();
    return i < b->size ? my_job : foreign[i - b->size].job;
}

int empi_procs_rank(int i)
{
    const empi_boot_info_t *b = boot();
    return i < b->size ? i : foreign[i - b->size].desc.rank;
}

const char *empi_procs_jobid(int i)
{
    const empi_boot_info_t *b = boot();
    return i < b->size ? b->jobid : foreign[i - b->size].desc.jobid;
}

static empi_procs_lost_fn lost_hook;

void empi_procs_set_lost_hook(empi_procs_lost_fn fn)
{
    lost_hook = fn;
}

void empi_procs_lost(int i, const char *why)
{
    if (lost_hook)
        lost_hook(i, why);
}

int empi_procs_before(int a, int b)
{
    uint64_t ja = empi_procs_job(a), jb = empi_procs_job(b);
    return ja != jb ? ja < jb : empi_procs_rank(a) < empi_procs_rank(b);
}

int empi_procs_node(int i)
{
    int k = i - boot()->size;
    return k >= 0 && k < nforeign ? foreign[k].node : -1;
}

const void *empi_procs_record(int i, size_t *len)
{
    int k = i - boot()->size;
    if (k < 0 || k >= nforeign)
        return NULL;
    *len = foreign[k].desc.record_len;
    return foreign[k].desc.record;
}

void empi_procs_to_gids(const int *idx, int n, empi_proc_gid_t *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (empi_proc_gid_t){empi_procs_job(idx[i]), empi_procs_rank(idx[i])};
}

int empi_procs_from_gids(const empi_proc_gid_t *gids, int n, int *idx)
{
    for (int i = 0; i < n; i++)
        if ((idx[i] = empi_procs_find(gids[i].job, (int)gids[i].rank)) < 0)
            return -1;
    return 0;
}

void empi_procs_finalize(void)
{
    free(foreign);
    foreign = NULL;
    nforeign = cap = nforeign_nodes = 0;
    my_job = 0;
}
