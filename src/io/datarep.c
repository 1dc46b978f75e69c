/*
 * Data representations of file views. "native" and "internal" store the memory bytes as they are;
 * "external32" converts through the datatype engine's external32 support; MPI_Register_datarep
 * adds user representations whose conversion functions the standard defines. Where a
 * representation changes the sizes of named types (MPI_LONG in external32, or a user extent
 * function), views and accesses work on the types' file images (empi_dt_file_image): the view is
 * laid out in file bytes, and an access converts its elements into a buffer of file bytes.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/global.h"
#include "io/io.h"

static const empi_datarep_t external32 = {.name = "external32", .external32 = 1};

typedef struct registered {
    empi_datarep_t rep;
    struct registered *next;
} registered_t;

static registered_t *registry;   /* lives until the process ends, as the standard says */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

int empi_datarep_find(const char *name, const empi_datarep_t **rep)
{
    *rep = NULL;
    if (!strcmp(name, "native") || !strcmp(name, "internal"))
        return MPI_SUCCESS;
    if (!strcmp(name, "external32")) {
        *rep = &external32;
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&registry_lock);
    for (registered_t *r = registry; r; r = r->next)
        if (!strcmp(r->rep.name, name))
            *rep = &r->rep;
    pthread_mutex_unlock(&registry_lock);
    return *rep ? MPI_SUCCESS : MPI_ERR_UNSUPPORTED_DATAREP;
}

/* File extent of a named type in representation ctx (external32 or a user one). */
static int named_file_extent(void *ctx, const empi_datatype_t *named, MPI_Aint *extent)
{
    const empi_datarep_t *rep = ctx;
    if (rep->external32) {
        MPI_Count n = empi_dt_external32_size(named, 1);
        *extent = (MPI_Aint)n;
        return n < 0 ? MPI_ERR_UNSUPPORTED_DATAREP : MPI_SUCCESS;
    }
    return rep->extent_fn(named->handle, extent, rep->extra_state) == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_CONVERSION;
}

int empi_datarep_extent(const empi_datarep_t *rep, empi_datatype_t *dt, MPI_Aint *extent)
{
    if (!rep || empi_datarep_size_preserving(rep, dt)) {
        *extent = dt->extent;
        return MPI_SUCCESS;
    }
    return empi_dt_file_extent(dt, named_file_extent, (void *)rep, extent);
}

/* A named type whose file extent in a user representation differs from its size (1 stops the walk). */
static int named_resized(void *ctx, const empi_datatype_t *named)
{
    MPI_Aint ext = 0;
    return named_file_extent(ctx, named, &ext) != MPI_SUCCESS || ext != named->size;
}

int empi_datarep_size_preserving(const empi_datarep_t *rep, empi_datatype_t *dt)
{
    if (!rep)
        return 1;
    if (rep->external32)
        return empi_dt_external32_size(dt, 1) == dt->size;
    /* user functions know the named types only: a derived type keeps its size if they all do */
    return empi_dt_each_named(dt, named_resized, (void *)rep) == 0;
}

int empi_datarep_image(const empi_datarep_t *rep, empi_datatype_t *dt, empi_datatype_t **image)
{
    if (!rep || empi_datarep_size_preserving(rep, dt)) {
        empi_datatype_retain(dt);
        *image = dt;
        return MPI_SUCCESS;
    }
    return empi_dt_file_image(dt, named_file_extent, (void *)rep, image);
}

int empi_datarep_file_bytes(const empi_datarep_t *rep, empi_datatype_t *dt, MPI_Count count, MPI_Count *bytes)
{
    if (!rep) {
        *bytes = count * dt->size;
        return MPI_SUCCESS;
    }
    if (rep->external32) {
        *bytes = empi_dt_external32_size(dt, count);
        return *bytes < 0 ? MPI_ERR_UNSUPPORTED_DATAREP : MPI_SUCCESS;
    }
    empi_datatype_t *image;
    int rc = empi_datarep_image(rep, dt, &image);
    if (rc == MPI_SUCCESS) {
        *bytes = count * image->size;
        empi_datatype_release(image);
    }
    return rc;
}

/* MPI_CONVERSION_FN_NULL copies bytes as they are: it cannot serve a type whose size rep changes. */
static int native_fits(const empi_datarep_t *rep, empi_datatype_t *dt)
{
    MPI_Count one;
    return !rep || (empi_datarep_file_bytes(rep, dt, 1, &one) == MPI_SUCCESS && one == dt->size);
}

/* Native representation through a user datarep registered with MPI_CONVERSION_FN_NULL. */
static int is_native(const empi_datarep_t *rep, int to_file)
{
    if (!rep)
        return 1;
    if (rep->external32)
        return 0;
    return to_file ? !rep->write_fn && !rep->write_fn_c : !rep->read_fn && !rep->read_fn_c;
}

/* A user conversion of `items` basic items of the type signature, position too (standard). */
static int user_convert_items(const empi_datarep_t *rep, int to_file, void *buf, empi_datatype_t *dt, MPI_Count items,
                              void *filebuf, MPI_Offset position)
{
    MPI_Datarep_conversion_function *fn = to_file ? rep->write_fn : rep->read_fn;
    MPI_Datarep_conversion_function_c *fn_c = to_file ? rep->write_fn_c : rep->read_fn_c;
    int rc;
    if (fn_c)
        rc = fn_c(buf, dt->handle, items, filebuf, position, rep->extra_state);
    else if (items > INT32_MAX)
        return MPI_ERR_CONVERSION;
    else
        rc = fn(buf, dt->handle, (int)items, filebuf, position, rep->extra_state);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_CONVERSION;
}

