/*
 * Split collective data access: MPI_File_{read,write}{_all,_at_all,_ordered}_begin / _end. The
 * begin call performs the whole collective access (it is collective, so two-phase aggregation may
 * run) and keeps its status; the end call hands it back. One split collective may be active per
 * file at a time, and its end must match its begin.
 */
#include <string.h>

#include "core/global.h"
#include "io/io.h"

static int begin(const char *fname, MPI_File fh, int dir, empi_io_ptr_t ptr, MPI_Offset offset, const void *buf,
                 MPI_Count count, MPI_Datatype datatype)
{
    empi_io_call_t c = {.fname = fname, .dir = dir, .ptr = ptr, .collective = 1, .offset = offset};
    EMPI_CHECK(empi_io_call_check(&c, fh, buf, count, datatype));
    empi_file_t *f = c.f;
    if (f->split.active)
        return empi_err_file(f, MPI_ERR_OTHER, "%s: the split collective %s is still active", fname,
                             f->split.begin_name);
    f->split.active = 1;
    /* the *_c begin pairs with the same end as the plain one */
    f->split.begin_name = fname;
    f->split.buf = buf;
    int rc = empi_io_call_run(&c, &f->split.status);
    f->split.active = rc == MPI_SUCCESS;   /* a failed begin leaves nothing to end */
    return rc;
}

static int end(const char *fname, const char *begin_name, MPI_File fh, const void *buf, MPI_Status *status)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, fname, &f));
    size_t n = strlen(begin_name);
    if (!f->split.active || strncmp(f->split.begin_name, begin_name, n) != 0 ||
        (f->split.begin_name[n] != '\0' && strcmp(f->split.begin_name + n, "_c") != 0))
        return empi_err_file(f, MPI_ERR_OTHER, "%s: no matching %s is active", fname, begin_name);
    if (buf != f->split.buf)
        return empi_err_file(f, MPI_ERR_BUFFER, "%s: buf is not the buffer given to %s", fname, begin_name);
    f->split.active = 0;
    if (status != MPI_STATUS_IGNORE)
        *status = f->split.status;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_read_all_begin)
int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return begin("MPI_File_read_all_begin", fh, EMPI_IO_READ, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_read_all_begin_c)
int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return begin("MPI_File_read_all_begin_c", fh, EMPI_IO_READ, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_read_all_end)
int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return end("MPI_File_read_all_end", "MPI_File_read_all_begin", fh, buf, status);
}

EMPI_WEAK_ALIAS(File_write_all_begin)
int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return begin("MPI_File_write_all_begin", fh, EMPI_IO_WRITE, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_write_all_begin_c)
int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return begin("MPI_File_write_all_begin_c", fh, EMPI_IO_WRITE, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_write_all_end)
int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return end("MPI_File_write_all_end", "MPI_File_write_all_begin", fh, buf, status);
}

EMPI_WEAK_ALIAS(File_read_at_all_begin)
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype)
{
    return begin("MPI_File_read_at_all_begin", fh, EMPI_IO_READ, EMPI_IO_AT, offset, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_read_at_all_begin_c)
int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return begin("MPI_File_read_at_all_begin_c", fh, EMPI_IO_READ, EMPI_IO_AT, offset, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_read_at_all_end)
int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return end("MPI_File_read_at_all_end", "MPI_File_read_at_all_begin", fh, buf, status);
}

EMPI_WEAK_ALIAS(File_write_at_all_begin)
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype)
{
    return begin("MPI_File_write_at_all_begin", fh, EMPI_IO_WRITE, EMPI_IO_AT, offset, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_write_at_all_begin_c)
int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype)
{
    return begin("MPI_File_write_at_all_begin_c", fh, EMPI_IO_WRITE, EMPI_IO_AT, offset, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_write_at_all_end)
int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return end("MPI_File_write_at_all_end", "MPI_File_write_at_all_begin", fh, buf, status);
}

EMPI_WEAK_ALIAS(File_read_ordered_begin)
int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return begin("MPI_File_read_ordered_begin", fh, EMPI_IO_READ, EMPI_IO_ORDERED, 0, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_read_ordered_begin_c)
int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return begin("MPI_File_read_ordered_begin_c", fh, EMPI_IO_READ, EMPI_IO_ORDERED, 0, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_read_ordered_end)
int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return end("MPI_File_read_ordered_end", "MPI_File_read_ordered_begin", fh, buf, status);
}

EMPI_WEAK_ALIAS(File_write_ordered_begin)
int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return begin("MPI_File_write_ordered_begin", fh, EMPI_IO_WRITE, EMPI_IO_ORDERED, 0, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_write_ordered_begin_c)
int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return begin("MPI_File_write_ordered_begin_c", fh, EMPI_IO_WRITE, EMPI_IO_ORDERED, 0, buf, count, datatype);
}

EMPI_WEAK_ALIAS(File_write_ordered_end)
int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return end("MPI_File_write_ordered_end", "MPI_File_write_ordered_begin", fh, buf, status);
}
