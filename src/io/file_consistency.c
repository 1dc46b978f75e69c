/*
 * File size and consistency: MPI_File_set_size, preallocate, get_size, sync and the atomicity
 * mode. Size changes are made once (by rank 0) and every process learns the outcome, so they all
 * return the same error. Atomic mode is honoured in io_engine.c with byte-range locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll/coll_api.h"
#include "core/global.h"
#include "io/io.h"

int empi_file_size(empi_file_t *f, const char *fname, MPI_Offset *size)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0) {
        int err = errno;
        return empi_err_file(f, empi_io_errno_class(err), "%s: cannot find the size of '%s': %s", fname, f->filename,
                             strerror(err));
    }
    *size = (MPI_Offset)st.st_size;
    return MPI_SUCCESS;
}

/* Checks shared by set_size and preallocate, which change the file for everyone. */
static int check_resize(empi_file_t *f, const char *fname, MPI_Offset size)
{
    if (size < 0)
        return empi_err_file(f, MPI_ERR_ARG, "%s: size %lld is negative", fname, (long long)size);
    if (f->amode & MPI_MODE_RDONLY)
        return empi_err_file(f, MPI_ERR_READ_ONLY, "%s: the file was opened MPI_MODE_RDONLY", fname);
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return empi_err_file(f, MPI_ERR_UNSUPPORTED_OPERATION, "%s: not allowed on a file opened MPI_MODE_SEQUENTIAL",
                             fname);
    return MPI_SUCCESS;
}

/* Rank 0 resizes; everyone returns its outcome. grow_only: never shrink (preallocate). */
static int resize(const char *fname, MPI_File fh, MPI_Offset size, int grow_only)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, fname, &f));
    EMPI_CHECK(check_resize(f, fname, size));
    /* Everyone must ask for the same size, and be done with the old size before it changes. */
    long long same[2] = {size, -size};
    int rc = empi_coll_red(fname, EMPI_COLL_ALLREDUCE, MPI_IN_PLACE, same, 2, MPI_LONG_LONG, MPI_MAX, 0,
                           f->comm->handle, EMPI_COLL_BLOCKING, NULL);
    if (rc != MPI_SUCCESS)
        return empi_err_file(f, rc, "%s: synchronizing the processes failed", fname);
    if (same[0] != -same[1])
        return empi_err_file(f, MPI_ERR_NOT_SAME, "%s: size differs between the processes", fname);
    int err[2] = {MPI_SUCCESS, 0};
    if (f->comm->rank == 0) {
        int e = 0;
        if (grow_only) {
            if (size > 0)
                e = posix_fallocate(f->fd, 0, (off_t)size);   /* returns the error, not -1 */
        } else if (ftruncate(f->fd, (off_t)size) != 0) {
            e = errno;
        }
        if (e)
            err[0] = empi_io_errno_class(e), err[1] = e;
    }
    rc = empi_io_allmax(f->comm, fname, err, 2);
    if (rc == MPI_SUCCESS)
        rc = err[0];
    if (rc != MPI_SUCCESS)
        return empi_err_file(f, rc, "%s: cannot make '%s' %lld bytes%s%s", fname, f->filename, (long long)size,
                             err[1] ? ": " : "", err[1] ? strerror(err[1]) : "");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_set_size)
int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    return resize("MPI_File_set_size", fh, size, 0);
}

EMPI_WEAK_ALIAS(File_preallocate)
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    return resize("MPI_File_preallocate", fh, size, 1);
}

EMPI_WEAK_ALIAS(File_get_size)
int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_get_size", &f));
    if (!size)
        return empi_err_file(f, MPI_ERR_ARG, "MPI_File_get_size: size is NULL");
    return empi_file_size(f, "MPI_File_get_size", size);
}

EMPI_WEAK_ALIAS(File_sync)
int PMPI_File_sync(MPI_File fh)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_sync", &f));
    if (f->split.active)
        return empi_err_file(f, MPI_ERR_OTHER, "MPI_File_sync: the split collective %s has not been ended",
                             f->split.begin_name);
    if (fsync(f->fd) != 0 && errno != EINVAL) {   /* EINVAL: a file that cannot be synced, like a pipe */
        int err = errno;
        return empi_err_file(f, empi_io_errno_class(err), "MPI_File_sync: fsync of '%s' failed: %s", f->filename,
                             strerror(err));
    }
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_set_atomicity)
int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_set_atomicity", &f));
    int vals[2] = {!!flag, !flag};
    int rc = empi_io_allmax(f->comm, "MPI_File_set_atomicity", vals, 2);
    if (rc != MPI_SUCCESS)
        return empi_err_file(f, rc, "MPI_File_set_atomicity: synchronizing the processes failed");
    if (vals[0] && vals[1])
        return empi_err_file(f, MPI_ERR_NOT_SAME, "MPI_File_set_atomicity: flag differs between the processes");
    f->atomic = !!flag;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_get_atomicity)
int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_get_atomicity", &f));
    if (!flag)
        return empi_err_file(f, MPI_ERR_ARG, "MPI_File_get_atomicity: flag is NULL");
    *flag = f->atomic;
    return MPI_SUCCESS;
}
