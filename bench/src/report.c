/* Output: the familiar column format on stdout (rank 0 only) and, with
 * --json, a machine-readable file described by bench/schema/result.schema.json.
 * Rows are kept in memory so the JSON can be written once at the end. */
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 8
#define MAX_NOTES 8

typedef struct {
    long size;
    int iters;
    long errors;
    double vals[MAX_COLS];
} row_t;

static struct {
    const bench_opts *o;
    const bench_case *c;
    char title[160]; /* a copy: callers may pass a stack buffer */
    const char *primary;
    report_col cols[MAX_COLS];
    int ncols;
    row_t *rows;
    int nrows, cap;
    char notes[MAX_NOTES][160];
    int nnotes;
    int rank;
    int header_done;
} R;

/* The column header comes after any notes, just before the first row. */
static void print_header(void)
{
    if (R.header_done)
        return;
    R.header_done = 1;
    printf("%-10s", "# Size");
    for (int i = 0; i < R.ncols; i++)
        if (!R.cols[i].full_only || R.o->full)
            printf("%20s", R.cols[i].header);
    if (R.o->full)
        printf("%12s", "Iterations");
    if (R.o->validate)
        printf("%12s", "Validation");
    printf("\n");
}

static const char *kind_name(enum case_kind k)
{
    switch (k) {
    case KIND_PT2PT: return "pt2pt";
    case KIND_COLL: return "collective";
    case KIND_NBC: return "nonblocking-collective";
    case KIND_RMA: return "one-sided";
    case KIND_STARTUP: return "startup";
    case KIND_DATATYPE: return "datatype";
    }
    return "?";
}

