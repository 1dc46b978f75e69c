/*
 * Error codes and their messages.
 *
 * A raised error gets a fresh code whose low 6 bits are its class and whose upper bits select a
 * slot in a ring of recent messages, so MPI_Error_string can return the exact text ("MPI_Send:
 * count -1 is negative") long after the call returned, with no allocation per error. The ring is
 * small: a code older than the ring's length falls back to its class's text, which is still right.
 *
 * User classes and codes (MPI_Add_error_class/code) live above MPI_ERR_LASTCODE in a table of
 * their own, since they must stay valid until removed.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "core/errhandler.h"
#include "core/error.h"
#include "core/global.h"

/* ---- the ring of recent messages ---- */

#define RING_SLOTS ((MPI_ERR_LASTCODE + 1) / EMPI_ERR_CLASS_LIMIT) /* 256; slot 0 is the classes */
/* Slot 15 holds codes 960..1023, which overlap the MPI_T error codes 1001..1018: never hand it out. */
#define RING_SKIPPED_SLOT (1001 / EMPI_ERR_CLASS_LIMIT)

typedef struct {
    int code;                 /* code last stored here, 0 if never */
    char text[MPI_MAX_ERROR_STRING];
} ring_entry_t;

static ring_entry_t ring[RING_SLOTS];
static unsigned ring_next = 1;
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;

static int ring_store(int errclass, const char *text)
{
    /* Already a code (a user callback's, or one an inner call returned): it is passed on as it
       is, so that MPI_Error_class and the user's own string still know it. */
    if (errclass < 0 || errclass >= EMPI_ERR_CLASS_LIMIT)
        return errclass;
    pthread_mutex_lock(&ring_lock);
    unsigned slot = ring_next;
    ring_next = ring_next + 1 == RING_SLOTS ? 1 : ring_next + 1;
    if (ring_next == RING_SKIPPED_SLOT)
        ring_next++;
    int code = (int)(slot * EMPI_ERR_CLASS_LIMIT) | errclass;
    ring[slot].code = code;
    snprintf(ring[slot].text, sizeof ring[slot].text, "%s", text);
    pthread_mutex_unlock(&ring_lock);
    return code;
}

/* ---- user-defined classes and codes ---- */

typedef struct {
    int in_use;
    int errclass;       /* the class of a code; itself for a class */
    char *text;         /* MPI_Add_error_string, or NULL */
} user_code_t;

static user_code_t *user_codes;   /* index i is code MPI_ERR_LASTCODE + 1 + i */
static int user_count, user_cap;
static pthread_mutex_t user_lock = PTHREAD_MUTEX_INITIALIZER;

/* The value of the MPI_LASTUSEDCODE attribute: the largest code or class in use. */
int empi_error_last_used_code = MPI_ERR_LASTCODE;

static user_code_t *user_entry(int code)
{
    int i = code - MPI_ERR_LASTCODE - 1;
    if (i < 0 || i >= user_count || !user_codes[i].in_use)
        return NULL;
    return &user_codes[i];
}

static void update_last_used(void)
{
    int last = user_count;
    while (last > 0 && !user_codes[last - 1].in_use)
        last--;
    user_count = last;
    empi_error_last_used_code = MPI_ERR_LASTCODE + last;
}

/* New user code of class `errclass` (-1: a new class, its own class). Returns the code or -1. */
static int user_add(int errclass)
{
    pthread_mutex_lock(&user_lock);
    if (user_count == user_cap) {
        int cap = user_cap ? 2 * user_cap : 16;
        user_code_t *grown = realloc(user_codes, (size_t)cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&user_lock);
            return -1;
        }
        user_codes = grown;
        user_cap = cap;
    }
    /* Codes are handed out in increasing order so MPI_LASTUSEDCODE stays a true upper bound. */
    int code = MPI_ERR_LASTCODE + 1 + user_count;
    user_codes[user_count] = (user_code_t){1, errclass < 0 ? code : errclass, NULL};
    user_count++;
    update_last_used();
    pthread_mutex_unlock(&user_lock);
    return code;
}

/* ---- class texts ---- */

