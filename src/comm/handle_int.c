/*
 * MPI_X_toint / MPI_X_fromint: handles <-> Fortran integers, for every object kind.
 *
 * Predefined handles are small constants and map to their own value. A user handle is an address,
 * so it gets the next free index at or above EMPI_HANDLE_PREDEFINED_MAX the first time it is
 * converted, kept in both directions. Entries are never removed: a pool reuses a freed object's
 * address only for an object of the same kind, and that object's C handle compares equal to the
 * old one too, so the stale mapping gives the same answer C would.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "comm/comm.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

/* index - EMPI_HANDLE_PREDEFINED_MAX -> handle */
static void **by_index;
static size_t index_count, index_cap;

/* handle -> index: open addressing, capacity a power of two, 0 marks an empty slot */
typedef struct {
    uintptr_t handle;
    int index;
} slot_t;
static slot_t *table;
static size_t table_cap;

static size_t hash_handle(uintptr_t h, size_t cap)
{
    h ^= h >> 17;
    h *= (uintptr_t)0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 7) & (cap - 1);
}

static slot_t *find_slot(uintptr_t h)
{
    size_t i = hash_handle(h, table_cap);
    while (table[i].handle && table[i].handle != h)
        i = (i + 1) & (table_cap - 1);
    return &table[i];
}

static int grow_table(void)
{
    size_t old_cap = table_cap;
    slot_t *old = table;
    table_cap = old_cap ? old_cap * 2 : 256;
    table = calloc(table_cap, sizeof *table);
    if (!table) {
        table = old;
        table_cap = old_cap;
        return -1;
    }
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].handle)
            *find_slot(old[i].handle) = old[i];
    free(old);
    return 0;
}

int empi_handle_toint(const void *h)
{
    if (empi_handle_is_predefined(h))
        return (int)(uintptr_t)h;
    int result = -1;
    pthread_mutex_lock(&registry_lock);
    if ((index_count + 1) * 2 > table_cap && grow_table() != 0)
        goto out;
    slot_t *s = find_slot((uintptr_t)h);
    if (s->handle) {
        result = s->index;
        goto out;
    }
    if (index_count == index_cap) {
        size_t cap = index_cap ? index_cap * 2 : 256;
        void **grown = realloc(by_index, cap * sizeof *grown);
        if (!grown)
            goto out;
        by_index = grown;
        index_cap = cap;
    }
    by_index[index_count] = (void *)h;
    s->handle = (uintptr_t)h;
    s->index = (int)(EMPI_HANDLE_PREDEFINED_MAX + index_count);
    index_count++;
    result = s->index;
out:
    pthread_mutex_unlock(&registry_lock);
    return result;
}

void *empi_handle_fromint(int i)
{
    if (i >= 0 && (unsigned)i < EMPI_HANDLE_PREDEFINED_MAX)
        return (void *)(uintptr_t)i;
    void *h = NULL;
    pthread_mutex_lock(&registry_lock);
    if (i >= 0 && (size_t)i - EMPI_HANDLE_PREDEFINED_MAX < index_count)
        h = by_index[(size_t)i - EMPI_HANDLE_PREDEFINED_MAX];
    pthread_mutex_unlock(&registry_lock);
    return h;
}
