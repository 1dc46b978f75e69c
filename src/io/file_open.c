/*
 * Opening, closing and deleting files, and the file handle's plain attributes (group, amode, info,
 * integer conversion). MPI_File_open is collective: the communicator is duplicated so the file's
 * own collectives (ordered access, two-phase I/O) never meet the user's traffic; the creating
 * open happens on rank 0 first so MPI_MODE_EXCL means "no one had created it", then the others
 * open the file that now exists, and every process learns whether all of them succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll/coll_api.h"
#include "core/global.h"
#include "io/io.h"

static empi_pool_t file_pool = EMPI_POOL_INITIALIZER(empi_file_t, "file");

int empi_file_check(MPI_File fh, const char *fname, empi_file_t **out)
{
    *out = NULL;
    if (fh == MPI_FILE_NULL || empi_handle_is_predefined(fh) || ((empi_file_t *)fh)->obj.magic != EMPI_MAGIC_FILE)
        return empi_err_file(NULL, MPI_ERR_FILE, "%s: %s", fname,
                             fh == MPI_FILE_NULL ? "the file is MPI_FILE_NULL" : "invalid file handle");
    *out = (empi_file_t *)fh;
    return MPI_SUCCESS;
}

int empi_io_errno_class(int err)
{
    switch (err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP: return MPI_ERR_BAD_FILE;
    case EBUSY:
    case ETXTBSY: return MPI_ERR_FILE_IN_USE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    case EBADF: return MPI_ERR_ACCESS;   /* writing a read-only descriptor and the like */
    default: return MPI_ERR_IO;
    }
}

static int check_amode(int amode, const char **why)
{
    int modes = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    const int known = MPI_MODE_APPEND | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_EXCL |
                      MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL | MPI_MODE_UNIQUE_OPEN |
                      MPI_MODE_WRONLY;
    *why = NULL;
    if (amode & ~known)
        *why = "it has bits that are no MPI_MODE_ flag";
    else if (modes != 1)
        *why = "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is required";
    else if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        *why = "MPI_MODE_RDONLY cannot be combined with MPI_MODE_CREATE or MPI_MODE_EXCL";
    else if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        *why = "MPI_MODE_RDWR cannot be combined with MPI_MODE_SEQUENTIAL";
    return *why ? MPI_ERR_AMODE : MPI_SUCCESS;
}

int empi_io_allmax(empi_comm_t *comm, const char *fname, int *vals, int n)
{
    return empi_coll_red(fname, EMPI_COLL_ALLREDUCE, MPI_IN_PLACE, vals, n, MPI_INT, MPI_MAX, 0, comm->handle,
                         EMPI_COLL_BLOCKING, NULL);
}

/* Creation permissions: the "file_perm" hint (octal), else 0666 minus the umask. */
static mode_t creation_mode(const empi_info_t *info)
{
    const char *perm = info ? empi_info_lookup(info, "file_perm") : NULL;
    if (perm) {
        char *end;
        long v = strtol(perm, &end, 8);
        if (*end == '\0' && v >= 0 && v <= 07777)
            return (mode_t)v;
    }
    return 0666;
}