int empi_datarep_to_file(const empi_datarep_t *rep, const void *buf, MPI_Count count, empi_datatype_t *dt,
                         void *filebuf, MPI_Count filebytes, MPI_Offset position)
{
    if (is_native(rep, 1)) {
        if (!native_fits(rep, dt))
            return MPI_ERR_UNSUPPORTED_DATAREP;
        empi_dt_pack(buf, count, dt, 0, filebuf, filebytes);
        return MPI_SUCCESS;
    }
    if (!rep->external32) {
        MPI_Count items = empi_dt_elements_in(dt, count * dt->size);
        return items < 0 ? MPI_ERR_CONVERSION : user_convert_items(rep, 1, (void *)buf, dt, items, filebuf, position);
    }
    MPI_Count bytes = count * dt->size;
    char *native = malloc((size_t)(bytes ? bytes : 1));
    if (!native)
        return MPI_ERR_NO_MEM;
    empi_dt_pack(buf, count, dt, 0, native, bytes);
    empi_dt_external32_convert(dt, count, native, filebuf, 1);
    free(native);
    return MPI_SUCCESS;
}

int empi_datarep_from_file(const empi_datarep_t *rep, void *buf, MPI_Count count, empi_datatype_t *dt,
                           const void *filebuf, MPI_Count filebytes, MPI_Offset position)
{
    if (is_native(rep, 0)) {
        if (!native_fits(rep, dt))
            return MPI_ERR_UNSUPPORTED_DATAREP;
        empi_dt_unpack(buf, count, dt, 0, filebuf, filebytes);
        return MPI_SUCCESS;
    }
    /* A stream cut short by the end of the file ends in a part of an element: where the file
       keeps dt's size its whole basic items are delivered (the caller trimmed it so), otherwise
       only whole elements are. */
    MPI_Count one;
    int rc = empi_datarep_file_bytes(rep, dt, 1, &one);
    if (rc != MPI_SUCCESS || one <= 0)
        return rc;
    MPI_Count whole = filebytes / one, rest = one == dt->size ? filebytes - whole * one : 0;
    MPI_Count bytes = whole * dt->size + rest;
    if (!rep->external32) {
        MPI_Count items = empi_dt_elements_in(dt, bytes);
        return items < 0 ? MPI_ERR_CONVERSION : user_convert_items(rep, 0, buf, dt, items, (void *)filebuf, position);
    }
    /* external32 converts whole elements: a last partial one is converted from a zero-padded copy
       and only its bytes read are delivered */
    char *native = malloc((size_t)(whole + (rest > 0)) * (size_t)dt->size + 1);
    char *last = rest > 0 ? calloc(1, (size_t)one) : NULL;
    if (!native || (rest > 0 && !last)) {
        free(native);
        free(last);
        return MPI_ERR_NO_MEM;
    }
    empi_dt_external32_convert(dt, whole, native, (void *)filebuf, 0);
    if (rest > 0) {
        memcpy(last, (const char *)filebuf + whole * one, (size_t)rest);
        empi_dt_external32_convert(dt, 1, native + whole * dt->size, last, 0);
    }
    empi_dt_unpack(buf, count, dt, 0, native, bytes);
    free(native);
    free(last);
    return MPI_SUCCESS;
}

static int register_datarep(const char *fname, const char *datarep, const empi_datarep_t *fns)
{
    if (!datarep)
        return empi_err_file(NULL, MPI_ERR_ARG, "%s: datarep is NULL", fname);
    if (strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return empi_err_file(NULL, MPI_ERR_ARG, "%s: datarep '%s' is longer than MPI_MAX_DATAREP_STRING-1", fname,
                             datarep);
    if (!fns->extent_fn)
        return empi_err_file(NULL, MPI_ERR_ARG, "%s: dtype_file_extent_fn is NULL", fname);
    registered_t *r = malloc(sizeof *r);
    if (!r)
        return empi_err_file(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fname);
    r->rep = *fns;
    strcpy(r->rep.name, datarep);
    pthread_mutex_lock(&registry_lock);
    int dup = !strcmp(datarep, "native") || !strcmp(datarep, "internal") || !strcmp(datarep, "external32");
    for (registered_t *p = registry; p && !dup; p = p->next)
        dup = !strcmp(p->rep.name, datarep);
    if (!dup) {
        r->next = registry;
        registry = r;
    }
    pthread_mutex_unlock(&registry_lock);
    if (dup) {
        free(r);
        return empi_err_file(NULL, MPI_ERR_DUP_DATAREP, "%s: data representation '%s' is already defined", fname,
                             datarep);
    }
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Register_datarep)
int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    empi_datarep_t fns = {.read_fn = read_conversion_fn, .write_fn = write_conversion_fn,
                          .extent_fn = dtype_file_extent_fn, .extra_state = extra_state};
    return register_datarep("MPI_Register_datarep", datarep, &fns);
}

EMPI_WEAK_ALIAS(Register_datarep_c)
int PMPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    empi_datarep_t fns = {.read_fn_c = read_conversion_fn, .write_fn_c = write_conversion_fn,
                          .extent_fn = dtype_file_extent_fn, .extra_state = extra_state};
    return register_datarep("MPI_Register_datarep_c", datarep, &fns);
}
