/* Rank placement and host identity.
 *
 * Placement over the host entries of -hosts / -f: with -ppn K, blocks of K consecutive ranks per
 * entry in turn; else, when entries give slots, each entry is filled up to its slots in turn;
 * else the ranks are split into even consecutive blocks. Any of these wraps around when there are
 * more ranks than places (oversubscription is allowed). When some context has its own -host
 * entries, each context's ranks are placed so over its own entries, or the job's.
 *
 * Identity: a host is its name as the host itself reports it (EMPI_HOSTNAME, else gethostname),
 * so two entries that reach the same machine share shared memory, and network namespaces with
 * their own UTS name count as separate hosts. Node ids number the distinct names in order of
 * their first rank. */
#include "mpiexec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

layout_t layout;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        perror("mpiexec");
        exit(1);
    }
    return p;
}

/* Ranks [first, first + n) over the host entries hs[0..nh) by the rules above. */
static void place_over(const mpiexec_options_t *o, int first, int n, const int *hs, int nh)
{
    int have_slots = 0;
    for (int k = 0; k < nh; k++)
        have_slots |= o->hosts[hs[k]].slots > 0;
    int block = o->ppn ? o->ppn : (n + nh - 1) / nh;
    int k = 0, used = 0;
    for (int r = first; r < first + n; r++) {
        int cap = o->ppn || !have_slots ? block : (o->hosts[hs[k]].slots > 0 ? o->hosts[hs[k]].slots : 1);
        if (used == cap) {
            k = (k + 1) % nh;
            used = 0;
        }
        layout.host_of[r] = hs[k];
        used++;
    }
}

/* The entries serving context a: its own -host entries, else the job's. 0 when there are none. */
static int entries_of(const mpiexec_options_t *o, int a, int *hs)
{
    int nh = 0;
    for (int h = 0; h < o->nhosts; h++)
        if (o->hosts[h].app == a)
            hs[nh++] = h;
    for (int h = 0; nh == 0 && h < o->nhosts; h++)
        if (o->hosts[h].app < 0)
            hs[nh++] = h;
    return nh;
}

int layout_place(const mpiexec_options_t *o)
{
    int n = o->nprocs;
    layout.nprocs = n;
    layout.host_of = xcalloc((size_t)n, sizeof(int));
    layout.node_of = xcalloc((size_t)n, sizeof(int));
    layout.local_rank = xcalloc((size_t)n, sizeof(int));
    layout.local_size = xcalloc((size_t)n, sizeof(int));
    if (o->nhosts == 0)
        return 0;
    int *hs = xcalloc((size_t)o->nhosts, sizeof(int)), per_context = 0;
    for (int h = 0; h < o->nhosts; h++)
        per_context |= o->hosts[h].app >= 0;
    if (!per_context) {
        for (int h = 0; h < o->nhosts; h++)
            hs[h] = h;
        place_over(o, 0, n, hs, o->nhosts);
        free(hs);
        return 0;
    }
    /* MPMD with -host per context: each context over its own entries */
    for (int a = 0, first = 0; a < o->napps; first += o->apps[a++].nprocs) {
        int nh = entries_of(o, a, hs);   /* never 0: options.c refuses such a line */
        place_over(o, first, o->apps[a].nprocs, hs, nh > 0 ? nh : 1);
    }
    free(hs);
    return 0;
}

void layout_number_nodes(char *const *names, int nhosts)
{
    int n = layout.nprocs;
    /* node_id of each host entry: the first entry with the same name decides. */
    int *node_of_host = xcalloc((size_t)(nhosts > 0 ? nhosts : 1), sizeof(int));
    int *first_entry = xcalloc((size_t)(nhosts > 0 ? nhosts : 1), sizeof(int));
    int nodes = 0;
    for (int i = 0; i < nhosts; i++)
        node_of_host[i] = -1;
    /* Number in order of first rank, so rank 0's host is node 0. */
    for (int r = 0; r < n; r++) {
        int h = layout.host_of[r];
        if (nhosts == 0 || node_of_host[h] >= 0)
            continue;
        int same = -1;
        for (int k = 0; k < nodes && same < 0; k++)
            if (!strcmp(names[first_entry[k]], names[h]))
                same = k;
        if (same < 0) {
            first_entry[nodes] = h;
            same = nodes++;
        }
        node_of_host[h] = same;
    }
    layout.num_nodes = nodes > 0 ? nodes : 1;
    int *count = xcalloc((size_t)layout.num_nodes, sizeof(int));
    for (int r = 0; r < n; r++) {
        int node = nhosts ? node_of_host[layout.host_of[r]] : 0;
        layout.node_of[r] = node;
        layout.local_rank[r] = count[node]++;
    }
    for (int r = 0; r < n; r++)
        layout.local_size[r] = count[layout.node_of[r]];
    free(count);
    free(first_entry);
    free(node_of_host);
}

void layout_free(void)
{
    free(layout.host_of);
    free(layout.node_of);
    free(layout.local_rank);
    free(layout.local_size);
    layout = (layout_t){ 0 };
}

void host_identity(char *buf, size_t len)
{
    const char *over = getenv("EMPI_HOSTNAME");
    if (over && *over) {
        snprintf(buf, len, "%s", over);
        return;
    }
    if (gethostname(buf, len) != 0)
        snprintf(buf, len, "localhost");
    buf[len - 1] = '\0';
}

/* An entry names this host when it is a loopback name or our own name (short or full). With
 * EMPI_HOSTNAME set, only that name is ours: a test's fake hosts all resolve to this machine. */
int host_is_local(const char *host)
{
    const char *over = getenv("EMPI_HOSTNAME");
    if (over && *over)
        return !strcmp(host, over);
    char self[256];
    if (!strcmp(host, "localhost") || !strcmp(host, "127.0.0.1") || !strcmp(host, "::1"))
        return 1;
    if (gethostname(self, sizeof self) != 0)
        return 0;
    self[sizeof self - 1] = '\0';
    size_t n = strcspn(self, ".");
    return !strcmp(host, self) || (strlen(host) == n && !strncmp(host, self, n));
}