/* Open on every process (rank 0 first when creating); returns the first failure's class on all. */
static int open_everywhere(empi_file_t *f, const char *filename, const empi_info_t *info, int *err_out)
{
    int flags = (f->amode & MPI_MODE_RDONLY) ? O_RDONLY : (f->amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
    int creating = (f->amode & MPI_MODE_CREATE) != 0;
    int cls[2] = {MPI_SUCCESS, 0};   /* class, errno */
    f->fd = -1;
    if (creating && f->comm->rank == 0) {
        f->fd = open(filename, flags | O_CREAT | ((f->amode & MPI_MODE_EXCL) ? O_EXCL : 0) | O_CLOEXEC,
                     creation_mode(info));
        if (f->fd < 0)
            cls[0] = empi_io_errno_class(errno), cls[1] = errno;
    }
    if (creating) {
        int rc = empi_coll_bcast("MPI_File_open", cls, 2, MPI_INT, 0, f->comm->handle, EMPI_COLL_BLOCKING, NULL);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (cls[0] == MPI_SUCCESS && f->fd < 0) {
        f->fd = open(filename, flags | O_CLOEXEC);
        if (f->fd < 0)
            cls[0] = empi_io_errno_class(errno), cls[1] = errno;
    }
    int rc = empi_io_allmax(f->comm, "MPI_File_open", cls, 2);
    if (rc != MPI_SUCCESS)
        return rc;
    *err_out = cls[1];
    return cls[0];
}

static void file_free(empi_file_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    empi_shared_close(f);
    empi_view_free(&f->view);
    empi_info_release(f->info);
    empi_errhandler_release(f->errhandler);
    if (f->comm)
        empi_comm_release(f->comm);
    free(f->filename);
    empi_lock();
    empi_pool_free(&file_pool, f);
    empi_unlock();
}

/* A private duplicate of comm whose errors come back as codes (the file's handler reports them). */
static int private_comm(empi_comm_t *c, empi_comm_t **out)
{
    empi_lock();
    int rc = empi_comm_create_from(c, c->group, out);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return rc;
    empi_errhandler_release((*out)->errhandler);
    (*out)->errhandler = &empi_errhandler_return;
    return MPI_SUCCESS;
}

static int file_stat_size(empi_file_t *f, MPI_Offset *size)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return empi_io_errno_class(errno);
    *size = (MPI_Offset)st.st_size;
    return MPI_SUCCESS;
}

static int open_file(empi_comm_t *c, const char *filename, int amode, const empi_info_t *info, empi_file_t **out)
{
    empi_lock();
    empi_file_t *f = empi_pool_alloc(&file_pool);
    empi_unlock();
    if (!f)
        return empi_err_file(NULL, MPI_ERR_NO_MEM, "MPI_File_open: out of memory");
    f->obj.magic = EMPI_MAGIC_FILE;
    f->obj.refcount = 1;
    f->handle = (MPI_File)f;
    f->fd = -1;
    f->amode = amode;
    f->errhandler = empi_file_default_errhandler();
    f->filename = strdup(filename);
    int rc = private_comm(c, &f->comm);
    if (rc != MPI_SUCCESS) {
        file_free(f);
        return empi_err_file(NULL, rc, "MPI_File_open: could not duplicate the communicator");
    }
    rc = f->filename ? empi_view_init_default(&f->view) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = empi_file_apply_hints(f, info);
    if (rc != MPI_SUCCESS) {
        file_free(f);
        return empi_err_file(NULL, rc, "MPI_File_open: out of memory");
    }
    int same[2] = {amode, -amode};
    rc = empi_io_allmax(f->comm, "MPI_File_open", same, 2);
    if (rc == MPI_SUCCESS && same[0] != -same[1])
        rc = MPI_ERR_NOT_SAME;
    if (rc != MPI_SUCCESS) {
        file_free(f);
        return empi_err_file(NULL, rc, "MPI_File_open: %s",
                             rc == MPI_ERR_NOT_SAME ? "amode differs between the processes" : "communication failed");
    }
    int err = 0;
    rc = open_everywhere(f, filename, info, &err);
    if (rc != MPI_SUCCESS) {
        file_free(f);
        return empi_err_file(NULL, rc, "MPI_File_open: cannot open '%s'%s%s", filename, err ? ": " : "",
                             err ? strerror(err) : " on every process");
    }
    MPI_Offset start = 0;
    if ((amode & MPI_MODE_APPEND) && (rc = file_stat_size(f, &start)) != MPI_SUCCESS) {
        file_free(f);
        return empi_err_file(NULL, rc, "MPI_File_open: cannot find the size of '%s'", filename);
    }
    f->ind_pos = start;
    rc = empi_shared_open(f, start);
    if (rc != MPI_SUCCESS) {
        file_free(f);
        return empi_err_file(NULL, rc, "MPI_File_open: cannot set up the shared file pointer of '%s'", filename);
    }
    *out = f;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_open)
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    static const char fname[] = "MPI_File_open";
    empi_comm_t *c = empi_comm_get(comm);
    if (!c)
        return empi_err_file(NULL, MPI_ERR_COMM, "%s: invalid communicator", fname);
    if (empi_comm_is_inter(c))
        return empi_err_file(NULL, MPI_ERR_COMM, "%s: comm is an intercommunicator; files are opened over "
                                                 "intracommunicators", fname);
    if (!fh)
        return empi_err_file(NULL, MPI_ERR_ARG, "%s: fh is NULL", fname);
    if (!filename)
        return empi_err_file(NULL, MPI_ERR_BAD_FILE, "%s: filename is NULL", fname);
    const char *why;
    if (check_amode(amode, &why) != MPI_SUCCESS)
        return empi_err_file(NULL, MPI_ERR_AMODE, "%s: amode %d: %s", fname, amode, why);
    empi_info_t *hints = NULL;
    if (info != MPI_INFO_NULL && !(hints = empi_info_get(info)))
        return empi_err_file(NULL, MPI_ERR_INFO, "%s: invalid info %p", fname, (void *)info);
    empi_file_t *f = NULL;
    int rc = open_file(c, filename, amode, hints, &f);
    *fh = f ? f->handle : MPI_FILE_NULL;
    return rc;
}

