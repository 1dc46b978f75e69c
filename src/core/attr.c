/*
 * Keyvals and attribute lists, generic over the kind of object.
 *
 * A keyval is an index into a table, offset so it never equals MPI_KEYVAL_INVALID or a predefined
 * keyval (MPI_TAG_UB...). Each keyval is reference counted: the user's reference plus one per
 * attribute using it, since the standard lets a freed keyval stay usable by attributes still set
 * with it, and its delete callback must still run for them.
 */
#include <stdlib.h>

#include "core/attr.h"
#include "core/global.h"

#define KEYVAL_BASE 0x1000   /* above MPI_KEYVAL_INVALID and the predefined keyvals (501..507) */

typedef struct keyval_entry {
    int refcount;        /* 0: slot free */
    int user_freed;
    empi_attr_kind_t kind;
    void (*copy_fn)(void);    /* MPI_*_NULL_COPY_FN (0), MPI_*_DUP_FN (1), or a user function */
    void (*delete_fn)(void);  /* MPI_*_NULL_DELETE_FN (0) or a user function */
    void *extra_state;
} keyval_entry_t;

static keyval_entry_t *keyvals;
static int keyval_count, keyval_cap;

empi_world_attrs_t empi_world_attrs;

/*
 * A keyval the user freed stays usable to read or delete attributes still set with it (the
 * standard defers the free until those are gone); only freeing it twice or attaching new values
 * with it is refused (`allow_freed` = 0).
 */
static keyval_entry_t *lookup_keyval_ex(empi_attr_kind_t kind, int keyval, int allow_freed, const char **why)
{
    int i = keyval - KEYVAL_BASE;
    if (i < 0 || i >= keyval_count || keyvals[i].refcount == 0 || (keyvals[i].user_freed && !allow_freed)) {
        *why = keyval >= MPI_TAG_UB && keyval <= MPI_UNIVERSE_SIZE ? "is a predefined, read-only keyval"
                                                                   : "is not a valid keyval";
        return NULL;
    }
    if (keyvals[i].kind != kind) {
        *why = "was created for another kind of object";
        return NULL;
    }
    return &keyvals[i];
}

static keyval_entry_t *lookup_keyval(empi_attr_kind_t kind, int keyval, const char **why)
{
    return lookup_keyval_ex(kind, keyval, 0, why);
}

static keyval_entry_t *entry_of(int keyval)
{
    return &keyvals[keyval - KEYVAL_BASE];
}

static void keyval_release(int keyval)
{
    keyval_entry_t *k = entry_of(keyval);
    if (--k->refcount == 0)
        *k = (keyval_entry_t){0};
}

int empi_keyval_create(empi_attr_kind_t kind, void (*copy_fn)(void), void (*delete_fn)(void), void *extra_state,
                       int *keyval, const char **why)
{
    int i = 0;
    while (i < keyval_count && keyvals[i].refcount != 0)
        i++;
    if (i == keyval_count) {
        if (keyval_count == keyval_cap) {
            int cap = keyval_cap ? 2 * keyval_cap : 32;
            keyval_entry_t *grown = realloc(keyvals, (size_t)cap * sizeof *grown);
            if (!grown) {
                *why = "out of memory";
                return MPI_ERR_NO_MEM;
            }
            keyvals = grown;
            keyval_cap = cap;
        }
        keyval_count++;
    }
    keyvals[i] = (keyval_entry_t){1, 0, kind, copy_fn, delete_fn, extra_state};
    *keyval = KEYVAL_BASE + i;
    return MPI_SUCCESS;
}

