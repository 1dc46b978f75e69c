/*
 * The shared file pointer and the calls that use it (read/write_shared, read/write_ordered,
 * seek_shared, get_position_shared).
 *
 * The pointer is one 64-bit counter in a page of shared memory that every process of the file
 * maps: rank 0 creates /dev/shm/empi-<jobid>-io-<n>, the others map it, and rank 0 unlinks the
 * name as soon as everyone has it, so nothing is left behind even if the job dies later (mpiexec
 * removes empi-<jobid>* names on every exit path, which covers a death in between). An
 * independent shared access is then one atomic fetch-and-add: no process has to serve requests.
 * Ordered access agrees on everyone's counts with one allgather and moves the pointer once.
 * A file opened by one process keeps the counter in private memory. Processes on several hosts
 * cannot share a page: there the counter lives in rank 0's memory of a one-sided window and every
 * access is a fetch-and-op on it (passive target: served whenever rank 0 polls, at once with
 * EMPI_ASYNC_PROGRESS).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll/coll_api.h"
#include "core/global.h"
#include "io/io.h"

#define SEGMENT_BYTES 4096

static _Atomic int64_t *map_segment(const char *name, int create)
{
    int fd = shm_open(name, O_RDWR | (create ? O_CREAT | O_EXCL : 0), 0600);
    if (fd < 0)
        return NULL;
    void *p = MAP_FAILED;
    if (!create || ftruncate(fd, SEGMENT_BYTES) == 0)
        p = mmap(NULL, SEGMENT_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

static int on_one_host(const empi_comm_t *comm)
{
    int node = empi_boot_node_of(comm->world_ranks[0]);
    for (int i = 1; i < comm->size; i++)
        if (empi_boot_node_of(comm->world_ranks[i]) != node)
            return 0;
    return 1;
}

/* The pointer in rank 0's window: old value, after applying op (MPI_SUM, MPI_REPLACE, MPI_NO_OP). */
static MPI_Offset window_op(empi_file_t *f, int64_t value, MPI_Op op)
{
    int64_t old = 0;
    PMPI_Win_lock(MPI_LOCK_SHARED, 0, 0, f->shared.win);
    PMPI_Fetch_and_op(&value, &old, MPI_INT64_T, 0, 0, op, f->shared.win);
    PMPI_Win_unlock(0, f->shared.win);
    return old;
}

static int open_window(empi_file_t *f, MPI_Offset initial)
{
    empi_comm_t *comm = f->comm;
    int64_t *base = NULL;
    int rc = PMPI_Win_allocate(comm->rank == 0 ? (MPI_Aint)sizeof *base : 0, sizeof *base, MPI_INFO_NULL,
                               comm->handle, &base, &f->shared.win);
    if (rc != MPI_SUCCESS)
        return rc;
    f->shared.remote = 1;
    if (comm->rank == 0)
        window_op(f, initial, MPI_REPLACE);
    /* nobody moves the pointer before it holds its first value */
    return empi_coll_barrier("MPI_File_open", comm->handle, EMPI_COLL_BLOCKING, NULL);
}

MPI_Offset empi_shared_fetch_add(empi_file_t *f, int64_t delta)
{
    return f->shared.remote ? window_op(f, delta, MPI_SUM) : atomic_fetch_add(f->shared.ptr, delta);
}

MPI_Offset empi_shared_load(empi_file_t *f)
{
    return f->shared.remote ? window_op(f, 0, MPI_NO_OP) : atomic_load(f->shared.ptr);
}

int empi_shared_open(empi_file_t *f, MPI_Offset initial)
{
    empi_comm_t *comm = f->comm;
    if (comm->size == 1) {
        f->shared.ptr = malloc(sizeof *f->shared.ptr);
        if (!f->shared.ptr)
            return MPI_ERR_NO_MEM;
        atomic_init(f->shared.ptr, initial);
        return MPI_SUCCESS;
    }
    if (!on_one_host(comm))
        return open_window(f, initial);
    static _Atomic unsigned serial;   /* files opened concurrently by several threads get distinct names */
    struct {
        int ok;
        char name[60];
    } seg = {0};
    if (comm->rank == 0) {
        snprintf(seg.name, sizeof seg.name, "/empi-%s-io-%d-%u", empi_g.boot.jobid, empi_g.boot.rank,
                 atomic_fetch_add(&serial, 1));
        f->shared.ptr = map_segment(seg.name, 1);
        seg.ok = f->shared.ptr != NULL;
        if (seg.ok)
            atomic_store(f->shared.ptr, initial);
    }
    int rc = empi_coll_bcast("MPI_File_open", &seg, sizeof seg, MPI_BYTE, 0, comm->handle, EMPI_COLL_BLOCKING, NULL);
    if (rc == MPI_SUCCESS && seg.ok && comm->rank != 0)
        f->shared.ptr = map_segment(seg.name, 0);
    int failed = f->shared.ptr == NULL;
    if (rc == MPI_SUCCESS)
        rc = empi_io_allmax(comm, "MPI_File_open", &failed, 1);
    if (comm->rank == 0 && seg.ok)
        shm_unlink(seg.name);
    if (f->shared.ptr)
        f->shared.map_len = SEGMENT_BYTES;
    if (rc == MPI_SUCCESS && failed)
        rc = MPI_ERR_NO_MEM;
    return rc;
}

