/*
 * Context ids: every member of a new communicator must use the same id, and no process may use one
 * id for two live communicators. Ids are never reused: a process remembers every block it ever
 * claimed (`used`, merged ranges); everything else is free, abandoned proposals included.
 *
 * Agreement, repeated until it succeeds:
 *   1. each participant proposes P = next, moving next past [P, P + width);
 *   2. R = max of the proposals over the participants;
 *   3. each claims [R, R + width): the claim holds when no id of it is used here; it is then used,
 *      and next moves past it;
 *   4. AND of the claims: all succeeded -> R is the id; else retry (R is wasted where it was
 *      claimed, which is safe).
 * Two agreements running at once in one process (threads, nonblocking dups) fail only when both
 * agreed on the same R and different processes let different ones have it. Their proposals are
 * adjacent in every process, so they tend to agree on the same R again and again: a retry
 * therefore first skips a random number of blocks, so that the two maxima differ. (A watermark
 * alone, everything below next taken, failed such claims on every retry: two threads' idup loops
 * at 8 processes livelocked.)
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "comm/intercomm.h"
#include "core/global.h"

typedef struct {
    uint32_t lo, hi;   /* [lo, hi) */
} id_range_t;

static pthread_mutex_t ids_lock = PTHREAD_MUTEX_INITIALIZER;
/* 0 and 2 are MPI_COMM_WORLD and MPI_COMM_SELF (their collective contexts are 1 and 3). */
static uint32_t next_context = 4;
static id_range_t *used;      /* sorted, disjoint, adjacent ones merged */
static size_t nused, used_cap;
static unsigned retry_seed;

static int overlaps(id_range_t a, id_range_t b)
{
    return a.lo < b.hi && b.lo < a.hi;
}

/* Index of the first used range ending after lo. */
static size_t used_from(uint32_t lo)
{
    size_t a = 0, b = nused;
    while (a < b) {
        size_t m = (a + b) / 2;
        if (used[m].hi <= lo)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

static int in_use(id_range_t r)
{
    size_t i = used_from(r.lo);
    return i < nused && overlaps(used[i], r);
}

static int mark_used(id_range_t r)
{
    size_t i = used_from(r.lo);
    if (i > 0 && used[i - 1].hi == r.lo) {   /* extends the range before */
        used[i - 1].hi = r.hi;
        if (i < nused && used[i].lo == r.hi) {
            used[i - 1].hi = used[i].hi;
            for (size_t k = i; k + 1 < nused; k++)
                used[k] = used[k + 1];
            nused--;
        }
        return 0;
    }
    if (i < nused && used[i].lo == r.hi) {   /* extends the range after */
        used[i].lo = r.lo;
        return 0;
    }
    if (nused == used_cap) {
        size_t cap = used_cap ? 2 * used_cap : 16;
        id_range_t *u = realloc(used, cap * sizeof *u);
        if (!u)
            return -1;
        used = u;
        used_cap = cap;
    }
    for (size_t k = nused; k > i; k--)
        used[k] = used[k - 1];
    used[i] = r;
    nused++;
    return 0;
}

uint32_t empi_comm_context_propose(uint32_t width, int retry)
{
    pthread_mutex_lock(&ids_lock);
    if (retry) {
        if (!retry_seed)
            /* pids repeat across hosts and pid namespaces: the job rank tells the processes apart */
            retry_seed = ((unsigned)getpid() ^ (unsigned)empi_g.boot.rank * 2654435761u) | 1;
        next_context += width * (uint32_t)(rand_r(&retry_seed) % 8);
    }
    id_range_t r = {next_context, next_context + width};
    /* past anything in use (a claim may have moved next beyond) */
    while (in_use(r)) {
        uint32_t end = used[used_from(r.lo)].hi;
        r = (id_range_t){end, end + width};
    }
    next_context = r.hi;
    pthread_mutex_unlock(&ids_lock);
    return r.lo;
}

int empi_comm_context_claim(uint32_t agreed, uint32_t width)
{
    id_range_t r = {agreed, agreed + width};
    pthread_mutex_lock(&ids_lock);
    int ok = !in_use(r) && mark_used(r) == 0;
    if (ok && next_context < r.hi)
        next_context = r.hi;
    pthread_mutex_unlock(&ids_lock);
    return ok;
}

int empi_comm_agree_context(const empi_coll_set_t *set, uint32_t *context_id)
{
    return empi_comm_agree_context_n(set, NULL, 2, context_id);
}

/* Same protocol with `width` ids per proposal; a bridge extends both reductions to the other group. */
int empi_comm_agree_context_n(const empi_coll_set_t *set, const empi_coll_bridge_t *bridge, int width,
                              uint32_t *context_id)
{
    for (int retry = 0;; retry = 1) {
        uint32_t proposal = empi_comm_context_propose((uint32_t)width, retry);
        int vals[1] = {(int)proposal};
        int rc = empi_coll_bridge_allreduce_int(set, bridge, vals, 1, EMPI_COLL_INT_MAX);
        if (rc != MPI_SUCCESS)
            return rc;
        uint32_t agreed = (uint32_t)vals[0];
        int ok[1] = {empi_comm_context_claim(agreed, (uint32_t)width)};
        rc = empi_coll_bridge_allreduce_int(set, bridge, ok, 1, EMPI_COLL_INT_AND);
        if (rc != MPI_SUCCESS)
            return rc;
        if (ok[0]) {
            *context_id = agreed;
            return MPI_SUCCESS;
        }
    }
}