int empi_keyval_free(empi_attr_kind_t kind, int *keyval, const char **why)
{
    keyval_entry_t *k = lookup_keyval(kind, *keyval, why);
    if (!k)
        return MPI_ERR_KEYVAL;
    k->user_freed = 1;
    keyval_release(*keyval);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* The typed callbacks all take (handle, keyval, ...); the kind says which handle type. */
static int call_copy(const keyval_entry_t *k, empi_attr_kind_t kind, void *handle, int keyval, void *in,
                     void **out, int *flag)
{
    if (k->copy_fn == (void (*)(void))0) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    if (k->copy_fn == (void (*)(void))1) {
        *out = in;
        *flag = 1;
        return MPI_SUCCESS;
    }
    *flag = 0;
    switch (kind) {
    case EMPI_ATTR_COMM:
        return ((MPI_Comm_copy_attr_function *)k->copy_fn)((MPI_Comm)handle, keyval, k->extra_state, in, out, flag);
    case EMPI_ATTR_TYPE:
        return ((MPI_Type_copy_attr_function *)k->copy_fn)((MPI_Datatype)handle, keyval, k->extra_state, in, out,
                                                          flag);
    default:
        return ((MPI_Win_copy_attr_function *)k->copy_fn)((MPI_Win)handle, keyval, k->extra_state, in, out, flag);
    }
}

static int call_delete(const keyval_entry_t *k, empi_attr_kind_t kind, void *handle, int keyval, void *value)
{
    if (k->delete_fn == (void (*)(void))0)
        return MPI_SUCCESS;
    switch (kind) {
    case EMPI_ATTR_COMM:
        return ((MPI_Comm_delete_attr_function *)k->delete_fn)((MPI_Comm)handle, keyval, value, k->extra_state);
    case EMPI_ATTR_TYPE:
        return ((MPI_Type_delete_attr_function *)k->delete_fn)((MPI_Datatype)handle, keyval, value, k->extra_state);
    default:
        return ((MPI_Win_delete_attr_function *)k->delete_fn)((MPI_Win)handle, keyval, value, k->extra_state);
    }
}

static empi_attr_t **find_attr(empi_attr_t **attrs, int keyval)
{
    while (*attrs && (*attrs)->keyval != keyval)
        attrs = &(*attrs)->next;
    return attrs;
}

/* Run the delete callback of the attribute at *link, then unlink it (only if the callback succeeded). */
static int delete_one(empi_attr_kind_t kind, void *handle, empi_attr_t **attrs, int keyval)
{
    empi_attr_t *a = *find_attr(attrs, keyval);
    int rc = call_delete(entry_of(keyval), kind, handle, keyval, a->value);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The callback may have changed the list (it may call MPI): find the attribute again. */
    empi_attr_t **link = find_attr(attrs, keyval);
    if (*link == a) {
        *link = a->next;
        free(a);
        keyval_release(keyval);
    }
    return MPI_SUCCESS;
}

int empi_attr_set(empi_attr_kind_t kind, void *handle, empi_attr_t **attrs, int keyval, void *value,
                  const char **why)
{
    if (!lookup_keyval(kind, keyval, why))
        return MPI_ERR_KEYVAL;
    empi_attr_t *a = *find_attr(attrs, keyval);
    if (a) {
        /* Replacing a value deletes the old one first, with its callback. */
        int rc = call_delete(entry_of(keyval), kind, handle, keyval, a->value);
        if (rc != MPI_SUCCESS) {
            *why = "the delete callback of the old value failed";
            return rc;
        }
        a->value = value;
        return MPI_SUCCESS;
    }
    a = malloc(sizeof *a);
    if (!a) {
        *why = "out of memory";
        return MPI_ERR_NO_MEM;
    }
    *a = (empi_attr_t){keyval, value, *attrs};
    *attrs = a;
    entry_of(keyval)->refcount++;
    return MPI_SUCCESS;
}

int empi_attr_get(empi_attr_kind_t kind, empi_attr_t *attrs, int keyval, void **value, int *flag, const char **why)
{
    if (!lookup_keyval_ex(kind, keyval, 1, why))
        return MPI_ERR_KEYVAL;
    empi_attr_t *a = *find_attr(&attrs, keyval);
    *flag = a != NULL;
    if (a)
        *value = a->value;
    return MPI_SUCCESS;
}

int empi_attr_delete(empi_attr_kind_t kind, void *handle, empi_attr_t **attrs, int keyval, const char **why)
{
    if (!lookup_keyval_ex(kind, keyval, 1, why))
        return MPI_ERR_KEYVAL;
    if (!*find_attr(attrs, keyval)) {
        *why = "has no attribute set on this object";
        return MPI_ERR_KEYVAL;
    }
    int rc = delete_one(kind, handle, attrs, keyval);
    if (rc != MPI_SUCCESS)
        *why = "its delete callback failed";
    return rc;
}

int empi_attr_delete_all(empi_attr_kind_t kind, void *handle, empi_attr_t **attrs)
{
    while (*attrs) {
        int rc = delete_one(kind, handle, attrs, (*attrs)->keyval);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int empi_attr_copy_all(empi_attr_kind_t kind, void *old_handle, empi_attr_t *old_attrs, void *new_handle,
                       empi_attr_t **new_attrs)
{
    *new_attrs = NULL;
    int n = 0;
    for (empi_attr_t *a = old_attrs; a; a = a->next)
        n++;
    if (n == 0)
        return MPI_SUCCESS;
    /* Snapshot first: callbacks may set attributes on the old object while we walk it. */
    empi_attr_t **order = malloc((size_t)n * sizeof *order);
    if (!order)
        return MPI_ERR_NO_MEM;
    int i = n;
    for (empi_attr_t *a = old_attrs; a; a = a->next)
        order[--i] = a;   /* oldest first */
    int rc = MPI_SUCCESS;
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int keyval = order[i]->keyval, flag = 0;
        void *out = NULL;
        keyval_entry_t *k = entry_of(keyval);
        entry_of(keyval)->refcount++;   /* keep the entry alive across the callback */
        rc = call_copy(k, kind, old_handle, keyval, order[i]->value, &out, &flag);
        if (rc == MPI_SUCCESS && flag) {
            empi_attr_t *copy = malloc(sizeof *copy);
            if (!copy) {
                rc = MPI_ERR_NO_MEM;
            } else {
                *copy = (empi_attr_t){keyval, out, *new_attrs};
                *new_attrs = copy;
                entry_of(keyval)->refcount++;
            }
        }
        keyval_release(keyval);
    }
    free(order);
    if (rc != MPI_SUCCESS)
        empi_attr_delete_all(kind, new_handle, new_attrs);
    return rc;
}
