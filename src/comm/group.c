/*
 * Group objects: immutable ordered lists of world ranks. MPI_GROUP_EMPTY is a static object; every
 * other group comes from a pool and is shared by reference (a communicator holds its group).
 */
#include <stdlib.h>
#include <string.h>

#include "comm/group.h"
#include "core/global.h"

empi_group_t empi_group_empty = {{EMPI_MAGIC_GROUP, 1}, 0, MPI_UNDEFINED, NULL, MPI_GROUP_EMPTY};

static empi_pool_t group_pool = EMPI_POOL_INITIALIZER(empi_group_t, "group");
static pthread_mutex_t group_pool_lock = PTHREAD_MUTEX_INITIALIZER;

empi_group_t *empi_group_get(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY)
        return &empi_group_empty;
    if (empi_handle_is_predefined(h))
        return NULL;
    empi_group_t *g = (empi_group_t *)h;
    return g->obj.magic == EMPI_MAGIC_GROUP ? g : NULL;
}

empi_group_t *empi_group_new(int size, const int *world_ranks)
{
    if (size == 0) {
        empi_group_retain(&empi_group_empty);
        return &empi_group_empty;
    }
    int *copy = malloc((size_t)size * sizeof *copy);
    if (!copy)
        return NULL;
    memcpy(copy, world_ranks, (size_t)size * sizeof *copy);
    pthread_mutex_lock(&group_pool_lock);
    empi_group_t *g = empi_pool_alloc(&group_pool);
    pthread_mutex_unlock(&group_pool_lock);
    if (!g) {
        free(copy);
        return NULL;
    }
    g->obj.magic = EMPI_MAGIC_GROUP;
    g->obj.refcount = 1;
    g->size = size;
    g->world_ranks = copy;
    g->handle = (MPI_Group)g;
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < size; i++)
        if (copy[i] == empi_g.boot.rank) {
            g->rank = i;
            break;
        }
    return g;
}

void empi_group_retain(empi_group_t *g)
{
    if (g && g != &empi_group_empty)
        __atomic_add_fetch(&g->obj.refcount, 1, __ATOMIC_RELAXED);
}

void empi_group_release(empi_group_t *g)
{
    if (!g || g == &empi_group_empty)
        return;
    if (__atomic_sub_fetch(&g->obj.refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    free(g->world_ranks);
    pthread_mutex_lock(&group_pool_lock);
    empi_pool_free(&group_pool, g);
    pthread_mutex_unlock(&group_pool_lock);
}

int empi_group_rank_of_world(const empi_group_t *g, int world_rank)
{
    for (int i = 0; i < g->size; i++)
        if (g->world_ranks[i] == world_rank)
            return i;
    return MPI_UNDEFINED;
}

/* ---- a sorted index of a group, for membership tests in O(log n) ---- */

static int compare_pairs(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

empi_group_index_t *empi_group_index_new(const empi_group_t *g)
{
    empi_group_index_t *ix = malloc(sizeof *ix + (size_t)g->size * 2 * sizeof(int));
    if (!ix)
        return NULL;
    ix->n = g->size;
    for (int i = 0; i < g->size; i++) {
        ix->pairs[2 * i] = g->world_ranks[i];
        ix->pairs[2 * i + 1] = i;
    }
    qsort(ix->pairs, (size_t)ix->n, 2 * sizeof(int), compare_pairs);
    return ix;
}

int empi_group_index_lookup(const empi_group_index_t *ix, int world_rank)
{
    int lo = 0, hi = ix->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (ix->pairs[2 * mid] < world_rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n && ix->pairs[2 * lo] == world_rank ? ix->pairs[2 * lo + 1] : MPI_UNDEFINED;
}

void empi_group_index_free(empi_group_index_t *ix)
{
    free(ix);
}

int empi_group_compare(const empi_group_t *a, const empi_group_t *b)
{
    if (a == b)
        return MPI_IDENT;
    if (a->size != b->size)
        return MPI_UNEQUAL;
    if (memcmp(a->world_ranks, b->world_ranks, (size_t)a->size * sizeof(int)) == 0)
        return MPI_IDENT;
    empi_group_index_t *ix = empi_group_index_new(b);
    if (!ix)
        return MPI_UNEQUAL;
    int result = MPI_SIMILAR;
    for (int i = 0; i < a->size && result == MPI_SIMILAR; i++)
        if (empi_group_index_lookup(ix, a->world_ranks[i]) == MPI_UNDEFINED)
            result = MPI_UNEQUAL;
    empi_group_index_free(ix);
    return result;
}