static const char *const class_text[EMPI_ERR_CLASS_LIMIT] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument of some other kind",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated on receive",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: known error not in this list",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal MPI (implementation) error",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: error related to the amode passed to MPI_File_open",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assertion argument",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base argument",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: error in a user data conversion function",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement argument",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation identifier already registered",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file operation could not be completed, file in use",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: key longer than MPI_MAX_INFO_KEY",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: invalid key passed to MPI_Info_delete",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: value longer than MPI_MAX_INFO_VAL",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info argument",
    [MPI_ERR_IO] = "MPI_ERR_IO: other I/O error",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid key value",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid locktype argument",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: invalid service name passed to MPI_Lookup_name",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: collective argument not identical on all processes",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: not enough space",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: file does not exist",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses to window",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory is not part of the window",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service name passed to MPI_Unpublish_name",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size argument",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: error in spawning processes",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: passed window has the wrong flavor for the called function",
    [MPI_ERR_PROC_ABORTED] = "MPI_ERR_PROC_ABORTED: operation failed because a peer process has aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "MPI_ERR_VALUE_TOO_LARGE: value is too large to store",
    [MPI_ERR_SESSION] = "MPI_ERR_SESSION: invalid session",
    [MPI_ERR_ERRHANDLER] = "MPI_ERR_ERRHANDLER: invalid error handler",
    [MPI_ERR_ABI] = "MPI_ERR_ABI: ABI-related error",
};

static const char *const mpi_t_text[] = {
    "MPI_T_ERR_CANNOT_INIT", "MPI_T_ERR_NOT_ACCESSIBLE", "MPI_T_ERR_NOT_INITIALIZED",
    "MPI_T_ERR_NOT_SUPPORTED", "MPI_T_ERR_MEMORY", "MPI_T_ERR_INVALID", "MPI_T_ERR_INVALID_INDEX",
    "MPI_T_ERR_INVALID_ITEM", "MPI_T_ERR_INVALID_SESSION", "MPI_T_ERR_INVALID_HANDLE",
    "MPI_T_ERR_INVALID_NAME", "MPI_T_ERR_OUT_OF_HANDLES", "MPI_T_ERR_OUT_OF_SESSIONS",
    "MPI_T_ERR_CVAR_SET_NOT_NOW", "MPI_T_ERR_CVAR_SET_NEVER", "MPI_T_ERR_PVAR_NO_WRITE",
    "MPI_T_ERR_PVAR_NO_STARTSTOP", "MPI_T_ERR_PVAR_NO_ATOMIC",
};

static int is_mpi_t_code(int code)
{
    return code >= MPI_T_ERR_CANNOT_INIT && code <= MPI_T_ERR_PVAR_NO_ATOMIC;
}

const char *empi_error_class_text(int errclass)
{
    if (errclass >= 0 && errclass < EMPI_ERR_CLASS_LIMIT && class_text[errclass])
        return class_text[errclass];
    return "unknown error class";
}

int empi_error_class_of(int code)
{
    if (code >= 0 && code < EMPI_ERR_CLASS_LIMIT)
        return class_text[code] ? code : -1;
    if (is_mpi_t_code(code))
        return code;   /* the tool interface's return codes are error classes of their own */
    if (code >= EMPI_ERR_CLASS_LIMIT && code <= MPI_ERR_LASTCODE) {
        int errclass = code % EMPI_ERR_CLASS_LIMIT;
        return class_text[errclass] ? errclass : -1;
    }
    pthread_mutex_lock(&user_lock);
    user_code_t *u = user_entry(code);
    int errclass = u ? u->errclass : -1;
    pthread_mutex_unlock(&user_lock);
    return errclass;
}

int empi_error_string_of(int code, char *buf)
{
    if (empi_error_class_of(code) < 0)
        return -1;
    if (code < EMPI_ERR_CLASS_LIMIT) {
        snprintf(buf, MPI_MAX_ERROR_STRING, "%s", class_text[code]);
    } else if (is_mpi_t_code(code)) {
        snprintf(buf, MPI_MAX_ERROR_STRING, "%s", mpi_t_text[code - MPI_T_ERR_CANNOT_INIT]);
    } else if (code <= MPI_ERR_LASTCODE) {
        pthread_mutex_lock(&ring_lock);
        const ring_entry_t *e = &ring[code / EMPI_ERR_CLASS_LIMIT];
        /* A slot reused by a newer error of another class no longer describes this code. */
        snprintf(buf, MPI_MAX_ERROR_STRING, "%s",
                 e->code == code ? e->text : class_text[code % EMPI_ERR_CLASS_LIMIT]);
        pthread_mutex_unlock(&ring_lock);
    } else {
        pthread_mutex_lock(&user_lock);
        user_code_t *u = user_entry(code);
        snprintf(buf, MPI_MAX_ERROR_STRING, "%s", u && u->text ? u->text : "");
        pthread_mutex_unlock(&user_lock);
    }
    return (int)strlen(buf);
}

