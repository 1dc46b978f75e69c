/*
 * Info objects: ordered (key, value) string pairs. The API layer (MPI_Info_*) and every layer that
 * takes or returns hints (communicators, windows, MPI_Abi_get_info...) use the functions below,
 * which never raise errors themselves.
 */
#ifndef EMPI_INFO_H
#define EMPI_INFO_H

#include "core/object.h"
#include "mpi.h"

typedef struct empi_info_entry {
    char *key;
    char *value;
} empi_info_entry_t;

typedef struct empi_info {
    empi_object_t obj;
    MPI_Info handle;
    int nkeys, cap;
    empi_info_entry_t *entries;   /* in order of first insertion (MPI_Info_get_nthkey) */
} empi_info_t;

/* Handle -> object; NULL if invalid or MPI_INFO_NULL. MPI_INFO_ENV is valid (read-only). */
empi_info_t *empi_info_get(MPI_Info h);

empi_info_t *empi_info_new(void);                      /* empty, refcount 1; NULL on ENOMEM */
empi_info_t *empi_info_dup(const empi_info_t *info);   /* NULL on ENOMEM; info may be NULL (empty) */
void empi_info_release(empi_info_t *info);             /* drop a reference; NULL is fine */

/* Set (insert or replace) a pair; returns MPI_SUCCESS or MPI_ERR_NO_MEM. Lengths are not checked. */
int empi_info_set(empi_info_t *info, const char *key, const char *value);
/* Value for key, or NULL; valid until the pair changes. */
const char *empi_info_lookup(const empi_info_t *info, const char *key);
/* The alignment the hint mpi_minimum_memory_alignment asks for when it is a power of two above
   `least` (the standard lets an implementation ignore only smaller ones), else `least`. */
size_t empi_info_alignment(const empi_info_t *info, size_t least);
/* Remove a key; returns 1 if it was there. */
int empi_info_remove(empi_info_t *info, const char *key);

/*
 * The info a *_get_info call returns for a session, communicator, window or file: a copy of `info`
 * with the memory allocation kinds this library supports (MPI 4.1 11.4.3: "mpi_memory_alloc_kinds",
 * memory from MPI_Alloc_mem and window allocation, and from the system allocator). NULL on ENOMEM.
 */
empi_info_t *empi_info_used(const empi_info_t *info);

#endif
