/* Command line of mpiexec. Accepts the common spellings of MPICH (Hydra) and
 * Open MPI so existing scripts work unchanged. Options end at the first word that
 * is not an option (the program) or at "--". */
#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: mpiexec -n N [options] program [args...]\n"
        "  -n, -np, --np N          number of ranks (default 1)\n"
        "  -ppn N                   ranks per host, in consecutive blocks\n"
        "  -genv NAME VALUE         set NAME=VALUE for every rank (also -env)\n"
        "  -x NAME[=VALUE]          export NAME (current or given value) to every rank\n"
        "  --tag-output             prefix every output line with \"[rank] \"\n"
        "                           (also -tag-output, -prepend-rank, -l)\n"
        "  --timeout S              end the job after S seconds, exit 124\n"
        "                           (also env MPIEXEC_TIMEOUT)\n"
        "  --oversubscribe          accepted, no effect\n"
        "  -hosts H[:N],..          hosts (names or IPv4 addresses), optional slots each\n"
        "  -f FILE                  host file: one host per line, 'host:N' or 'host slots=N'\n"
        "                           remote hosts are reached with ssh, or $EMPI_LAUNCHER_RSH\n"
        "  -h, --help               this text\n"
        "  --version                version\n");
}

/* One host entry: "host", "host:N" or (host files) "host slots=N". */
static int add_host(mpiexec_options_t *o, const char *entry)
{
    char name[256];
    size_t n = strcspn(entry, ": \t");
    if (n == 0 || n >= sizeof name) {
        fprintf(stderr, "mpiexec: bad host entry '%s'\n", entry);
        return -1;
    }
    memcpy(name, entry, n);
    name[n] = '\0';
    const char *rest = entry + n;
    int slots = 0;
    rest += strspn(rest, " \t");
    if (*rest == ':')
        rest++;
    else if (!strncmp(rest, "slots=", 6))
        rest += 6;
    if (*rest) {
        char *end;
        long v = strtol(rest, &end, 10);
        end += strspn(end, " \t");
        if (v < 1 || v > 1000000 || *end) {
            fprintf(stderr, "mpiexec: bad slot count in host entry '%s'\n", entry);
            return -1;
        }
        slots = (int)v;
    }
    o->hosts = realloc(o->hosts, sizeof *o->hosts * (size_t)(o->nhosts + 1));
    o->hosts[o->nhosts++] = (host_entry_t){ strdup(name), slots };
    return 0;
}

static int add_host_list(mpiexec_options_t *o, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    for (char *h = strtok_r(copy, ", ", &save); h && rc == 0; h = strtok_r(NULL, ", ", &save))
        rc = add_host(o, h);
    free(copy);
    return rc;
}

static int add_host_file(mpiexec_options_t *o, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int rc = 0;
    if (!f) {
        fprintf(stderr, "mpiexec: cannot open host file %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (rc == 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\r\n")] = '\0';
        char *h = line + strspn(line, " \t");
        size_t end = strlen(h);
        while (end && (h[end - 1] == ' ' || h[end - 1] == '\t'))
            h[--end] = '\0';
        if (*h)
            rc = add_host(o, h);
    }
    fclose(f);
    if (rc == 0 && o->nhosts == 0) {
        fprintf(stderr, "mpiexec: host file %s names no host\n", path);
        rc = -1;
    }
    return rc;
}

