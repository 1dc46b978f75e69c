/*
 * The common path of every data access call: argument checks (file, datatype, access mode, which
 * file pointers the mode allows), choosing the offset from the explicit offset or a file pointer,
 * handing collective calls to the two-phase layer, and the status / error report. The API files
 * (explicit, individual, shared, nonblocking, split) only say which shape of call they are.
 */
#include "core/global.h"
#include "io/io.h"

int empi_io_call_check(empi_io_call_t *c, MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype)
{
    EMPI_CHECK(empi_file_check(fh, c->fname, &c->f));
    empi_file_t *f = c->f;
    const char *why = NULL;
    int rc = empi_datatype_check(datatype, count, &c->dt, &why);
    if (rc != MPI_SUCCESS)
        return empi_err_file(f, rc, "%s: %s", c->fname, why);
    /* (An ordered or collective call goes on with its group and fails its own access instead:
       returning alone would leave the others waiting.) */
    if (!c->collective && c->ptr != EMPI_IO_ORDERED && empi_buffer_missing(buf, count, c->dt))
        return empi_err_file(f, MPI_ERR_BUFFER, "%s: buf is NULL with %lld elements", c->fname, (long long)count);
    c->buf = (void *)buf;
    c->count = count;
    if (c->dir == EMPI_IO_WRITE && (f->amode & MPI_MODE_RDONLY))
        return empi_err_file(f, MPI_ERR_READ_ONLY, "%s: the file was opened MPI_MODE_RDONLY", c->fname);
    if (c->dir == EMPI_IO_READ && (f->amode & MPI_MODE_WRONLY))
        return empi_err_file(f, MPI_ERR_ACCESS, "%s: the file was opened MPI_MODE_WRONLY", c->fname);
    if ((f->amode & MPI_MODE_SEQUENTIAL) && (c->ptr == EMPI_IO_AT || c->ptr == EMPI_IO_INDIVIDUAL))
        return empi_err_file(f, MPI_ERR_UNSUPPORTED_OPERATION,
                             "%s: a file opened MPI_MODE_SEQUENTIAL has only the shared file pointer", c->fname);
    if (c->ptr == EMPI_IO_AT && c->offset < 0)
        return empi_err_file(f, MPI_ERR_ARG, "%s: offset %lld is negative", c->fname, (long long)c->offset);
    if (empi_datarep_file_bytes(f->view.rep, c->dt, count, &c->fbytes) != MPI_SUCCESS)
        return empi_err_file(f, MPI_ERR_UNSUPPORTED_DATAREP, "%s: data representation '%s' has no form for the datatype",
                             c->fname, f->view.datarep);
    if (c->fbytes > 0 && f->view.fsize == 0)
        return empi_err_file(f, MPI_ERR_ARG, "%s: the view's filetype holds no data, so no data can be accessed",
                             c->fname);
    if (c->fbytes % f->view.esize != 0)
        return empi_err_file(f, MPI_ERR_TYPE, "%s: %lld bytes of data are not a whole number of etypes (%lld bytes)",
                             c->fname, (long long)c->fbytes, (long long)f->view.esize);
    return MPI_SUCCESS;
}

static int run_access(empi_io_call_t *c, MPI_Count *bytes)
{
    empi_file_t *f = c->f;
    MPI_Offset etypes = c->fbytes / f->view.esize;
    switch (c->ptr) {
    case EMPI_IO_AT:
        if (c->collective)
            return empi_io_collective(c, bytes);
        return empi_io_access(c, bytes);
    case EMPI_IO_INDIVIDUAL: {
        c->offset = f->ind_pos;
        int rc = c->collective ? empi_io_collective(c, bytes)
                               : empi_io_access(c, bytes);
        /* the pointer moves past what was accessed (a short read moves it less) */
        f->ind_pos = c->offset + *bytes / f->view.esize;
        return rc;
    }
    case EMPI_IO_SHARED:
        /* the shared pointer moves by what was asked for, before the access: others go on past it */
        c->offset = empi_shared_fetch_add(f, (int64_t)etypes);
        return empi_io_access(c, bytes);
    case EMPI_IO_ORDERED:
        return empi_io_ordered(c, bytes);
    }
    return MPI_ERR_INTERN;
}

/* The memory bytes that file_bytes of c's access hold: whole elements where the representation
   changes the size of c's datatype. */
static MPI_Count memory_bytes(const empi_io_call_t *c, MPI_Count file_bytes)
{
    MPI_Count memory = c->count * c->dt->size;
    if (c->fbytes == memory || c->count == 0)
        return file_bytes;
    return file_bytes / (c->fbytes / c->count) * c->dt->size;
}

int empi_io_call_run(empi_io_call_t *c, MPI_Status *status)
{
    MPI_Count bytes = 0;
    /* No big lock around the I/O: system calls of several threads may overlap, and the
       collectives of two-phase I/O take it themselves (their waits must be able to drop it). */
    int rc = run_access(c, &bytes);
    if (rc != MPI_SUCCESS)
        return empi_err_file(c->f, rc, "%s: %s of '%s' failed", c->fname, c->dir == EMPI_IO_WRITE ? "write" : "read",
                             c->f->filename);
    empi_io_status(status, memory_bytes(c, bytes));
    return MPI_SUCCESS;
}

int empi_io_blocking(const char *fname, MPI_File fh, int dir, empi_io_ptr_t ptr, int collective, MPI_Offset offset,
                     const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
    empi_io_call_t c = {.fname = fname, .dir = dir, .ptr = ptr, .collective = collective, .offset = offset};
    EMPI_CHECK(empi_io_call_check(&c, fh, buf, count, datatype));
    if (collective && c.f->split.active)
        return empi_err_file(c.f, MPI_ERR_OTHER, "%s: the split collective %s has not been ended", fname,
                             c.f->split.begin_name);
    return empi_io_call_run(&c, status);
}
