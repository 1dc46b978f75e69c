/*
 * Per-communicator collective state, hung on comm->coll_cache at the first collective: the
 * sequence number that makes every collective call's tag distinct, the node layout the tuning
 * table is keyed on, and the node-wide shared segment of the shared-memory algorithms.
 */
#include <stdlib.h>

#include "coll/coll.h"
#include "core/global.h"
#include "runtime/bootstrap.h"
#include "runtime/cpu_census.h"

static void coll_comm_free(void *p)
{
    empi_coll_comm_t *cc = p;
    if (!cc)
        return;
    if (cc->shm)
        empi_coll_shm_free(cc->shm);
    if (cc->hier)
        empi_coll_hier_free(cc->hier);
    free(cc);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The most ranks per CPU on the ranks' hosts. Processes of another job count as 1 throughout:
   they and we know different censuses, and every member must reach the same figure. */
static int comm_ranks_per_cpu(const empi_comm_t *comm, int n)
{
    int most = 1;
    for (int i = 0; i < n; i++) {
        int w = comm->world_ranks[i];
        if (w >= empi_g.boot.size)
            return 1;
        int rpc = empi_cpu_census_ranks_per_cpu(empi_boot_node_of(w));
        most = rpc > most ? rpc : most;
    }
    return most;
}

/* Hosts among the ranks and the most ranks on one host: sort the host ids, count the runs. */
static void compute_topo(empi_comm_t *comm, empi_coll_comm_t *cc)
{
    int n = empi_comm_peer_size(comm);   /* world_ranks names the remote group on intercommunicators */
    int *nodes = malloc((size_t)n * sizeof *nodes);
    cc->num_nodes = n;   /* without memory to look: assume nothing is shared */
    cc->max_ppn = 1;
    if (nodes) {
        for (int i = 0; i < n; i++)
            nodes[i] = empi_coll_node_of_world(comm->world_ranks[i]);
        qsort(nodes, (size_t)n, sizeof *nodes, cmp_int);
        int distinct = 0, maxppn = 0;
        for (int i = 0; i < n;) {
            int j = i;
            while (j < n && nodes[j] == nodes[i])
                j++;
            distinct++;
            if (j - i > maxppn)
                maxppn = j - i;
            i = j;
        }
        cc->num_nodes = distinct;
        cc->max_ppn = maxppn;
        free(nodes);
    }
    cc->single_node = cc->num_nodes == 1;
    cc->ranks_per_cpu = comm_ranks_per_cpu(comm, n);
    cc->topo_done = 1;
}

empi_coll_comm_t *empi_coll_comm(empi_comm_t *comm)
{
    empi_coll_comm_t *cc = comm->coll_cache;
    if (EMPI_LIKELY(cc != NULL))
        return cc;
    cc = calloc(1, sizeof *cc);
    if (!cc)
        return NULL;
    compute_topo(comm, cc);
    comm->coll_cache = cc;
    comm->coll_cache_free = coll_comm_free;
    return cc;
}

int empi_coll_next_tag(empi_comm_t *comm)
{
    empi_coll_comm_t *cc = empi_coll_comm(comm);
    if (!cc)
        return 0;
    /* 30 bits of sequence: below EMPI_COMM_CREATE_TAG (0x7fff0000) and never negative. */
    return (int)(cc->seq++ & 0x3fffffffu);
}
