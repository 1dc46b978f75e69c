/* Timers, iteration scaling, buffers, data patterns and the calibrated
 * computation used by the overlap measurements. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

/* The timer can be paused so that -c's fill/check work is not counted. */
void timer_start(bench_timer *t)
{
    t->acc = 0.0;
    t->started = 1;
    t->running = 1;
    t->t0 = MPI_Wtime();
}

void timer_pause(bench_timer *t)
{
    if (t->running) {
        t->acc += MPI_Wtime() - t->t0;
        t->running = 0;
    }
}

void timer_resume(bench_timer *t)
{
    if (t->started && !t->running) {
        t->running = 1;
        t->t0 = MPI_Wtime();
    }
}

double timer_stop(bench_timer *t)
{
    timer_pause(t);
    t->started = 0;
    return t->acc;
}

void iters_for_size(const bench_opts *o, size_t size, int *iters, int *warmup)
{
    *iters = o->iters;
    *warmup = o->warmup;
    if (size > BENCH_LARGE_SIZE) {
        *iters = o->iters / 10 > 0 ? o->iters / 10 : 1;
        *warmup = o->warmup / 10;
    }
}

size_t next_size(size_t s)
{
    return s ? s * 2 : 1;
}

void *bench_alloc(size_t bytes)
{
    /* Page alignment mirrors what real applications and the established
     * suites use, and keeps results independent of malloc's placement. */
    void *p = NULL;
    if (bytes == 0)
        bytes = 1;
    if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p) != MPI_SUCCESS || !p)
        bench_die("out of memory");
    memset(p, 0, bytes);
    return p;
}

void bench_free(void *p)
{
    if (p)
        MPI_Free_mem(p);
}

static uint32_t mix(size_t size, int iter, int src)
{
    uint32_t h = (uint32_t)size * 2654435761u;
    h ^= (uint32_t)(iter + 1) * 40503u;
    h ^= (uint32_t)(src + 7) * 2246822519u;
    h ^= h >> 15;
    return h * 2654435761u;
}

/* Byte j of the pattern: varies with position so shifted or truncated data
 * is caught, and with (size, iter, src) so stale or misrouted data is too. */
static unsigned char pattern_byte(uint32_t h, size_t j)
{
    return (unsigned char)((h >> ((j & 3) * 8)) + (uint32_t)j * 131u + (uint32_t)(j >> 8));
}

void pattern_fill(void *buf, size_t len, size_t size, int iter, int src)
{
    unsigned char *p = buf;
    uint32_t h = mix(size, iter, src);
    for (size_t j = 0; j < len; j++)
        p[j] = pattern_byte(h, j);
}

int bench_self_test;

size_t pattern_check(const void *buf, size_t len, size_t size, int iter, int src)
{
    const unsigned char *p = buf;
    uint32_t h = mix(size, iter, src);
    size_t bad = 0;
    for (size_t j = 0; j < len; j++)
        bad += p[j] != pattern_byte(h, j);
    /* --self-test: pretend the first byte arrived flipped, to prove that
     * a wrong byte is reported and turns into a failing exit code. */
    if (bench_self_test && len > 0 && p[0] == pattern_byte(h, 0))
        bad++;
    return bad;
}

/* Small values so sums over many ranks/iterations never overflow int32. */
int32_t pattern_int(size_t k, int iter, int src)
{
    return (int32_t)((k * 7u + (size_t)iter * 3u + (size_t)src * 11u) % 101u);
}

/* ---- calibrated computation ---- */
static double units_per_us = 0.0;
static volatile double compute_sink;

static void compute_units(long n)
{
    /* Dependent floating-point chain: cannot be vectorised away and does not
     * touch memory, so it does not compete with the transfer for bandwidth. */
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    compute_sink = x;
}

void compute_calibrate(void)
{
    long n = 1000;
    double t;
    /* Grow the work until it takes long enough to time reliably. */
    for (;;) {
        double t0 = MPI_Wtime();
        compute_units(n);
        t = MPI_Wtime() - t0;
        if (t > 0.01 || n > (1L << 40))
            break;
        n *= 4;
    }
    units_per_us = (double)n / (t * 1e6);
}

double compute_for_us(double us)
{
    if (units_per_us <= 0.0)
        compute_calibrate();
    double t0 = MPI_Wtime();
    compute_units((long)(us * units_per_us));
    return MPI_Wtime() - t0;
}

int bench_rank(void)
{
    int init = 0, fin = 0, r = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

void bench_die(const char *msg)
{
    fprintf(stderr, "empi-bench: rank %d: %s\n", bench_rank(), msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
}
