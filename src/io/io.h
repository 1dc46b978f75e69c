/*
 * MPI-IO on POSIX files: the file object and the internal interface shared by the files of
 * src/io/. One concern per file:
 *   file_open.c      open, close, delete, group, amode, info, handle conversion
 *   file_errhandler.c error handlers of files (MPI_FILE_NULL's is the default for new files)
 *   file_view.c      set_view/get_view, flattening the filetype, view position <-> file offset
 *   io_engine.c      moving (buf, count, datatype) between memory and a view (sieving, atomic locks)
 *   datarep.c        data representations: native, internal, external32, MPI_Register_datarep
 *   file_explicit.c  explicit offsets (*_at, *_at_all)
 *   file_individual.c individual file pointers (read, write, seek, get_position, ...)
 *   file_shared.c    the shared file pointer (shared memory, or a one-sided window across hosts), ordered access
 *   file_coll.c      collective access: two-phase aggregation for the *_all calls
 *   file_nonblocking.c iread/iwrite in all their forms
 *   file_split.c     split collectives (*_begin and *_end)
 *   file_consistency.c size, preallocate, sync, atomicity, type extent
 */
#ifndef EMPI_IO_H
#define EMPI_IO_H

#include <stdint.h>

#include "comm/comm.h"
#include "core/errhandler.h"
#include "core/error.h"
#include "core/info.h"
#include "datatype/datatype.h"
#include "mpi.h"

struct empi_datarep;

/* A file view: displacement, etype and filetype, the filetype flattened into byte runs. */
typedef struct empi_io_view {
    MPI_Offset disp;
    empi_datatype_t *etype, *filetype;
    MPI_Count esize;             /* bytes of one etype in the file */
    MPI_Count nruns;             /* runs of one filetype, relative to its origin, in stream order */
    MPI_Aint *rdisp;
    MPI_Count *rlen;
    MPI_Count *rprefix;          /* stream offset of run i within one filetype (nruns+1 entries) */
    MPI_Count fsize;             /* data bytes per filetype */
    MPI_Aint fextent;            /* tiling step */
    int contiguous;              /* the view is the plain byte stream from disp on */
    char datarep[MPI_MAX_DATAREP_STRING];
    const struct empi_datarep *rep;   /* NULL: native layout, no conversion */
} empi_io_view_t;

/* The shared file pointer: an etype offset in a segment every process of the file maps, or
   (processes on several hosts) in rank 0's memory of a one-sided window. */
typedef struct empi_io_shared {
    _Atomic int64_t *ptr;
    size_t map_len;              /* 0: private memory (a file opened by one process) */
    int remote;                  /* the pointer lives in `win` */
    MPI_Win win;
} empi_io_shared_t;

/* What a split collective started and its *_end finishes. */
typedef struct empi_io_split {
    int active;
    const char *begin_name;      /* the *_begin call, for the *_end check */
    const void *buf;
    MPI_Status status;
} empi_io_split_t;

typedef struct empi_file {
    empi_object_t obj;
    MPI_File handle;
    empi_comm_t *comm;           /* private duplicate: the file's collectives never meet the user's */
    int fd;
    int amode;
    char *filename;
    empi_info_t *info;           /* hints in use (MPI_File_get_info) */
    empi_errhandler_t *errhandler;
    int atomic;
    empi_io_view_t view;
    MPI_Offset ind_pos;          /* individual file pointer, in etypes of the view */
    empi_io_shared_t shared;
    empi_io_split_t split;
    /* collective buffering hints */
    int cb_write, cb_read;       /* 1 enable, 0 disable, -1 automatic */
    int cb_nodes;                /* aggregators; 0: every process */
    MPI_Offset cb_buffer_size;
} empi_file_t;

/* ---- handles and errors (file_open.c, file_errhandler.c) ---- */

