/* Forwarding of rank output. mpiexec is the only writer of its stdout/stderr and
 * writes whole lines with a single write_all, so lines of different ranks can never
 * be mixed; partial lines wait in the rank's buffer until their newline (or EOF, or
 * MAX_PARTIAL_LINE bytes). Untagged output passes byte for byte (a last line without a
 * newline stays without one); tagged output ends every piece with a newline. */
#include "mpiexec.h"

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A line longer than this is passed on in pieces rather than buffered forever. */
#define MAX_PARTIAL_LINE (1u << 20)
#define READ_CHUNK 65536

static int tagging;
static char *scratch;  /* tagged lines are assembled here */
static size_t scratch_cap;

void output_set_tagging(int on)
{
    tagging = on;
}

static void write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EPIPE && (fd == 1 || fd == 2)) {
            job_output_closed(); /* `mpiexec ... | head`: end as a pipeline would */
            return;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* our stdout may be non-blocking (event-loop parents set it so): wait, drop nothing */
            struct pollfd p1 = {.fd = fd, .events = POLLOUT};
            poll(&p1, 1, -1);
            continue;
        }
        if (n <= 0)
            return;
        p += n;
        len -= (size_t)n;
    }
}

static int reserve(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < need)
        c *= 2;
    char *p = realloc(*buf, c);
    if (!p)
        return -1;
    *buf = p;
    *cap = c;
    return 0;
}

/* Per-rank output files (-outfile-pattern, -errfile-pattern, --output-filename): descriptors of
   every rank's stdout and stderr (-1: the terminal), all opened before the ranks start. */
static int *files;
static int nfiles;
static int copy_to_terminal;

/* `pattern` with %r replaced by the rank (zero-padded to `pad` digits) and %% by %; a '%' before
   anything else stays. -1 when the result does not fit. */
static int expand(const char *pattern, int rank, int pad, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (const char *p = pattern; *p; p++) {
        int w;
        if (p[0] == '%' && p[1] == 'r') {
            w = snprintf(buf + n, cap - n, "%0*d", pad, rank);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            w = snprintf(buf + n, cap - n, "%%");
            p++;
        } else {
            w = snprintf(buf + n, cap - n, "%c", *p);
        }
        if (w < 0 || (size_t)w >= cap - n)
            return -1;
        n += (size_t)w;
    }
    return 0;
}

/* Create the directories leading to `path` (Open MPI's layout puts each rank in its own). */
static void make_parents(char *path)
{
    for (char *q = path + 1; *q; q++)
        if (*q == '/') {
            *q = '\0';
            mkdir(path, 0777);
            *q = '/';
        }
}

