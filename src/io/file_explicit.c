/*
 * Data access at explicit offsets: MPI_File_read_at / write_at and their collective (*_all) and
 * large-count (*_c) forms. Offsets count etypes from the start of the view; no file pointer moves.
 */
#include "core/global.h"
#include "io/io.h"

EMPI_WEAK_ALIAS(File_read_at)
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return empi_io_blocking("MPI_File_read_at", fh, EMPI_IO_READ, EMPI_IO_AT, 0, offset, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_read_at_c)
int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Status *status)
{
    return empi_io_blocking("MPI_File_read_at_c", fh, EMPI_IO_READ, EMPI_IO_AT, 0, offset, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_write_at)
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status)
{
    return empi_io_blocking("MPI_File_write_at", fh, EMPI_IO_WRITE, EMPI_IO_AT, 0, offset, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_write_at_c)
int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status)
{
    return empi_io_blocking("MPI_File_write_at_c", fh, EMPI_IO_WRITE, EMPI_IO_AT, 0, offset, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_read_at_all)
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return empi_io_blocking("MPI_File_read_at_all", fh, EMPI_IO_READ, EMPI_IO_AT, 1, offset, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_read_at_all_c)
int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return empi_io_blocking("MPI_File_read_at_all_c", fh, EMPI_IO_READ, EMPI_IO_AT, 1, offset, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_write_at_all)
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return empi_io_blocking("MPI_File_write_at_all", fh, EMPI_IO_WRITE, EMPI_IO_AT, 1, offset, buf, count, datatype,
                            status);
}

EMPI_WEAK_ALIAS(File_write_at_all_c)
int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    return empi_io_blocking("MPI_File_write_at_all_c", fh, EMPI_IO_WRITE, EMPI_IO_AT, 1, offset, buf, count, datatype,
                            status);
}
