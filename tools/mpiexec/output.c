/* Forwarding of rank output. mpiexec is the only writer of its stdout/stderr and
 * writes whole lines with a single write_all, so lines of different ranks can never
 * be mixed; partial lines wait in the rank's buffer until their newline (or EOF). */
#include "mpiexec.h"

#include <errno.h>
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

/* Per-rank output files (-outfile-pattern, -errfile-pattern, --output-filename): the pattern of
   stdout and stderr, and each rank's descriptors, opened at its first line (-1: not yet). */
static const char *patterns[2];
static int *files;
static int nfiles;

int output_set_files(const char *out_pattern, const char *err_pattern, int nranks)
{
    patterns[0] = out_pattern;
    patterns[1] = err_pattern;
    if (!out_pattern && !err_pattern)
        return 0;
    files = malloc(sizeof *files * 2 * (size_t)nranks);
    if (!files)
        return -1;
    nfiles = 2 * nranks;
    for (int i = 0; i < nfiles; i++)
        files[i] = -1;
    return 0;
}

/* `pattern` with %r replaced by the rank (%% by %); -1 when the result does not fit. */
static int expand(const char *pattern, int rank, char *buf, size_t cap)
{
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        int w = *p != '%' ? snprintf(buf + n, cap - n, "%c", *p)
                : p[1] == 'r' ? snprintf(buf + n, cap - n, "%d", rank)
                              : snprintf(buf + n, cap - n, "%%");
        if (*p == '%' && (p[1] == 'r' || p[1] == '%'))
            p++;
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

/* Where the `dest` (1 stdout, 2 stderr) lines of `rank` go. */
static int target(int rank, int dest)
{
    int k = dest == 2;
    if (!patterns[k] || rank < 0 || 2 * rank + k >= nfiles)
        return dest;
    int *fd = &files[2 * rank + k];
    if (*fd >= 0)
        return *fd;
    char path[4096];
    if (expand(patterns[k], rank, path, sizeof path) != 0) {
        fprintf(stderr, "mpiexec: output file name from '%s' is too long\n", patterns[k]);
        patterns[k] = NULL;
        return dest;
    }
    /* Both streams of a rank into one file share its descriptor. */
    char other[4096];
    if (k == 1 && patterns[0] && files[2 * rank] >= 0 && expand(patterns[0], rank, other, sizeof other) == 0 &&
        !strcmp(other, path))
        return *fd = files[2 * rank];
    make_parents(path);
    *fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (*fd < 0) {
        fprintf(stderr, "mpiexec: cannot write rank %d's output to %s: %s\n", rank, path, strerror(errno));
        patterns[k] = NULL;
        return dest;
    }
    return *fd;
}

static void write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* reader gone (EPIPE): drop output, keep managing the job */
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

/* Write `len` bytes that end at a line boundary (or are a flushed tail). */
static void emit(const char *p, size_t len, int rank, int dest, int add_newline)
{
    dest = target(rank, dest);
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
        emit(lb->data, lb->len, rank, dest, 1);
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