static void library_version(char *buf, size_t cap)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    v[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
    /* First line only: some libraries return a multi-line banner. */
    size_t n = strcspn(v, "\r\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
        buf[--n] = '\0';
}

void report_begin(const bench_opts *o, const bench_case *c, const char *title,
                  const report_col *cols, int ncols, const char *primary)
{
    R.o = o;
    R.c = c;
    snprintf(R.title, sizeof R.title, "%s", title);
    R.primary = primary;
    R.header_done = 0;
    R.ncols = ncols < MAX_COLS ? ncols : MAX_COLS;
    memcpy(R.cols, cols, sizeof(report_col) * (size_t)R.ncols);
    MPI_Comm_rank(MPI_COMM_WORLD, &R.rank);
    if (R.rank != 0)
        return;

    char lib[256];
    int np;
    library_version(lib, sizeof lib);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    printf("# %s %s\n", BENCH_NAME, title);
    printf("# Library: %s\n", lib);
    printf("# Processes: %d\n", np);
    if (o->validate)
        printf("# Data validation: on (timings exclude fill/check)\n");
    if (c->kind == KIND_COLL || c->kind == KIND_NBC)
        printf("# Calls: %s%s\n", o->back_to_back ? "back to back (-b)" : "separated by an untimed barrier",
               o->rotate_root ? "; the root moves to the next rank at every call (-r)" : "");
    fflush(stdout);
}

void report_note(const char *fmt, ...)
{
    char buf[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (R.rank != 0)
        return;
    printf("# %s\n", buf);
    fflush(stdout);
    if (R.nnotes < MAX_NOTES)
        memcpy(R.notes[R.nnotes++], buf, sizeof buf);
}

void report_row(long size, int iters, const double *vals, long errors)
{
    if (R.rank != 0)
        return;
    if (R.nrows == R.cap) {
        R.cap = R.cap ? R.cap * 2 : 32;
        R.rows = realloc(R.rows, sizeof(row_t) * (size_t)R.cap);
        if (!R.rows)
            bench_die("out of memory");
    }
    row_t *r = &R.rows[R.nrows++];
    r->size = size;
    r->iters = iters;
    r->errors = errors;
    memcpy(r->vals, vals, sizeof(double) * (size_t)R.ncols);
    print_header();

    if (size >= 0)
        printf("%-10ld", size);
    else
        printf("%-10s", "-");
    for (int i = 0; i < R.ncols; i++) {
        if (R.cols[i].full_only && !R.o->full)
            continue;
        if (isnan(vals[i]))
            printf("%20s", "-");
        else
            printf("%20.2f", vals[i]);
    }
    if (R.o->full)
        printf("%12d", iters);
    if (R.o->validate)
        printf("%12s", errors ? "Fail" : "Pass");
    printf("\n");
    fflush(stdout);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fputs("null", f);
    else
        fprintf(f, "%.6g", v);
}

static int write_json(long total_errors)
{
    FILE *f = fopen(R.o->json_path, "w");
    if (!f) {
        fprintf(stderr, "empi-bench: cannot write %s\n", R.o->json_path);
        return -1;
    }
    char lib[256];
    int np, ver, sub;
    library_version(lib, sizeof lib);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Get_version(&ver, &sub);

    fprintf(f, "{\n  \"schema_version\": 1,\n  \"suite\": \"empi-bench\",\n");
    fprintf(f, "  \"suite_version\": \"%s\",\n  \"case\": ", EMPI_BENCH_VERSION);
    json_str(f, R.c->name);
    fprintf(f, ",\n  \"kind\": \"%s\",\n  \"title\": ", kind_name(R.c->kind));
    json_str(f, R.title);
    fprintf(f, ",\n  \"library\": ");
    json_str(f, lib);
    fprintf(f, ",\n  \"mpi_version\": \"%d.%d\",\n  \"nprocs\": %d,\n", ver, sub, np);
    fprintf(f, "  \"options\": {\"min_size\": %zu, \"max_size\": %zu, \"iterations\": %d, "
               "\"warmup\": %d, \"window\": %d, \"full\": %s, \"validate\": %s, \"sync\": \"%s\", "
               "\"back_to_back\": %s, \"rotate_root\": %s},\n",
            R.o->min_size, R.o->max_size, R.o->iters, R.o->warmup, R.o->window,
            R.o->full ? "true" : "false", R.o->validate ? "true" : "false", sync_name(R.o->sync),
            R.o->back_to_back ? "true" : "false", R.o->rotate_root ? "true" : "false");
    fprintf(f, "  \"primary\": \"%s\",\n  \"columns\": [", R.primary);
    for (int i = 0; i < R.ncols; i++) {
        fprintf(f, "%s{\"key\": \"%s\", \"header\": ", i ? ", " : "", R.cols[i].key);
        json_str(f, R.cols[i].header);
        fputc('}', f);
    }
    fprintf(f, "],\n  \"results\": [");
    for (int r = 0; r < R.nrows; r++) {
        const row_t *row = &R.rows[r];
        fprintf(f, "%s\n    {\"size\": ", r ? "," : "");
        if (row->size >= 0)
            fprintf(f, "%ld", row->size);
        else
            fputs("null", f);
        fprintf(f, ", \"iterations\": %d", row->iters);
        for (int i = 0; i < R.ncols; i++) {
            fprintf(f, ", \"%s\": ", R.cols[i].key);
            json_num(f, row->vals[i]);
        }
        fprintf(f, ", \"errors\": %ld}", row->errors);
    }
    fprintf(f, "%s],\n  \"notes\": [", R.nrows ? "\n  " : "");
    for (int i = 0; i < R.nnotes; i++) {
        if (i)
            fputs(", ", f);
        json_str(f, R.notes[i]);
    }
    fprintf(f, "],\n  \"errors\": %ld,\n  \"status\": \"%s\"\n}\n", total_errors,
            total_errors ? "fail" : "pass");
    return fclose(f) ? -1 : 0;
}

int report_end(long total_errors)
{
    int rc = total_errors ? 1 : 0;
    if (R.rank == 0) {
        print_header();
        if (total_errors)
            printf("# VALIDATION FAILED: %ld wrong bytes/elements received\n", total_errors);
        if (R.o->json_path && write_json(total_errors))
            rc = rc ? rc : 3;
    }
    free(R.rows);
    R.rows = NULL;
    R.nrows = R.cap = 0;
    /* Everyone must agree on the exit code so mpiexec reports failure. */
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}