/* ---- raising ---- */

_Noreturn void empi_fatal(int code, const char *msg)
{
    fprintf(stderr, "EtherMPI: fatal error: %s\n", msg);
    fflush(stderr);
    empi_boot_abort(code, msg);
    abort(); /* not reached unless the launcher is gone */
}

/* The predefined actions that end the job. */
static _Noreturn void abort_job(int code)
{
    char msg[MPI_MAX_ERROR_STRING];
    if (empi_error_string_of(code, msg) < 0)
        snprintf(msg, sizeof msg, "error code %d", code);
    fflush(stdout); /* keep what the program printed before the error */
    fprintf(stderr, "EtherMPI: %s\n", msg);
    fflush(stderr);
    /* The exit status is the class: small, and meaningful to someone reading it. */
    int errclass = empi_error_class_of(code);
    empi_boot_abort(errclass > 0 ? errclass : MPI_ERR_UNKNOWN, msg);
    abort();
}

int empi_errhandler_invoke(empi_errhandler_t *eh, int kind, void *handle_ptr, int code)
{
    /* Before MPI_Init and after MPI_Finalize no handler is attached: the initial one is fatal. */
    if (!eh || eh->action == EMPI_EH_FATAL || eh->action == EMPI_EH_ABORT)
        abort_job(code);
    if (eh->action == EMPI_EH_RETURN)
        return code;
    switch (kind) {
    case EMPI_EH_KIND_COMM: eh->u.comm_fn((MPI_Comm *)handle_ptr, &code); break;
    case EMPI_EH_KIND_WIN: eh->u.win_fn((MPI_Win *)handle_ptr, &code); break;
    case EMPI_EH_KIND_FILE: eh->u.file_fn((MPI_File *)handle_ptr, &code); break;
    case EMPI_EH_KIND_SESSION: eh->u.session_fn((MPI_Session *)handle_ptr, &code); break;
    default: break;
    }
    return code;
}

static int raise_on_comm(empi_comm_t *comm, int code)
{
    if (!comm)
        comm = &empi_comm_self;
    MPI_Comm handle = comm->handle;
    return empi_errhandler_invoke(comm->errhandler, EMPI_EH_KIND_COMM, &handle, code);
}

