/*
 * Stand-ins for the parts of the library the core unit tests do not link: this "process" is world
 * rank 1 of 4, and MPI_COMM_SELF returns errors (MPI_ERRORS_RETURN) so tests can check them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "comm/comm.h"
#include "core/error.h"
#include "core/global.h"

empi_global_t empi_g = {.boot = {.rank = 1, .size = 4}};
pthread_mutex_t empi_big_lock = PTHREAD_MUTEX_INITIALIZER;
_Thread_local int empi_big_lock_depth;

empi_comm_t empi_comm_world = {.obj = {EMPI_MAGIC_COMM, 1}, .errhandler = &empi_errhandler_return,
                               .handle = MPI_COMM_WORLD, .name = "MPI_COMM_WORLD"};
empi_comm_t empi_comm_self = {.obj = {EMPI_MAGIC_COMM, 1}, .errhandler = &empi_errhandler_return,
                              .handle = MPI_COMM_SELF, .name = "MPI_COMM_SELF"};

empi_comm_t *empi_comm_get(MPI_Comm h)
{
    return h == MPI_COMM_WORLD ? &empi_comm_world : h == MPI_COMM_SELF ? &empi_comm_self : NULL;
}

int empi_comm_check(MPI_Comm h, const char *fname, empi_comm_t **out)
{
    *out = empi_comm_get(h);
    return *out ? MPI_SUCCESS : empi_err_noobj(MPI_ERR_COMM, "%s: invalid communicator", fname);
}

void empi_boot_abort(int errorcode, const char *msg)
{
    fprintf(stderr, "unit test: abort(%d): %s\n", errorcode, msg);
    exit(99);
}
