/*
 * Error handlers of files. Unlike communicators, files default to MPI_ERRORS_RETURN (I/O errors
 * are often recoverable). The handler attached to MPI_FILE_NULL handles errors of calls that have
 * no file yet (MPI_File_open, MPI_File_delete) and is the one a newly opened file starts with.
 */
#include "core/global.h"
#include "io/io.h"

/* MPI_FILE_NULL's handler; NULL means the initial MPI_ERRORS_RETURN. */
static empi_errhandler_t *file_null_handler;

static empi_errhandler_t *default_handler(void)
{
    return file_null_handler ? file_null_handler : &empi_errhandler_return;
}

static empi_errhandler_t *handler_of(struct empi_file *file, MPI_File *handle_out)
{
    if (!file)
        return default_handler();
    *handle_out = file->handle;
    return file->errhandler ? file->errhandler : &empi_errhandler_return;
}

/* Installed before main: file errors can be raised before any file exists. */
__attribute__((constructor)) static void install_hook(void)
{
    empi_file_errhandler_hook = handler_of;
}

empi_errhandler_t *empi_file_default_errhandler(void)
{
    empi_errhandler_t *eh = default_handler();
    empi_errhandler_retain(eh);
    return eh;
}

/* The file argument of the errhandler calls may be MPI_FILE_NULL; *f is NULL then. */
static int check_file_or_null(MPI_File fh, const char *fname, empi_file_t **f)
{
    *f = NULL;
    if (fh == MPI_FILE_NULL)
        return MPI_SUCCESS;
    return empi_file_check(fh, fname, f);
}

EMPI_WEAK_ALIAS(File_set_errhandler)
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    empi_file_t *f;
    EMPI_CHECK(check_file_or_null(file, "MPI_File_set_errhandler", &f));
    empi_errhandler_t *eh = empi_errhandler_get(errhandler);
    if (!eh)
        return empi_err_file(f, MPI_ERR_ERRHANDLER, "MPI_File_set_errhandler: invalid error handler %p", (void *)errhandler);
    if (eh->kind != EMPI_EH_KIND_ANY && eh->kind != EMPI_EH_KIND_FILE)
        return empi_err_file(f, MPI_ERR_ARG, "MPI_File_set_errhandler: the error handler was not created for files");
    empi_lock();
    empi_errhandler_t **slot = f ? &f->errhandler : &file_null_handler;
    empi_errhandler_t *old = *slot;
    empi_errhandler_retain(eh);
    *slot = eh;
    empi_unlock();
    empi_errhandler_release(old);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_get_errhandler)
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    empi_file_t *f;
    EMPI_CHECK(check_file_or_null(file, "MPI_File_get_errhandler", &f));
    if (!errhandler)
        return empi_err_file(f, MPI_ERR_ARG, "MPI_File_get_errhandler: errhandler is NULL");
    empi_lock();
    MPI_File ignored;
    empi_errhandler_t *eh = handler_of(f, &ignored);
    /* The caller receives a new reference, released by MPI_Errhandler_free. */
    empi_errhandler_retain(eh);
    *errhandler = eh->handle;
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_call_errhandler)
int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    empi_file_t *f;
    EMPI_CHECK(check_file_or_null(fh, "MPI_File_call_errhandler", &f));
    if (empi_error_class_of(errorcode) < 0)
        return empi_err_file(f, MPI_ERR_ARG, "MPI_File_call_errhandler: %d is not a valid error code", errorcode);
    MPI_File handle = MPI_FILE_NULL;
    empi_errhandler_t *eh = handler_of(f, &handle);
    empi_errhandler_invoke(eh, EMPI_EH_KIND_FILE, &handle, errorcode);
    /* The standard: success once the handler has been called and returned. */
    return MPI_SUCCESS;
}