int empi_err_comm(struct empi_comm *comm, int errclass, const char *fmt, ...)
{
    char text[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return raise_on_comm(comm, ring_store(errclass, text));
}

int empi_err_noobj(int errclass, const char *fmt, ...)
{
    char text[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return raise_on_comm(NULL, ring_store(errclass, text));
}

int empi_err_handler(empi_errhandler_t *eh, int kind, void *handle_ptr, int errclass, const char *fmt, ...)
{
    char text[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return empi_errhandler_invoke(eh, kind, handle_ptr, ring_store(errclass, text));
}

/* Set by the RMA layer once windows exist; until then window errors go to MPI_COMM_SELF. */
empi_errhandler_t *(*empi_win_errhandler_hook)(struct empi_win *win, MPI_Win *handle_out);

/* Format a message and store it behind a fresh code of errclass. */
static int store_message(int errclass, const char *fmt, va_list ap)
{
    char text[MPI_MAX_ERROR_STRING];
    vsnprintf(text, sizeof text, fmt, ap);
    return ring_store(errclass, text);
}

int empi_err_win(struct empi_win *win, int errclass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = store_message(errclass, fmt, ap);
    va_end(ap);
    MPI_Win handle = MPI_WIN_NULL;
    if (win && empi_win_errhandler_hook)
        return empi_errhandler_invoke(empi_win_errhandler_hook(win, &handle), EMPI_EH_KIND_WIN, &handle, code);
    return raise_on_comm(NULL, code);
}

/*
 * Set by the I/O layer: the handler of a file, or of MPI_FILE_NULL when file is NULL. Until it is
 * set no file exists, and file errors just return (the standard's default for files).
 */
empi_errhandler_t *(*empi_file_errhandler_hook)(struct empi_file *file, MPI_File *handle_out);

int empi_err_file(struct empi_file *file, int errclass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = store_message(errclass, fmt, ap);
    va_end(ap);
    MPI_File handle = MPI_FILE_NULL;
    if (empi_file_errhandler_hook)
        return empi_errhandler_invoke(empi_file_errhandler_hook(file, &handle), EMPI_EH_KIND_FILE, &handle, code);
    return code;
}

/* ---- API ---- */

EMPI_WEAK_ALIAS(Error_class)
int PMPI_Error_class(int errorcode, int *errorclass)
{
    int c = empi_error_class_of(errorcode);
    if (c < 0)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Error_class: %d is not a valid error code", errorcode);
    if (!errorclass)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Error_class: errorclass is NULL");
    *errorclass = c;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Error_string)
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Error_string: %s is NULL", string ? "resultlen" : "string");
    char buf[MPI_MAX_ERROR_STRING];
    int len = empi_error_string_of(errorcode, buf);
    if (len < 0)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Error_string: %d is not a valid error code", errorcode);
    memcpy(string, buf, (size_t)len + 1);
    *resultlen = len;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Add_error_class)
int PMPI_Add_error_class(int *errorclass)
{
    if (!errorclass)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Add_error_class: errorclass is NULL");
    int code = user_add(-1);
    if (code < 0)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Add_error_class: out of memory");
    *errorclass = code;
    return MPI_SUCCESS;
}

static int is_user_class(int errorclass)
{
    user_code_t *u = user_entry(errorclass);
    return u && u->errclass == errorclass;
}

EMPI_WEAK_ALIAS(Add_error_code)
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    if (!errorcode)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Add_error_code: errorcode is NULL");
    pthread_mutex_lock(&user_lock);
    int valid = (errorclass > 0 && errorclass < EMPI_ERR_CLASS_LIMIT && class_text[errorclass]) ||
                is_user_class(errorclass);
    pthread_mutex_unlock(&user_lock);
    if (!valid)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Add_error_code: %d is not a valid error class", errorclass);
    int code = user_add(errorclass);
    if (code < 0)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Add_error_code: out of memory");
    *errorcode = code;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Add_error_string)
int PMPI_Add_error_string(int errorcode, const char *string)
{
    if (!string)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Add_error_string: string is NULL");
    /* up to MPI_MAX_ERROR_STRING characters (MPI 4.1, 9.5); MPI_Error_string returns one less */
    if (strlen(string) > MPI_MAX_ERROR_STRING)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Add_error_string: string is longer than MPI_MAX_ERROR_STRING");
    char *copy = strdup(string);
    if (!copy)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Add_error_string: out of memory");
    pthread_mutex_lock(&user_lock);
    user_code_t *u = user_entry(errorcode);
    if (u) {
        free(u->text);
        u->text = copy;
    }
    pthread_mutex_unlock(&user_lock);
    if (!u) {
        free(copy);
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Add_error_string: %d is not a user-defined error code or class",
                              errorcode);
    }
    return MPI_SUCCESS;
}

/* Remove a user class or code; for a class, no code may still belong to it. */
static int user_remove(int code, int want_class, const char *fname)
{
    pthread_mutex_lock(&user_lock);
    user_code_t *u = user_entry(code);
    const char *why = NULL;
    if (!u || (u->errclass == code) != want_class)
        why = want_class ? "is not a user-defined error class" : "is not a user-defined error code";
    else if (u->text)
        why = "still has an error string (remove it first with MPI_Remove_error_string)";
    else if (want_class)
        for (int i = 0; i < user_count; i++)
            if (user_codes[i].in_use && user_codes[i].errclass == code && MPI_ERR_LASTCODE + 1 + i != code)
                why = "still has error codes (remove them first)";
    if (!why) {
        free(u->text);
        u->text = NULL;
        u->in_use = 0;
        update_last_used();
    }
    pthread_mutex_unlock(&user_lock);
    if (why)
        return empi_err_noobj(MPI_ERR_ARG, "%s: %d %s", fname, code, why);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Remove_error_class)
int PMPI_Remove_error_class(int errorclass)
{
    return user_remove(errorclass, 1, "MPI_Remove_error_class");
}

EMPI_WEAK_ALIAS(Remove_error_code)
int PMPI_Remove_error_code(int errorcode)
{
    return user_remove(errorcode, 0, "MPI_Remove_error_code");
}

EMPI_WEAK_ALIAS(Remove_error_string)
int PMPI_Remove_error_string(int errorcode)
{
    pthread_mutex_lock(&user_lock);
    user_code_t *u = user_entry(errorcode);
    if (u) {
        free(u->text);
        u->text = NULL;
    }
    pthread_mutex_unlock(&user_lock);
    if (!u)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Remove_error_string: %d is not a user-defined error code or class",
                              errorcode);
    return MPI_SUCCESS;
}