static int parse_count(const char *opt, const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || v < 1 || v > 1000000) {
        fprintf(stderr, "mpiexec: %s needs a positive number, got '%s'\n", opt, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_seconds(const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end || v < 0) {
        fprintf(stderr, "mpiexec: %s needs a number of seconds, got '%s'\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

static void add_env(mpiexec_options_t *o, const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    snprintf(s, n, "%s=%s", name, value);
    o->env = realloc(o->env, sizeof(char *) * (size_t)(o->nenv + 1));
    o->env[o->nenv++] = s;
}

static int add_export(mpiexec_options_t *o, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (eq == spec || !*spec) {
        fprintf(stderr, "mpiexec: -x needs NAME or NAME=VALUE\n");
        return -1;
    }
    if (eq) {
        char *name = strndup(spec, (size_t)(eq - spec));
        add_env(o, name, eq + 1);
        free(name);
    } else if (getenv(spec)) {
        add_env(o, spec, getenv(spec));
    }
    return 0;
}

static int is_any(const char *arg, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(arg, *names))
            return 1;
    return 0;
}

#define ANY(...) is_any(opt, (const char *const[]){ __VA_ARGS__, NULL })

int options_parse(int argc, char **argv, mpiexec_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->nprocs = 1;
    const char *env_timeout = getenv("MPIEXEC_TIMEOUT");
    if (env_timeout && parse_seconds("MPIEXEC_TIMEOUT", env_timeout, &o->timeout) != 0)
        return -1;

    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        char optbuf[64];
        const char *opt = argv[i], *inline_val = NULL;
        /* "--np=4" style: split at '=' for the long options. */
        const char *eq = strchr(opt, '=');
        if (!strncmp(opt, "--", 2) && eq && (size_t)(eq - opt) < sizeof optbuf) {
            memcpy(optbuf, opt, (size_t)(eq - opt));
            optbuf[eq - opt] = '\0';
            opt = optbuf;
            inline_val = eq + 1;
        }
        if (!strcmp(opt, "--")) {
            i++;
            break;
        }
        int nargs = ANY("-n", "-np", "--np", "--n", "-c", "-ppn", "--ppn", "-npernode",
                        "--npernode", "-timeout", "--timeout", "-x", "-hosts", "-host",
                        "--host", "-H", "--hosts", "-f", "-hostfile", "--hostfile",
                        "-machinefile", "--machinefile", "-bind-to", "--bind-to",
                        "-map-by", "--map-by")  ? 1
                    : ANY("-genv", "-env")      ? 2
                                                : 0;
        if (inline_val && nargs != 1) {
            fprintf(stderr, "mpiexec: option %s takes no '=value'\n", opt);
            return -1;
        }
        const char *val = inline_val;
        if (nargs > 0 && !inline_val) {
            if (i + nargs >= argc) {
                fprintf(stderr, "mpiexec: option %s needs %d argument%s\n", opt, nargs,
                        nargs > 1 ? "s" : "");
                return -1;
            }
            val = argv[i + 1];
        }
        int rc = 0;
        if (ANY("-h", "--help", "-help")) {
            usage(stdout);
            return 1;
        } else if (ANY("--version", "-version", "-V")) {
            printf("mpiexec (EtherMPI) %s\n", EMPI_VERSION_STRING);
            return 1;
        } else if (ANY("-n", "-np", "--np", "--n", "-c")) {
            rc = parse_count(opt, val, &o->nprocs);
        } else if (ANY("-ppn", "--ppn", "-npernode", "--npernode")) {
            rc = parse_count(opt, val, &o->ppn);
        } else if (ANY("-timeout", "--timeout")) {
            rc = parse_seconds(opt, val, &o->timeout);
        } else if (ANY("-genv", "-env")) {
            add_env(o, argv[i + 1], argv[i + 2]);
        } else if (ANY("-x")) {
            rc = add_export(o, val);
        } else if (ANY("--tag-output", "-tag-output", "-prepend-rank", "--prepend-rank", "-l")) {
            o->tag_output = 1;
        } else if (ANY("-hosts", "-host", "--host", "-H", "--hosts")) {
            rc = add_host_list(o, val);
        } else if (ANY("-f", "-hostfile", "--hostfile", "-machinefile", "--machinefile")) {
            rc = add_host_file(o, val);
        } else if (ANY("--oversubscribe", "-oversubscribe", "-genvall", "--genvall",
                       "-bind-to", "--bind-to", "-map-by", "--map-by")) {
            /* accepted for compatibility; nothing to do on one host */
        } else {
            fprintf(stderr, "mpiexec: unknown option '%s' (see mpiexec --help)\n", argv[i]);
            return -1;
        }
        if (rc != 0)
            return -1;
        i += 1 + (inline_val ? 0 : nargs);
    }
    if (i >= argc) {
        fprintf(stderr, "mpiexec: no program given\n");
        usage(stderr);
        return -1;
    }
    o->argv = argv + i;
    return 0;
}

void options_free(mpiexec_options_t *o)
{
    for (int i = 0; i < o->nhosts; i++)
        free(o->hosts[i].name);
    free(o->hosts);
    o->hosts = NULL;
    o->nhosts = 0;
    for (int i = 0; i < o->nenv; i++)
        free(o->env[i]);
    free(o->env);
    o->env = NULL;
    o->nenv = 0;
}
