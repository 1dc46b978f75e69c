/* Command-line parsing. Option letters follow the established suites so users
 * can type what they already know: -m min:max, -i, -x, -W, -f, -c. */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void opts_usage(FILE *f)
{
    fprintf(f,
            "Usage: empi-bench <case> [options]\n"
            "       empi-bench -l | --list\n"
            "Options:\n"
            "  -m [MIN:]MAX    message sizes in bytes (powers of two from MIN to MAX);\n"
            "                  suffixes K, M allowed (e.g. -m 1:4M, -m 64)\n"
            "  -i N            timed iterations for small messages (large: N/10)\n"
            "  -x N            warm-up iterations for small messages (large: N/10)\n"
            "  -W N            window size (messages in flight) for bandwidth cases\n"
            "  -f              full statistics (min/max/iterations columns)\n"
            "  -c              validate received data; exit non-zero on wrong bytes\n"
            "  -b              collectives back to back (default: an untimed barrier after every\n"
            "                  call, as OSU's collective benchmarks do; with -b a rank may run\n"
            "                  calls ahead of the others, as in IMB)\n"
            "  -r              rooted collectives take the next rank as root at every call, as\n"
            "                  in IMB (default: rank 0 always, as in OSU)\n"
            "  -s SYNC         RMA synchronisation: fence, lock, flush (default), pscw\n"
            "  --json FILE     also write machine-readable results to FILE\n"
            "  --self-test     with -c: simulate a wrong byte (checks the checker)\n"
            "  -l, --list      list the cases\n"
            "  -h, --help      this help\n"
            "  compare/report  (via the empi-bench wrapper) run/report the peer comparison\n");
}

const char *sync_name(enum rma_sync s)
{
    switch (s) {
    case SYNC_FENCE: return "fence";
    case SYNC_LOCK: return "lock";
    case SYNC_FLUSH: return "flush";
    case SYNC_PSCW: return "pscw";
    }
    return "?";
}

/* Parse a size with optional K/M/G suffix; returns 0 on success. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end != '\0')
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_int(const char *s, int *out, int minval)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < minval || v > 1000000000L)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_range(const char *arg, bench_opts *o)
{
    const char *colon = strchr(arg, ':');
    if (!colon) {
        /* "-m MAX" as in the established suite. */
        if (parse_size(arg, &o->max_size))
            return -1;
        o->max_set = 1;
        return 0;
    }
    char lo[64];
    size_t n = (size_t)(colon - arg);
    if (n >= sizeof lo)
        return -1;
    memcpy(lo, arg, n);
    lo[n] = '\0';
    if (n > 0) {
        if (parse_size(lo, &o->min_size))
            return -1;
        o->min_set = 1;
    }
    if (colon[1] != '\0') {
        if (parse_size(colon + 1, &o->max_size))
            return -1;
        o->max_set = 1;
    }
    return 0;
}

static int bad(const char *what, const char *val)
{
    if (bench_rank() == 0)
        fprintf(stderr, "empi-bench: invalid %s '%s'\n", what, val ? val : "");
    return -1;
}

int opts_parse(int argc, char **argv, bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->sync = SYNC_FLUSH;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        /* Options taking a value accept "-i 10" and "-i10". */
        const char *val = NULL;
        if (a[0] == '-' && a[1] && a[1] != '-' && strchr("mixWs", a[1]))
            val = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (bench_rank() == 0)
                opts_usage(stdout);
            return 1;
        } else if (!strcmp(a, "-l") || !strcmp(a, "--list")) {
            if (bench_rank() == 0)
                case_list(stdout);
            return 1;
        } else if (!strcmp(a, "--json")) {
            if (i + 1 >= argc)
                return bad("--json", NULL);
            o->json_path = argv[++i];
        } else if (!strncmp(a, "--json=", 7)) {
            o->json_path = a + 7;
        } else if (!strcmp(a, "--self-test")) {
            bench_self_test = 1;
        } else if (!strcmp(a, "-f")) {
            o->full = 1;
        } else if (!strcmp(a, "-c")) {
            o->validate = 1;
        } else if (!strcmp(a, "-b")) {
            o->back_to_back = 1;
        } else if (!strcmp(a, "-r")) {
            o->rotate_root = 1;
        } else if (a[0] == '-' && a[1] == 'm') {
            if (!val || parse_range(val, o))
                return bad("size range (-m)", val);
        } else if (a[0] == '-' && a[1] == 'i') {
            if (!val || parse_int(val, &o->iters, 1))
                return bad("iteration count (-i)", val);
            o->iters_set = 1;
        } else if (a[0] == '-' && a[1] == 'x') {
            if (!val || parse_int(val, &o->warmup, 0))
                return bad("warm-up count (-x)", val);
            o->warmup_set = 1;
        } else if (a[0] == '-' && a[1] == 'W') {
            if (!val || parse_int(val, &o->window, 1))
                return bad("window size (-W)", val);
        } else if (a[0] == '-' && a[1] == 's') {
            if (!val)
                return bad("sync mode (-s)", val);
            else if (!strcmp(val, "fence")) o->sync = SYNC_FENCE;
            else if (!strcmp(val, "lock")) o->sync = SYNC_LOCK;
            else if (!strcmp(val, "flush")) o->sync = SYNC_FLUSH;
            else if (!strcmp(val, "pscw")) o->sync = SYNC_PSCW;
            else return bad("sync mode (-s)", val);
            o->sync_set = 1;
        } else if (a[0] != '-' && !o->case_name) {
            o->case_name = a;
        } else {
            return bad("option", a);
        }
    }
    if (!o->case_name) {
        if (bench_rank() == 0)
            opts_usage(stderr);
        return -1;
    }
    if (o->min_set && o->max_set && o->min_size > o->max_size)
        return bad("size range (-m): min > max", "");
    return 0;
}

/* Defaults per kind, close to the established suite's so numbers compare. */
void opts_apply_defaults(bench_opts *o, const bench_case *c)
{
    size_t dmin = 1, dmax = (size_t)1 << 22;
    int diters = 10000, dwarm = 100;
    switch (c->kind) {
    case KIND_PT2PT: break;
    case KIND_COLL: case KIND_NBC: dmax = (size_t)1 << 20; diters = 1000; dwarm = 100; break;
    case KIND_RMA: break;
    case KIND_DATATYPE: break;
    case KIND_STARTUP: dmin = dmax = 0; diters = 1; dwarm = 0; break;
    }
    if (!o->min_set) o->min_size = dmin;
    if (!o->max_set) o->max_size = dmax;
    if (o->min_size > o->max_size) o->min_size = o->max_size;
    if (!o->iters_set) o->iters = diters;
    if (!o->warmup_set) o->warmup = dwarm;
    if (o->window <= 0) o->window = 64;
}
