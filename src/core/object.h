/*
 * Library objects behind MPI handles. The standard ABI makes handles pointers to incomplete structs
 * and gives predefined handles small fixed values (MPI_COMM_WORLD is 0x101, MPI_INT 0x209, ...).
 * So a handle below EMPI_HANDLE_PREDEFINED_MAX names a static object found through a table, and any
 * other handle is the address of a heap object whose first word is a magic number checked on use.
 * Freed objects keep a poisoned magic in pooled memory, so a stale handle is reported, not followed.
 */
#ifndef EMPI_OBJECT_H
#define EMPI_OBJECT_H

#include <stdint.h>

#define EMPI_HANDLE_PREDEFINED_MAX 0x1000u

typedef enum {
    EMPI_MAGIC_FREED = 0x0bad0bad,
    EMPI_MAGIC_COMM = 0xc0330001,
    EMPI_MAGIC_GROUP = 0xc0330002,
    EMPI_MAGIC_DATATYPE = 0xc0330003,
    EMPI_MAGIC_OP = 0xc0330004,
    EMPI_MAGIC_REQUEST = 0xc0330005,
    EMPI_MAGIC_INFO = 0xc0330006,
    EMPI_MAGIC_ERRHANDLER = 0xc0330007,
    EMPI_MAGIC_MESSAGE = 0xc0330008,
    EMPI_MAGIC_WIN = 0xc0330009,
    EMPI_MAGIC_SESSION = 0xc033000a,
    EMPI_MAGIC_FILE = 0xc033000b,
} empi_magic_t;

static inline int empi_handle_is_predefined(const void *h)
{
    return (uintptr_t)h < EMPI_HANDLE_PREDEFINED_MAX;
}

static inline uint32_t empi_handle_predefined_index(const void *h)
{
    return (uint32_t)(uintptr_t)h;
}

/* Every heap object starts with this, so a handle's kind can be checked before it is trusted. */
typedef struct empi_object {
    uint32_t magic;
    int32_t refcount;
} empi_object_t;

/*
 * Fixed-size object pools: objects are carved from slabs that are never returned to the system,
 * which keeps a freed handle's memory readable (its magic says EMPI_MAGIC_FREED) and makes
 * allocation a free-list pop.
 */
typedef struct empi_pool {
    size_t object_size;
    void *free_list;
    const char *name;
} empi_pool_t;

#define EMPI_POOL_INITIALIZER(type, label) {sizeof(type) < 16 ? 16 : sizeof(type), 0, label}

void *empi_pool_alloc(empi_pool_t *pool);   /* zeroed object, or NULL when out of memory */
void empi_pool_free(empi_pool_t *pool, void *obj); /* poisons the magic */

#endif
