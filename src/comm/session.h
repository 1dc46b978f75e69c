/*
 * MPI sessions (MPI-4 §11.3): a handle on the shared MPI layers (core/init.c keeps them up while
 * any session or the world model uses them), with its own error handler, thread level and
 * buffered-send buffer. Process sets: "mpi://WORLD" and "mpi://SELF".
 */
#ifndef EMPI_SESSION_H
#define EMPI_SESSION_H

#include <stddef.h>

#include "core/errhandler.h"
#include "core/object.h"
#include "mpi.h"

struct empi_bsend_buffer;

typedef struct empi_session {
    empi_object_t obj;
    MPI_Session handle;
    empi_errhandler_t *errhandler;
    int thread_level;
    struct empi_bsend_buffer *buffer;   /* MPI_Session_attach_buffer, or NULL */
} empi_session_t;

/* Handle -> object; NULL if invalid, finalized or MPI_SESSION_NULL. */
empi_session_t *empi_session_get(MPI_Session h);

/* Validate a session argument; raises MPI_ERR_SESSION (no session to raise on: MPI_COMM_SELF's rule). */
int empi_session_check(MPI_Session h, const char *fname, empi_session_t **out);

/* Raise on the session's error handler. */
int empi_err_session(empi_session_t *s, int errclass, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
