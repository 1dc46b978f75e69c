/* empi-bench: shared declarations for the micro-benchmark suite.
 *
 * Written only against the standard MPI API so that the same sources build
 * with any implementation's mpicc (EtherMPI, MPICH, Open MPI, Intel MPI). */
#ifndef EMPI_BENCH_H
#define EMPI_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_NAME "EtherMPI empi-bench"
#ifndef EMPI_BENCH_VERSION
#define EMPI_BENCH_VERSION "0.1.0"
#endif

/* Sizes above this use the "large" iteration counts (a tenth of the small
 * ones), as the established suites do, so a full sweep stays quick. */
#define BENCH_LARGE_SIZE 8192

/* RMA synchronisation modes. */
enum rma_sync { SYNC_FENCE, SYNC_LOCK, SYNC_FLUSH, SYNC_PSCW };

typedef struct bench_opts {
    const char *case_name;
    size_t min_size, max_size;
    int min_set, max_set;
    int iters, warmup;         /* small-message counts */
    int iters_set, warmup_set; /* given on the command line? */
    int window;
    int full;      /* -f: min/max/iterations columns */
    int validate;  /* -c: fill, check, fail on wrong bytes */
    int back_to_back; /* -b: collectives without the untimed barrier after each call */
    int rotate_root;  /* -r: a rooted collective's root moves to the next rank at every call */
    const char *json_path;
    enum rma_sync sync;
    int sync_set;
} bench_opts;

struct bench_case;
typedef long (*bench_fn)(const struct bench_case *c, const bench_opts *o);

/* Kinds decide default sizes/iterations and which options apply. */
enum case_kind { KIND_PT2PT, KIND_COLL, KIND_NBC, KIND_RMA, KIND_STARTUP, KIND_DATATYPE };

typedef struct bench_case {
    const char *name;
    enum case_kind kind;
    bench_fn fn;
    int op; /* case-specific selector (collective op, RMA op, ...) */
    const char *desc;
} bench_case;

/* ---- options.c ---- */
/* Returns 0 on success, 1 when the program should exit successfully
 * (help/list printed), -1 on a usage error (message already printed). */
int opts_parse(int argc, char **argv, bench_opts *o);
void opts_apply_defaults(bench_opts *o, const bench_case *c);
void opts_usage(FILE *f);
const char *sync_name(enum rma_sync s);

/* ---- main.c ---- */
const bench_case *case_find(const char *name);
void case_list(FILE *f);

/* ---- util.c ---- */
typedef struct {
    double acc, t0;
    int running, started;
} bench_timer;
void timer_start(bench_timer *t);
void timer_pause(bench_timer *t);
void timer_resume(bench_timer *t);
double timer_stop(bench_timer *t); /* returns accumulated seconds */

/* Messages per window for a size (fewer for huge messages; see pt2pt_bw.c). */
int bw_window(const bench_opts *o, size_t size);
/* Buffer bytes for a window of messages of up to max_slot bytes each. */
size_t bw_window_bytes(const bench_opts *o, size_t max_slot);
/* Iterations/warm-up to use for one message size. */
void iters_for_size(const bench_opts *o, size_t size, int *iters, int *warmup);
/* Next size in the powers-of-two sweep (0 -> 1, otherwise doubled). */
size_t next_size(size_t s);

void *bench_alloc(size_t bytes);
void bench_free(void *p);

/* Data pattern used by -c: depends on size, iteration and a "source" id
 * (usually the sending rank), so stale or misrouted bytes are detected. */
void pattern_fill(void *buf, size_t len, size_t size, int iter, int src);
size_t pattern_check(const void *buf, size_t len, size_t size, int iter, int src);
int32_t pattern_int(size_t k, int iter, int src);
extern int bench_self_test; /* --self-test: simulate one wrong byte per check */

/* Calibrated busy computation used for overlap measurements. */
void compute_calibrate(void);
double compute_for_us(double us); /* returns seconds actually spent */

/* Exit with a message on rank 0 and abort everyone. */
void bench_die(const char *msg);
int bench_rank(void);

/* ---- report.c ---- */
typedef struct {
    const char *key;    /* JSON key, e.g. "latency_us" */
    const char *header; /* column header, e.g. "Latency (us)" */
    int full_only;      /* shown only with -f (always in JSON) */
} report_col;

void report_begin(const bench_opts *o, const bench_case *c, const char *title,
                  const report_col *cols, int ncols, const char *primary);
void report_note(const char *fmt, ...);
/* vals has ncols entries; size < 0 means "no size" (e.g. barrier). */
void report_row(long size, int iters, const double *vals, long errors);
/* Writes the JSON file (if requested) and returns the process exit code. */
int report_end(long total_errors);

/* ---- cases ---- */
long run_latency(const bench_case *c, const bench_opts *o);
long run_bw(const bench_case *c, const bench_opts *o);   /* bw, bibw, vector_bw */
long run_multi(const bench_case *c, const bench_opts *o); /* mbw_mr, multi_lat */
long run_coll(const bench_case *c, const bench_opts *o);
long run_nbc(const bench_case *c, const bench_opts *o);
long run_rma(const bench_case *c, const bench_opts *o);
long run_startup(const bench_case *c, const bench_opts *o);
long run_pack(const bench_case *c, const bench_opts *o); /* pack_* */

/* MPI_Init timing captured by main before anything else happens. */
extern double bench_init_seconds;
extern double bench_process_start;

#endif