void empi_shared_close(empi_file_t *f)
{
    if (f->shared.remote)
        PMPI_Win_free(&f->shared.win);
    f->shared.remote = 0;
    if (f->shared.ptr && f->shared.map_len)
        munmap((void *)f->shared.ptr, f->shared.map_len);
    else
        free((void *)f->shared.ptr);
    f->shared.ptr = NULL;
    f->shared.map_len = 0;
}

int empi_shared_reset(empi_file_t *f, MPI_Offset value)
{
    MPI_Comm comm = f->comm->handle;
    EMPI_CHECK(empi_coll_barrier("MPI_File", comm, EMPI_COLL_BLOCKING, NULL));
    if (value < 0)
        return MPI_SUCCESS;
    if (f->comm->rank == 0 && f->shared.remote)
        window_op(f, value, MPI_REPLACE);
    else if (f->comm->rank == 0 && f->shared.ptr)
        atomic_store(f->shared.ptr, value);
    return empi_coll_barrier("MPI_File", comm, EMPI_COLL_BLOCKING, NULL);
}

int empi_io_ordered(empi_io_call_t *c, MPI_Count *bytes)
{
    empi_file_t *f = c->f;
    empi_comm_t *comm = f->comm;
    MPI_Offset mine = c->fbytes / f->view.esize, base = 0;
    MPI_Offset *all = malloc((size_t)comm->size * sizeof *all);
    if (!all)
        return MPI_ERR_NO_MEM;
    int rc = empi_coll_gather(c->fname, EMPI_COLL_ALLGATHER, &mine, 1, MPI_OFFSET, all, 1, MPI_OFFSET, 0,
                              comm->handle, EMPI_COLL_BLOCKING, NULL);
    MPI_Offset before = 0, total = 0;
    for (int i = 0; i < comm->size; i++) {
        if (i < comm->rank)
            before += all[i];
        total += all[i];
    }
    free(all);
    if (rc == MPI_SUCCESS && comm->rank == 0)
        base = empi_shared_fetch_add(f, (int64_t)total);
    if (rc == MPI_SUCCESS)
        rc = empi_coll_bcast(c->fname, &base, 1, MPI_OFFSET, 0, comm->handle, EMPI_COLL_BLOCKING, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    c->offset = base + before;
    return empi_io_collective(c, bytes);
}

static int shared_io(const char *fname, MPI_File fh, int dir, empi_io_ptr_t ptr, const void *buf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Status *status)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, fname, &f));
    return empi_io_blocking(fname, fh, dir, ptr, ptr == EMPI_IO_ORDERED, 0, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_read_shared)
int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return shared_io("MPI_File_read_shared", fh, EMPI_IO_READ, EMPI_IO_SHARED, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_read_shared_c)
int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
    return shared_io("MPI_File_read_shared_c", fh, EMPI_IO_READ, EMPI_IO_SHARED, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_write_shared)
int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return shared_io("MPI_File_write_shared", fh, EMPI_IO_WRITE, EMPI_IO_SHARED, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_write_shared_c)
int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    return shared_io("MPI_File_write_shared_c", fh, EMPI_IO_WRITE, EMPI_IO_SHARED, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_read_ordered)
int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return shared_io("MPI_File_read_ordered", fh, EMPI_IO_READ, EMPI_IO_ORDERED, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_read_ordered_c)
int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
    return shared_io("MPI_File_read_ordered_c", fh, EMPI_IO_READ, EMPI_IO_ORDERED, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_write_ordered)
int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return shared_io("MPI_File_write_ordered", fh, EMPI_IO_WRITE, EMPI_IO_ORDERED, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_write_ordered_c)
int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Status *status)
{
    return shared_io("MPI_File_write_ordered_c", fh, EMPI_IO_WRITE, EMPI_IO_ORDERED, buf, count, datatype, status);
}

EMPI_WEAK_ALIAS(File_seek_shared)
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char fname[] = "MPI_File_seek_shared";
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, fname, &f));
    /* collective: every earlier shared access lands before the pointer is read and replaced */
    int rc = empi_shared_reset(f, -1);
    if (rc != MPI_SUCCESS)
        return empi_err_file(f, rc, "%s: synchronizing the processes failed", fname);
    MPI_Offset pos;
    EMPI_CHECK(empi_io_seek_target(f, fname, empi_shared_load(f), offset, whence, &pos));
    rc = empi_shared_reset(f, pos);
    if (rc != MPI_SUCCESS)
        return empi_err_file(f, rc, "%s: synchronizing the processes failed", fname);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_get_position_shared)
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_get_position_shared", &f));
    if (!offset)
        return empi_err_file(f, MPI_ERR_ARG, "MPI_File_get_position_shared: offset is NULL");
    *offset = empi_shared_load(f);
    return MPI_SUCCESS;
}
