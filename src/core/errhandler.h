/* Error handler objects: predefined actions or a user function for one kind of object. */
#ifndef EMPI_ERRHANDLER_H
#define EMPI_ERRHANDLER_H

#include "core/object.h"
#include "mpi.h"

typedef enum { EMPI_EH_FATAL, EMPI_EH_ABORT, EMPI_EH_RETURN, EMPI_EH_USER } empi_eh_action_t;
typedef enum { EMPI_EH_KIND_ANY, EMPI_EH_KIND_COMM, EMPI_EH_KIND_WIN, EMPI_EH_KIND_FILE, EMPI_EH_KIND_SESSION } empi_eh_kind_t;

typedef struct empi_errhandler {
    empi_object_t obj;
    empi_eh_action_t action;
    empi_eh_kind_t kind;
    MPI_Errhandler handle;   /* what MPI_*_get_errhandler hands back */
    union {
        MPI_Comm_errhandler_function *comm_fn;
        MPI_Win_errhandler_function *win_fn;
        MPI_File_errhandler_function *file_fn;
        MPI_Session_errhandler_function *session_fn;
    } u;
} empi_errhandler_t;

extern empi_errhandler_t empi_errhandler_fatal, empi_errhandler_abort, empi_errhandler_return;

/* Handle -> object, or NULL if invalid (MPI_ERRHANDLER_NULL is invalid). */
empi_errhandler_t *empi_errhandler_get(MPI_Errhandler h);
void empi_errhandler_retain(empi_errhandler_t *eh);
void empi_errhandler_release(empi_errhandler_t *eh);

#endif