EMPI_WEAK_ALIAS(File_close)
int PMPI_File_close(MPI_File *fh)
{
    static const char fname[] = "MPI_File_close";
    if (!fh)
        return empi_err_file(NULL, MPI_ERR_ARG, "%s: fh is NULL", fname);
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(*fh, fname, &f));
    if (f->split.active)
        return empi_err_file(f, MPI_ERR_OTHER, "%s: the split collective %s has not been ended", fname,
                             f->split.begin_name);
    /* A synchronization point of the consistency semantics, and DELETE_ON_CLOSE waits for everyone. */
    int rc = empi_coll_barrier(fname, f->comm->handle, EMPI_COLL_BLOCKING, NULL);
    int unlink_err = 0;
    if (rc == MPI_SUCCESS && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->comm->rank == 0 &&
        unlink(f->filename) != 0 && errno != ENOENT)
        unlink_err = errno;
    /* Errors after this point are reported on MPI_FILE_NULL: the file is gone. */
    char msg[MPI_MAX_ERROR_STRING];
    if (unlink_err)
        snprintf(msg, sizeof msg, "%s: cannot delete '%s' on close: %s", fname, f->filename, strerror(unlink_err));
    file_free(f);
    *fh = MPI_FILE_NULL;
    if (rc != MPI_SUCCESS)
        return empi_err_file(NULL, rc, "%s: the closing barrier failed", fname);
    if (unlink_err)
        return empi_err_file(NULL, empi_io_errno_class(unlink_err), "%s", msg);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_delete)
int PMPI_File_delete(const char *filename, MPI_Info info)
{
    static const char fname[] = "MPI_File_delete";
    if (!filename)
        return empi_err_file(NULL, MPI_ERR_BAD_FILE, "%s: filename is NULL", fname);
    if (info != MPI_INFO_NULL && !empi_info_get(info))
        return empi_err_file(NULL, MPI_ERR_INFO, "%s: invalid info %p", fname, (void *)info);
    if (unlink(filename) != 0) {
        int err = errno;
        return empi_err_file(NULL, empi_io_errno_class(err), "%s: cannot delete '%s': %s", fname, filename,
                             strerror(err));
    }
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_get_group)
int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_get_group", &f));
    if (!group)
        return empi_err_file(f, MPI_ERR_ARG, "MPI_File_get_group: group is NULL");
    empi_group_retain(f->comm->group);
    *group = f->comm->group->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_get_amode)
int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_get_amode", &f));
    if (!amode)
        return empi_err_file(f, MPI_ERR_ARG, "MPI_File_get_amode: amode is NULL");
    *amode = f->amode;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_toint)
int PMPI_File_toint(MPI_File file)
{
    return empi_handle_toint(file);
}

EMPI_WEAK_ALIAS(File_fromint)
MPI_File PMPI_File_fromint(int file)
{
    void *h = empi_handle_fromint(file);
    return h ? (MPI_File)h : MPI_FILE_NULL;
}
