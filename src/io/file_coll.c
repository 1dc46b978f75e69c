/*
 * Collective data access (the *_all calls and ordered access).
 */
#include "core/global.h"
#include "io/io.h"

int empi_io_collective(empi_io_call_t *c, MPI_Count *bytes)
{
    return empi_io_access(c->f, c->dir, c->offset, c->buf, c->count, c->dt, bytes);
}
