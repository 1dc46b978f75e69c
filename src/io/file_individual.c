/*
 * Data access through the individual file pointer: MPI_File_read / write, their collective (*_all)
 * and large-count (*_c) forms, MPI_File_seek and MPI_File_get_position. The pointer counts etypes
 * of the current view and belongs to this process alone.
 */
#include "core/global.h"
#include "io/io.h"

EMPI_WEAK_ALIAS(File_read)
int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return empi_io_blocking("MPI_File_read", fh, EMPI_IO_READ, EMPI_IO_INDIVIDUAL, 0, 0, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_read_c)
int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
    return empi_io_blocking("MPI_File_read_c", fh, EMPI_IO_READ, EMPI_IO_INDIVIDUAL, 0, 0, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_write)
int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return empi_io_blocking("MPI_File_write", fh, EMPI_IO_WRITE, EMPI_IO_INDIVIDUAL, 0, 0, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_write_c)
int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
    return empi_io_blocking("MPI_File_write_c", fh, EMPI_IO_WRITE, EMPI_IO_INDIVIDUAL, 0, 0, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_read_all)
int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return empi_io_blocking("MPI_File_read_all", fh, EMPI_IO_READ, EMPI_IO_INDIVIDUAL, 1, 0, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_read_all_c)
int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
    return empi_io_blocking("MPI_File_read_all_c", fh, EMPI_IO_READ, EMPI_IO_INDIVIDUAL, 1, 0, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_write_all)
int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return empi_io_blocking("MPI_File_write_all", fh, EMPI_IO_WRITE, EMPI_IO_INDIVIDUAL, 1, 0, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_write_all_c)
int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
    return empi_io_blocking("MPI_File_write_all_c", fh, EMPI_IO_WRITE, EMPI_IO_INDIVIDUAL, 1, 0, buf, count, datatype,
                            status);
}

/* New pointer for a seek: whence MPI_SEEK_SET, MPI_SEEK_CUR (from cur) or MPI_SEEK_END (from the
   view's end of file); MPI_ERR_ARG for an unknown whence or a negative result. */
int empi_io_seek_target(empi_file_t *f, const char *fname, MPI_Offset cur, MPI_Offset offset, int whence,
                        MPI_Offset *out)
{
    MPI_Offset base;
    switch (whence) {
    case MPI_SEEK_SET: base = 0; break;
    case MPI_SEEK_CUR: base = cur; break;
    case MPI_SEEK_END: {
        MPI_Offset size;
        EMPI_CHECK(empi_file_size(f, fname, &size));
        /* an etype the end of file cuts in two counts as one before the end */
        base = (empi_view_stream_before(&f->view, size) + f->view.esize - 1) / f->view.esize;
        break;
    }
    default: return empi_err_file(f, MPI_ERR_ARG, "%s: whence %d is not MPI_SEEK_SET, _CUR or _END", fname, whence);
    }
    if (base + offset < 0)
        return empi_err_file(f, MPI_ERR_ARG, "%s: the new position %lld is before the start of the view", fname,
                             (long long)(base + offset));
    *out = base + offset;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_seek)
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_seek", &f));
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return empi_err_file(f, MPI_ERR_UNSUPPORTED_OPERATION,
                             "MPI_File_seek: a file opened MPI_MODE_SEQUENTIAL has no individual file pointer");
    MPI_Offset pos;
    EMPI_CHECK(empi_io_seek_target(f, "MPI_File_seek", f->ind_pos, offset, whence, &pos));
    f->ind_pos = pos;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_get_position)
int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_get_position", &f));
    if (!offset)
        return empi_err_file(f, MPI_ERR_ARG, "MPI_File_get_position: offset is NULL");
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return empi_err_file(f, MPI_ERR_UNSUPPORTED_OPERATION,
                             "MPI_File_get_position: a file opened MPI_MODE_SEQUENTIAL has no individual file pointer");
    *offset = f->ind_pos;
    return MPI_SUCCESS;
}
