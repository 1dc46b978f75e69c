/*
 * Errors at the API boundary. Internal code detects a problem, then raises it on the object the
 * call was about: the message is formatted once (naming the call and the bad argument), stored
 * behind a fresh error code of the right class, and the object's error handler decides what
 * happens (abort the job, return the code, or call the user's function).
 *
 * Error codes: 0..EMPI_ERR_CLASS_LIMIT-1 are classes; codes in [64, MPI_ERR_LASTCODE] carry a
 * message from a ring of recent errors and encode their class in the low 6 bits; user-added
 * classes and codes (MPI_Add_error_class/code) start above MPI_ERR_LASTCODE.
 */
#ifndef EMPI_ERROR_H
#define EMPI_ERROR_H

#include "mpi.h"

struct empi_comm;
struct empi_win;
struct empi_file;
struct empi_errhandler;

#define EMPI_ERR_CLASS_LIMIT 64   /* predefined classes are below this */

int empi_err_comm(struct empi_comm *comm, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int empi_err_win(struct empi_win *win, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* File errors: the file's handler, or MPI_FILE_NULL's when file is NULL (default MPI_ERRORS_RETURN). */
int empi_err_file(struct empi_file *file, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Set by the I/O layer: the handler of a file (NULL: MPI_FILE_NULL's) and its handle. */
extern struct empi_errhandler *(*empi_file_errhandler_hook)(struct empi_file *file, MPI_File *handle_out);
/* Errors tied to no communicator, window or file: raised on MPI_COMM_SELF, as the standard says. */
int empi_err_noobj(int errclass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Raise on any handler: sessions, and objects whose layer keeps its own (kind: empi_eh_kind_t). */
int empi_err_handler(struct empi_errhandler *eh, int kind, void *handle_ptr, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Invoke an error handler for an existing code (MPI_Comm_call_errhandler and friends). */
int empi_errhandler_invoke(struct empi_errhandler *eh, int kind, void *handle_ptr, int code);

/* Class of any valid code; -1 if the code is not one we know. */
int empi_error_class_of(int code);
/* Message of a code into buf (MPI_MAX_ERROR_STRING); returns length, or -1 for unknown codes. */
int empi_error_string_of(int code, char *buf);

/* A message for the standard's class names (used when a code carries no message of its own). */
const char *empi_error_class_text(int errclass);

/* Print "EtherMPI: fatal error: msg" and end the job through the launcher. */
_Noreturn void empi_fatal(int code, const char *msg);

/* Report an unimplemented ABI function: MPI_ERR_UNSUPPORTED_OPERATION through the handler of
   the call's communicator, or of MPI_COMM_SELF when it has none (src/abi/unsupported.c). */
int empi_unsupported(const char *fname);
int empi_unsupported_on_comm(MPI_Comm comm, const char *fname);

/* Argument checks shared by many calls return MPI_SUCCESS or the raised code. */
#define EMPI_CHECK(expr)                  \
    do {                                  \
        int empi_check_rc_ = (expr);      \
        if (empi_check_rc_ != MPI_SUCCESS) \
            return empi_check_rc_;        \
    } while (0)

/*
 * MPI_{Comm,Type,Win}_get_name on the object's null handle: its predefined name ("MPI_COMM_NULL"
 * and so on), as users and tools ask for it even though the standard names only live objects.
 */
int empi_name_of_null(const char *fname, const char *null_name, char *name, int *resultlen);

#endif