static int open_rank_file(const char *pattern, int rank, int pad)
{
    char path[4096];
    if (expand(pattern, rank, pad, path, sizeof path) != 0 || !path[0]) {
        fprintf(stderr, "mpiexec: no usable output file name from '%s'\n", pattern);
        return -1;
    }
    make_parents(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        fprintf(stderr, "mpiexec: cannot write rank %d's output to %s: %s\n", rank, path, strerror(errno));
    return fd;
}

/* One file for both streams (the same path, however spelled) shares one descriptor and offset. */
static int same_file(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int output_set_files(const output_files_t *spec, int nranks)
{
    copy_to_terminal = spec->copy;
    if (!spec->out_pattern && !spec->err_pattern)
        return 0;
    mpiexec_fd_room(64 + 6 * (size_t)nranks); /* two files per rank besides its pipes */
    files = malloc(sizeof *files * 2 * (size_t)nranks);
    if (!files)
        return -1;
    nfiles = 2 * nranks;
    for (int i = 0; i < nfiles; i++)
        files[i] = -1;
    const char *patterns[2] = {spec->out_pattern, spec->err_pattern};
    for (int r = 0; r < nranks; r++)
        for (int k = 0; k < 2; k++) {
            if (!patterns[k])
                continue;
            int fd = open_rank_file(patterns[k], r, spec->pad);
            if (fd < 0)
                return -1;
            if (k == 1 && files[2 * r] >= 0 && same_file(files[2 * r], fd)) {
                close(fd);
                fd = files[2 * r];
            }
            files[2 * r + k] = fd;
        }
    return 0;
}

/* The file the `dest` (1 stdout, 2 stderr) lines of `rank` go to, or -1 for the terminal. */
static int rank_file(int rank, int dest)
{
    int i = 2 * rank + (dest == 2);
    return rank >= 0 && i < nfiles ? files[i] : -1;
}

/* Write `len` bytes that end at a line boundary (or are a flushed tail). */
static void emit(const char *p, size_t len, int rank, int dest, int add_newline)
{
    int file = rank_file(rank, dest);
    if (file >= 0) {
        write_all(file, p, len); /* the rank's bytes as they came */
        if (!copy_to_terminal)
            return;
    }
    if (!tagging && !add_newline) {
        write_all(dest, p, len);
        return;
    }
    char tag[24];
    int taglen = tagging ? snprintf(tag, sizeof tag, "[%d] ", rank) : 0;
    /* Upper bound: one tag per line plus a final newline. */
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += p[i] == '\n';
    if (reserve(&scratch, &scratch_cap, len + lines * (size_t)taglen + 1) != 0) {
        write_all(dest, p, len);
        return;
    }
    size_t out = 0, start = 0;
    while (start < len) {
        const char *nl = memchr(p + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - p) + 1 : len;
        memcpy(scratch + out, tag, (size_t)taglen);
        out += (size_t)taglen;
        memcpy(scratch + out, p + start, end - start);
        out += end - start;
        start = end;
    }
    if (add_newline)
        scratch[out++] = '\n';
    write_all(dest, scratch, out);
}

void output_flush_tail(line_buffer_t *lb, int rank, int dest)
{
    if (lb->len)
        emit(lb->data, lb->len, rank, dest, tagging);
    lb->len = 0;
}

/* The buffer grew by the bytes from `old` on: write out every line now complete. */
static void emit_complete_lines(line_buffer_t *lb, size_t old, int rank, int dest)
{
    /* Only the new bytes can hold the last newline. */
    char *last_nl = NULL;
    for (char *q = lb->data + lb->len; q > lb->data + old;)
        if (*--q == '\n') {
            last_nl = q;
            break;
        }
    if (!last_nl) {
        if (lb->len >= MAX_PARTIAL_LINE)
            output_flush_tail(lb, rank, dest);
        return;
    }
    size_t complete = (size_t)(last_nl - lb->data) + 1;
    emit(lb->data, complete, rank, dest, 0);
    memmove(lb->data, lb->data + complete, lb->len - complete);
    lb->len -= complete;
}

int output_pump(int fd, line_buffer_t *lb, int rank, int dest)
{
    if (reserve(&lb->data, &lb->cap, lb->len + READ_CHUNK) != 0)
        return 1;
    ssize_t n = read(fd, lb->data + lb->len, READ_CHUNK);
    if (n < 0)
        return (errno == EINTR || errno == EAGAIN) ? 1 : 0;
    if (n == 0) {
        output_flush_tail(lb, rank, dest);
        return 0;
    }
    size_t old = lb->len;
    lb->len += (size_t)n;
    emit_complete_lines(lb, old, rank, dest);
    return 1;
}

void output_feed(line_buffer_t *lb, const char *data, size_t n, int rank, int dest)
{
    if (reserve(&lb->data, &lb->cap, lb->len + n) != 0) {
        write_all(dest, data, n);
        return;
    }
    size_t old = lb->len;
    memcpy(lb->data + old, data, n);
    lb->len += n;
    emit_complete_lines(lb, old, rank, dest);
}

void output_release(void)
{
    for (int i = 0; i < nfiles; i++)
        if (files[i] >= 0 && (i % 2 == 0 || files[i] != files[i - 1]))
            close(files[i]);
    free(files);
    files = NULL;
    nfiles = 0;
    free(scratch);
    scratch = NULL;
    scratch_cap = 0;
}
