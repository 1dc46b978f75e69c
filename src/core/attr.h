/*
 * Keyvals and attributes, the same code for every kind of object that caches them (communicators,
 * datatypes, windows). An object owns a list `struct empi_attr *attrs` (NULL when empty); the
 * object's layer calls empi_attr_copy_all when it duplicates the object and empi_attr_delete_all
 * when it frees it. Callbacks receive the object's MPI handle, so it is passed in as a void *.
 * Callers hold the big lock; callbacks may re-enter MPI (the lock is recursive).
 */
#ifndef EMPI_ATTR_H
#define EMPI_ATTR_H

#include "mpi.h"

typedef enum { EMPI_ATTR_COMM, EMPI_ATTR_TYPE, EMPI_ATTR_WIN } empi_attr_kind_t;

typedef struct empi_attr {
    int keyval;
    void *value;
    struct empi_attr *next;     /* newest first */
} empi_attr_t;

/*
 * Run the copy callbacks of old_attrs (oldest first) and build the new object's list. On a callback
 * failure, attributes already copied are deleted again and the callback's code is returned.
 */
int empi_attr_copy_all(empi_attr_kind_t kind, void *old_handle, empi_attr_t *old_attrs, void *new_handle,
                       empi_attr_t **new_attrs);

/*
 * Run the delete callbacks newest first (the reverse of setting order, which the standard requires
 * for MPI_COMM_SELF at finalize) and empty the list. Stops at the first callback that fails and
 * returns its code, leaving the rest attached.
 */
int empi_attr_delete_all(empi_attr_kind_t kind, void *handle, empi_attr_t **attrs);

/* Generic forms of create_keyval/free_keyval/set/get/delete. They return an MPI error class with
   *why set to a message fragment, and never raise: the API wrappers raise on their object. */
int empi_keyval_create(empi_attr_kind_t kind, void (*copy_fn)(void), void (*delete_fn)(void), void *extra_state,
                       int *keyval, const char **why);
int empi_keyval_free(empi_attr_kind_t kind, int *keyval, const char **why);
int empi_attr_set(empi_attr_kind_t kind, void *handle, empi_attr_t **attrs, int keyval, void *value,
                  const char **why);
int empi_attr_get(empi_attr_kind_t kind, empi_attr_t *attrs, int keyval, void **value, int *flag,
                  const char **why);
int empi_attr_delete(empi_attr_kind_t kind, void *handle, empi_attr_t **attrs, int keyval, const char **why);

/* Values of the predefined attributes of MPI_COMM_WORLD (set by empi_comm_init). */
typedef struct empi_world_attrs {
    int tag_ub, host, io, wtime_is_global, appnum, universe_size;
    int has_appnum, has_universe_size;
} empi_world_attrs_t;
extern empi_world_attrs_t empi_world_attrs;

/* MPI_LASTUSEDCODE's value, kept by src/core/error.c. */
extern int empi_error_last_used_code;

#endif