/* Validate a file argument of `fname`; raises MPI_ERR_FILE on MPI_FILE_NULL's handler. */
int empi_file_check(MPI_File fh, const char *fname, empi_file_t **out);
/* A new reference to MPI_FILE_NULL's handler, which a newly opened file starts with. */
empi_errhandler_t *empi_file_default_errhandler(void);
/* The error class of an errno from a file system call. */
int empi_io_errno_class(int err);
/* Element-wise maximum of vals[0..n) over the file's processes (agreeing on an outcome). */
int empi_io_allmax(empi_comm_t *comm, const char *fname, int *vals, int n);
/* Size of the file in bytes; raises on failure. */
int empi_file_size(empi_file_t *f, const char *fname, MPI_Offset *size);
/* New pointer for a seek from cur (etypes) with MPI_SEEK_SET/CUR/END; raises on bad arguments. */
int empi_io_seek_target(empi_file_t *f, const char *fname, MPI_Offset cur, MPI_Offset offset, int whence,
                        MPI_Offset *out);
/* Apply the hints of info (may be NULL) to f and record them in f->info. */
int empi_file_apply_hints(empi_file_t *f, const empi_info_t *info);

/* ---- views (file_view.c) ---- */

/* The default view: displacement 0, etype and filetype MPI_BYTE, "native". */
int empi_view_init_default(empi_io_view_t *v);
void empi_view_free(empi_io_view_t *v);
/* File offset of byte `pos` of the view's stream (pos past the data maps into the next filetype). */
MPI_Offset empi_view_file_offset(const empi_io_view_t *v, MPI_Offset pos);
/* Stream bytes of the view that lie before file offset `off` (the view's size of a file that long). */
MPI_Offset empi_view_stream_before(const empi_io_view_t *v, MPI_Offset off);

/* Walks the file extents of stream bytes [pos, pos + len) of a view, merging the ones that abut. */
typedef struct empi_view_iter {
    const empi_io_view_t *v;
    MPI_Offset inst;             /* filetype instance */
    MPI_Count run;               /* run within it */
    MPI_Offset in_run;           /* bytes of that run already passed */
    MPI_Offset left;             /* stream bytes still to walk */
} empi_view_iter_t;
void empi_view_iter_init(empi_view_iter_t *it, const empi_io_view_t *v, MPI_Offset pos, MPI_Offset len);
/* Next extent (file offset, length); 0 when the walk is over. */
int empi_view_iter_next(empi_view_iter_t *it, MPI_Offset *off, MPI_Offset *len);

/* ---- moving data (io_engine.c) ---- */

enum { EMPI_IO_READ = 0, EMPI_IO_WRITE = 1 };

/*
 * Move `len` bytes between the contiguous `stream` and view stream bytes [pos, pos + len) of f.
 * Reads stop at end of file; *done is the number of bytes moved. Returns MPI_SUCCESS or a class.
 */
int empi_io_stream(empi_file_t *f, int dir, MPI_Offset pos, char *stream, MPI_Offset len, MPI_Offset *done);
/*
 * Perform a checked call's access (c->count elements of c->dt at c->buf, c->fbytes of them in the
 * file) from etype offset c->offset of its file's view, with the view's data representation and,
 * in atomic mode, a lock over the file range touched. *bytes is the number of bytes moved in the
 * view's stream (file bytes; the call's status counts memory bytes).
 */
struct empi_io_call;
int empi_io_access(const struct empi_io_call *c, MPI_Count *bytes);
/* Byte-range lock of [start, end) for the duration of an atomic access; end < 0: to end of file. */
int empi_io_lock(empi_file_t *f, int dir, MPI_Offset start, MPI_Offset end);
void empi_io_unlock(empi_file_t *f, MPI_Offset start, MPI_Offset end);
/* The status of a completed access of `bytes` memory-side bytes. */
void empi_io_status(MPI_Status *status, MPI_Count bytes);

/* ---- data representations (datarep.c) ---- */

typedef struct empi_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    int external32;
    MPI_Datarep_conversion_function *read_fn, *write_fn;
    MPI_Datarep_conversion_function_c *read_fn_c, *write_fn_c;
    MPI_Datarep_extent_function *extent_fn;
    void *extra_state;
} empi_datarep_t;

