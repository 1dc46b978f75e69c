/*
 * Helpers of the MPI-IO tests: a unique file name under $TMPDIR (or /tmp) agreed by all ranks of
 * MPI_COMM_WORLD, and removal of it at the end; making writes visible; a widening representation. Standard MPI only, like every MPI-program test.
 */
#ifndef EMPI_IO_TEST_H
#define EMPI_IO_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "empi_test.h"

#define IO_PATH_MAX 512

/* Rank 0 picks "<tmpdir>/empi-io-<test>-<pid>-<n>"; every rank gets the same name. */
static inline void io_test_path(char *path, const char *test)
{
    static int serial;
    if (empi_rank() == 0) {
        const char *dir = getenv("TMPDIR");
        if (!dir || !*dir)
            dir = "/tmp";
        snprintf(path, IO_PATH_MAX, "%s/empi-io-%s-%ld-%d", dir, test, (long)getpid(), serial);
    }
    serial++;
    CHECK_MPI(MPI_Bcast(path, IO_PATH_MAX, MPI_CHAR, 0, MPI_COMM_WORLD));
}

/* Remove the file once every rank is done with it (a missing file is fine). */
static inline void io_test_remove(const char *path)
{
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (empi_rank() == 0)
        unlink(path);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* Every rank's writes visible to every rank: sync, barrier, sync (MPI 4.1, 14.6.1). */
static inline void io_test_sync(MPI_File fh)
{
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_sync(fh));
}

/* The extent function of a test representation that stores each MPI_INT in 8 bytes. */
static inline int io_test_int64_extent(MPI_Datatype dt, MPI_Aint *extent, void *state)
{
    (void)state;
    int size;
    MPI_Type_size(dt, &size);
    *extent = dt == MPI_INT ? 8 : size;
    return MPI_SUCCESS;
}

/* Does the file exist (checked by every rank). */
static inline int io_test_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

#endif
