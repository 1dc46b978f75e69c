/*
 * The data mover under every read and write. Memory side: a contiguous buffer is used in place,
 * anything else goes through the datatype engine's pack/unpack in bounded chunks (or the data
 * representation's conversion). File side: the view's iterator yields file extents; writes go
 * out one pwrite per extent, reads of many small extents are "sieved" (one pread of the span that
 * holds them, then copies), since a system call per few bytes would dominate. Writes are never
 * sieved: read-modify-write of the holes could undo another process's concurrent write there.
 * Atomic mode takes a POSIX byte-range lock over the span of the access.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"
#include "pt2pt/request.h"

#define CHUNK_BYTES ((MPI_Offset)4 << 20)     /* bounce buffer for noncontiguous memory types */
#define SIEVE_BYTES ((MPI_Offset)1 << 20)     /* span one sieving read may cover */
#define SIEVE_SMALL ((MPI_Offset)32 << 10)    /* extents shorter than this are worth sieving */

/* pread/pwrite until done, end of file (reads) or an error; returns bytes moved or -errno. */
static MPI_Offset full_io(int fd, int dir, char *p, MPI_Offset len, MPI_Offset off)
{
    MPI_Offset done = 0;
    while (done < len) {
        ssize_t n = dir == EMPI_IO_WRITE ? pwrite(fd, p + done, (size_t)(len - done), (off_t)(off + done))
                                         : pread(fd, p + done, (size_t)(len - done), (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            break;
        done += n;
    }
    return done;
}

/* Sieving read: extents starting at the iterator's current one, each past the one before (a view
   open for reading only may revisit bytes: its tiles can overlap) and all within SIEVE_BYTES of
   the first, read with one pread. Returns stream bytes produced (short at end of file) or -errno. */
static MPI_Offset sieve_read(int fd, empi_view_iter_t *it, MPI_Offset off, MPI_Offset len, char *stream,
                             char *sieve, int *eof)
{
    MPI_Offset offs[64], lens[64];
    int n = 0;
    offs[n] = off, lens[n] = len, n++;
    empi_view_iter_t save = *it;
    MPI_Offset o, l;
    while (n < 64 && empi_view_iter_next(it, &o, &l)) {
        if (o < offs[n - 1] + lens[n - 1] || o + l - off > SIEVE_BYTES || l >= SIEVE_SMALL) {
            *it = save;
            break;
        }
        offs[n] = o, lens[n] = l, n++;
        save = *it;
    }
    MPI_Offset span = offs[n - 1] + lens[n - 1] - off;
    MPI_Offset got = full_io(fd, EMPI_IO_READ, sieve, span, off);
    if (got < 0)
        return got;
    MPI_Offset produced = 0;
    for (int i = 0; i < n; i++) {
        MPI_Offset rel = offs[i] - off;
        MPI_Offset have = got - rel < lens[i] ? (got - rel > 0 ? got - rel : 0) : lens[i];
        memcpy(stream + produced, sieve + rel, (size_t)have);
        produced += have;
        if (have < lens[i]) {
            *eof = 1;
            break;
        }
    }
    return produced;
}

int empi_io_stream(empi_file_t *f, int dir, MPI_Offset pos, char *stream, MPI_Offset len, MPI_Offset *done)
{
    empi_view_iter_t it;
    empi_view_iter_init(&it, &f->view, pos, len);
    MPI_Offset off, elen;
    char *sieve = NULL;
    int rc = MPI_SUCCESS, eof = 0;
    *done = 0;
    while (!eof && empi_view_iter_next(&it, &off, &elen)) {
        MPI_Offset n;
        if (dir == EMPI_IO_READ && elen < SIEVE_SMALL && it.left > 0) {
            if (!sieve && !(sieve = malloc((size_t)SIEVE_BYTES))) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            n = sieve_read(f->fd, &it, off, elen, stream + *done, sieve, &eof);
        } else {
            n = full_io(f->fd, dir, stream + *done, elen, off);
            eof = n >= 0 && n < elen;
        }
        if (n < 0) {
            rc = empi_io_errno_class((int)-n);
            break;
        }
        *done += n;
    }
    free(sieve);
    return rc;
}

int empi_io_lock(empi_file_t *f, int dir, MPI_Offset start, MPI_Offset end)
{
    struct flock fl = {.l_type = dir == EMPI_IO_WRITE ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET,
                       .l_start = (off_t)start, .l_len = end < 0 ? 0 : (off_t)(end - start)};
    while (fcntl(f->fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR)
            return empi_io_errno_class(errno);
    return MPI_SUCCESS;
}

void empi_io_unlock(empi_file_t *f, MPI_Offset start, MPI_Offset end)
{
    struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = (off_t)start,
                       .l_len = end < 0 ? 0 : (off_t)(end - start)};
    fcntl(f->fd, F_SETLK, &fl);
}

void empi_io_status(MPI_Status *status, MPI_Count bytes)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    empi_status_empty(status);
    empi_status_set_bytes(status, bytes);
}

/* Memory types that are not one contiguous block: pack/unpack through a bounded bounce buffer. */
static int chunked(empi_file_t *f, int dir, MPI_Offset pos, void *buf, MPI_Count count, empi_datatype_t *dt,
                   MPI_Offset total, MPI_Offset *done)
{
    MPI_Offset cap = total < CHUNK_BYTES ? total : CHUNK_BYTES;
    char *bounce = malloc((size_t)cap);
    if (!bounce)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    *done = 0;
    while (*done < total) {
        MPI_Offset n = total - *done < cap ? total - *done : cap, moved;
        if (dir == EMPI_IO_WRITE)
            empi_dt_pack(buf, count, dt, *done, bounce, n);
        rc = empi_io_stream(f, dir, pos + *done, bounce, n, &moved);
        if (dir == EMPI_IO_READ && moved > 0)
            empi_dt_unpack(buf, count, dt, *done, bounce, moved);
        *done += moved;
        if (rc != MPI_SUCCESS || moved < n)
            break;
    }
    free(bounce);
    return rc;
}

/* A representation that converts: the whole access in the file's form (total bytes) in one buffer. */
static int converted(empi_file_t *f, int dir, MPI_Offset pos, void *buf, MPI_Count count, empi_datatype_t *dt,
                     MPI_Offset total, MPI_Offset *done)
{
    char *filebuf = malloc((size_t)total);
    if (!filebuf)
        return MPI_ERR_NO_MEM;
    const empi_datarep_t *rep = f->view.rep;
    MPI_Offset position = 0;   /* conversions start at the first item of the user's buffer */
    int rc = MPI_SUCCESS;
    *done = 0;
    if (dir == EMPI_IO_WRITE) {
        rc = empi_datarep_to_file(rep, buf, count, dt, filebuf, total, position);
        if (rc == MPI_SUCCESS)
            rc = empi_io_stream(f, dir, pos, filebuf, total, done);
    } else {
        rc = empi_io_stream(f, dir, pos, filebuf, total, done);
        /* a read cut short by the end of the file delivers its whole basic items, or its whole
           elements where the file's items have other sizes */
        MPI_Offset keep = *done;
        if (total != count * dt->size)
            keep -= keep % (total / count);
        else
            while (keep > 0 && empi_dt_elements_in(dt, keep) < 0)
                keep--;
        if (keep > 0) {
            int rc2 = empi_datarep_from_file(rep, buf, count, dt, filebuf, keep, position);
            rc = rc != MPI_SUCCESS ? rc : rc2;
        }
        *done = keep;
    }
    free(filebuf);
    return rc;
}

int empi_io_access(const empi_io_call_t *c, MPI_Count *bytes)
{
    empi_file_t *f = c->f;
    int dir = c->dir;
    void *buf = c->buf;
    MPI_Count count = c->count;
    empi_datatype_t *dt = c->dt;
    MPI_Offset total = c->fbytes, pos = c->offset * f->view.esize, done = 0;
    *bytes = 0;
    if (total == 0)
        return MPI_SUCCESS;
    MPI_Offset lo = 0, hi = 0;
    int rc;
    if (f->atomic) {
        lo = empi_view_file_offset(&f->view, pos);
        hi = empi_view_file_offset(&f->view, pos + total - 1) + 1;
        EMPI_CHECK(empi_io_lock(f, dir, lo, hi));
    }
    if (f->view.rep)
        rc = converted(f, dir, pos, buf, count, dt, total, &done);
    else if (dt->is_contig)
        rc = empi_io_stream(f, dir, pos, (char *)buf + dt->true_lb, total, &done);
    else
        rc = chunked(f, dir, pos, buf, count, dt, total, &done);
    if (f->atomic)
        empi_io_unlock(f, lo, hi);
    *bytes = done;
    return rc;
}