/* Look up a datarep name: *rep NULL for native/internal. MPI_ERR_UNSUPPORTED_DATAREP if unknown. */
int empi_datarep_find(const char *name, const empi_datarep_t **rep);
/* Extent of datatype in the file under rep (the native extent for native). */
int empi_datarep_extent(const empi_datarep_t *rep, empi_datatype_t *dt, MPI_Aint *extent);
/* Does rep keep dt's size (and so its layout) in the file. */
int empi_datarep_size_preserving(const empi_datarep_t *rep, empi_datatype_t *dt);
/* dt as it lies in the file under rep: a new reference, to dt itself when rep keeps its size. */
int empi_datarep_image(const empi_datarep_t *rep, empi_datatype_t *dt, empi_datatype_t **image);
/* Bytes of count elements of dt in the file under rep (rep NULL: in memory). */
int empi_datarep_file_bytes(const empi_datarep_t *rep, empi_datatype_t *dt, MPI_Count count, MPI_Count *bytes);
/* Convert count elements of dt from memory (buf) to the file representation (filebuf, filebytes
   long); and back the first filebytes bytes of a stream into buf, which holds count elements:
   whole basic items when rep keeps dt's size, else whole elements of dt. */
int empi_datarep_to_file(const empi_datarep_t *rep, const void *buf, MPI_Count count, empi_datatype_t *dt,
                         void *filebuf, MPI_Count filebytes, MPI_Offset position);
int empi_datarep_from_file(const empi_datarep_t *rep, void *buf, MPI_Count count, empi_datatype_t *dt,
                           const void *filebuf, MPI_Count filebytes, MPI_Offset position);

/* ---- the shared file pointer (file_shared.c) ---- */

int empi_shared_open(empi_file_t *f, MPI_Offset initial);   /* collective over f->comm */
void empi_shared_close(empi_file_t *f);
void empi_shared_set(empi_file_t *f, MPI_Offset value);
/* Move the shared pointer by delta, returning its old value; read it. (Every open file has one.) */
MPI_Offset empi_shared_fetch_add(empi_file_t *f, int64_t delta);
MPI_Offset empi_shared_load(empi_file_t *f);
/* Collective: every process agrees the shared pointer is `value` (after all earlier accesses). */
int empi_shared_reset(empi_file_t *f, MPI_Offset value);

/* ---- access shapes shared by the API files ---- */

/* Which file pointer an access uses. */
typedef enum { EMPI_IO_AT, EMPI_IO_INDIVIDUAL, EMPI_IO_SHARED, EMPI_IO_ORDERED } empi_io_ptr_t;

/* One data access call as the API files describe it to the common path (file_access.c). */
typedef struct empi_io_call {
    const char *fname;
    empi_file_t *f;
    int dir;                     /* EMPI_IO_READ / EMPI_IO_WRITE */
    empi_io_ptr_t ptr;
    int collective;
    MPI_Offset offset;           /* EMPI_IO_AT */
    void *buf;
    MPI_Count count;
    empi_datatype_t *dt;
    MPI_Offset fbytes;           /* bytes the access covers in the file (the view's representation) */
} empi_io_call_t;

/* Check the arguments of a data access (file, count, datatype, amode, sequential mode). */
int empi_io_call_check(empi_io_call_t *c, MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype);
/* Perform a checked access; fills *status (may be MPI_STATUS_IGNORE). Raises on the file. */
int empi_io_call_run(empi_io_call_t *c, MPI_Status *status);
/* Check, run and report in one go: what most blocking calls are. */
int empi_io_blocking(const char *fname, MPI_File fh, int dir, empi_io_ptr_t ptr, int collective,
                     MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status);
/* Ordered access: the etypes every process accesses, in rank order from the shared pointer. */
int empi_io_ordered(empi_io_call_t *c, MPI_Count *bytes);
/* Collective access with two-phase aggregation, or independent access when not worth it. */
int empi_io_collective(empi_io_call_t *c, MPI_Count *bytes);

#endif
