/* Ranks per CPU on every host of the job (cpu_census.h). */
#include "runtime/cpu_census.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CENSUS_KEY "cpus"

static struct {
    int num_nodes;
    int *cpus;       /* per host: CPUs in the union of its ranks' sets */
    int *ranks;      /* per host: ranks of the job */
} census;

int empi_cpu_census_usable(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* The set as bytes, trailing empty bytes dropped (a small host publishes one byte). */
static size_t my_cpu_bytes(unsigned char *out, size_t cap)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < n && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &set);
    }
    size_t len = 0;
    memset(out, 0, cap);
    for (int c = 0; c < CPU_SETSIZE && (size_t)c / 8 < cap; c++)
        if (CPU_ISSET(c, &set)) {
            out[c / 8] |= (unsigned char)(1u << (c % 8));
            len = (size_t)c / 8 + 1;
        }
    return len;
}

static int popcount_bytes(const unsigned char *b, size_t n)
{
    int count = 0;
    for (size_t i = 0; i < n; i++)
        count += __builtin_popcount(b[i]);
    return count;
}

int empi_cpu_census_take(const empi_boot_info_t *boot)
{
    enum { SET_BYTES = CPU_SETSIZE / 8 };
    unsigned char mine[SET_BYTES];
    size_t len = my_cpu_bytes(mine, sizeof mine);
    int rc = empi_boot_put(CENSUS_KEY, mine, len);
    if (empi_boot_fence() != 0)   /* every rank fences, even one whose put failed */
        rc = -1;

    empi_cpu_census_free();
    int nodes = boot->num_nodes > 0 ? boot->num_nodes : 1;
    unsigned char *unions = calloc((size_t)nodes, SET_BYTES);
    census.cpus = calloc((size_t)nodes, sizeof *census.cpus);
    census.ranks = calloc((size_t)nodes, sizeof *census.ranks);
    if (!unions || !census.cpus || !census.ranks) {
        free(unions);
        empi_cpu_census_free();
        return -1;
    }
    census.num_nodes = nodes;
    for (int r = 0; rc == 0 && r < boot->size; r++) {
        int node = empi_boot_node_of(r);
        unsigned char theirs[SET_BYTES];
        size_t got = 0;
        if (node < 0 || node >= nodes || empi_boot_get(r, CENSUS_KEY, theirs, sizeof theirs, &got) != 0) {
            rc = -1;   /* the same record is missing for everyone: all fall back alike */
            break;
        }
        census.ranks[node]++;
        for (size_t i = 0; i < got; i++)
            unions[(size_t)node * SET_BYTES + i] |= theirs[i];
    }
    for (int n = 0; rc == 0 && n < nodes; n++)
        census.cpus[n] = popcount_bytes(unions + (size_t)n * SET_BYTES, SET_BYTES);
    if (rc != 0)
        memset(census.cpus, 0, (size_t)nodes * sizeof *census.cpus);
    free(unions);
    return rc;
}

int empi_cpu_census_cpus(int node)
{
    return census.cpus && node >= 0 && node < census.num_nodes ? census.cpus[node] : 0;
}

int empi_cpu_census_ranks_per_cpu(int node)
{
    int cpus = empi_cpu_census_cpus(node);
    if (cpus <= 0)
        return 1;
    int ranks = census.ranks[node];
    return ranks > cpus ? (ranks + cpus - 1) / cpus : 1;
}

void empi_cpu_census_free(void)
{
    free(census.cpus);
    free(census.ranks);
    census.cpus = census.ranks = NULL;
    census.num_nodes = 0;
}
