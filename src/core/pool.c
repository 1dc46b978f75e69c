#include <stdlib.h>
#include <string.h>

#include "core/object.h"

#define EMPI_POOL_SLAB_OBJECTS 64

/* The free-list link lives after the magic word, so a freed object still reads as freed. */
typedef struct pool_slot {
    uint32_t magic;
    uint32_t pad;
    struct pool_slot *next;
} pool_slot_t;

void *empi_pool_alloc(empi_pool_t *pool)
{
    if (!pool->free_list) {
        size_t size = pool->object_size < sizeof(pool_slot_t) ? sizeof(pool_slot_t) : pool->object_size;
        size = (size + 15) & ~(size_t)15;
        pool->object_size = size;
        char *slab = malloc(size * EMPI_POOL_SLAB_OBJECTS);
        if (!slab)
            return NULL;
        for (int i = EMPI_POOL_SLAB_OBJECTS - 1; i >= 0; i--) {
            pool_slot_t *slot = (pool_slot_t *)(slab + (size_t)i * size);
            slot->magic = EMPI_MAGIC_FREED;
            slot->next = pool->free_list;
            pool->free_list = slot;
        }
    }
    pool_slot_t *slot = pool->free_list;
    pool->free_list = slot->next;
    memset(slot, 0, pool->object_size);
    return slot;
}

void empi_pool_free(empi_pool_t *pool, void *obj)
{
    pool_slot_t *slot = obj;
    slot->magic = EMPI_MAGIC_FREED;
    slot->next = pool->free_list;
    pool->free_list = slot;
}
