/* Command line of mpiexec. Accepts the common spellings of MPICH (Hydra) and
 * Open MPI so existing scripts work unchanged. The line is one or more app contexts
 * separated by ":" words (MPMD, as in the MPI standard's mpiexec); in each, options end
 * at the first word that is not an option (the program) or at "--". -n, -env and -wdir
 * belong to their context; every other option applies to the whole job wherever it appears. */
#include "mpiexec.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_RANKS 1000000

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: mpiexec [-n N] [options] program [args...]\n"
        "       mpiexec [-n N] [options] prog1 [args...] : [-n N] [-env NAME VALUE] prog2 [args...] : ...\n"
        "  Each ':'-separated part is an app context (MPMD) with its own program, arguments, -n,\n"
        "  -env, -wdir and -host; ranks are numbered across the contexts in order; MPI_APPNUM of\n"
        "  a rank is the index of its context.\n"
        "  -n, -np, --np N          number of ranks of this context (default 1)\n"
        "  -env NAME VALUE          set NAME=VALUE for the ranks of this context\n"
        "  -wdir DIR                run the ranks of this context in DIR (also --wdir, -wd);\n"
        "                           a relative program path is relative to it\n"
        "  -nargs K                 the program takes exactly the K words after it as its\n"
        "                           arguments, ':' included (what MPI_Comm_spawn passes)\n"
        "Options for the whole job, in whichever context they appear:\n"
        "  -genv NAME VALUE         set NAME=VALUE for every rank (-env overrides it)\n"
        "  -x NAME[=VALUE]          export NAME (current or given value) to every rank\n"
        "  -ppn N                   ranks per host, in consecutive blocks (also -N, --npernode)\n"
        "  -usize N                 MPI_UNIVERSE_SIZE (at least the number of ranks; also\n"
        "                           --universe-size, env MPIEXEC_UNIVERSE_SIZE; default: the\n"
        "                           hosts' slots if they are more than the ranks, else the ranks)\n"
        "  --tag-output             prefix every output line with \"[rank] \"\n"
        "                           (also -tag-output, -prepend-rank, -l)\n"
        "  -outfile-pattern P       each rank's stdout into file P, %%r replaced by the rank;\n"
        "  -errfile-pattern P       likewise stderr (the same P: one file for both);\n"
        "  --output-filename DIR    Open MPI's layout: DIR/1/rank.N/stdout and stderr (N\n"
        "                           zero-padded), also on the terminal; DIR:nocopy,nojobid\n"
        "  -print-all-exitcodes     at the end, every rank's exit code (or signal)\n"
        "  --display-map            before the start, which host every rank runs on\n"
        "  --timeout S              end the job after S seconds, exit 124\n"
        "                           (also env MPIEXEC_TIMEOUT)\n"
        "  -gwdir DIR               working directory of the contexts without a -wdir\n"
        "  --bind-to auto|core|hwthread|none  bind each rank to one core or hardware thread\n"
        "                           of a host, in local-rank order, round-robin when they\n"
        "                           outnumber them; auto (the default) gives each rank an\n"
        "                           even slice of the cores while they go round, a lone\n"
        "                           rank or too many stay unbound (also env EMPI_BIND_TO)\n"
        "  --report-bindings        every rank prints the CPUs it may run on\n"
        "  --oversubscribe          accepted, no effect; so are --allow-run-as-root,\n"
        "                           --use-hwthread-cpus, -map-by, --prefix, -v, -q, and\n"
        "                           -genvall/-envall, -genvlist/-envlist, --rank-by (the whole\n"
        "                           environment is passed anyway; ranks are numbered in order)\n"
        "  --mca NAME VALUE         Open MPI's parameters: ignored with a warning (ours are\n"
        "                           EMPI_* environment variables, listed by empi-info)\n"
        "  -hosts H[:N],..          hosts (names or IPv4 addresses), optional slots each\n"
        "                           (also --hosts); -host, --host, -H give the hosts of their\n"
        "                           own context (the job's hosts serve the contexts without)\n"
        "  -f FILE                  host file: one host per line, 'host:N' or 'host slots=N'\n"
        "                           (also -hostfile, --hostfile, -machinefile)\n"
        "                           remote hosts are reached with ssh, or $EMPI_LAUNCHER_RSH\n"
        "  -launcher ssh|rsh|fork   how remote hosts are reached (also -bootstrap; fork:\n"
        "                           no remote hosts);\n"
        "  -launcher-exec CMD       the command that does it (also -bootstrap-exec)\n"
        "  -h, --help               this text\n"
        "  --version                version\n"
        "Ranks get EMPI_MPIEXEC, the path of this mpiexec (MPI_Comm_spawn runs it), and their\n"
        "rank, size, local rank and local size as MPI's other launchers name them for wrapper\n"
        "scripts: MPI_LOCALRANKID, MPI_LOCALNRANKS, OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE}.\n");
}

/* App context being parsed (1-based); errors name it once there is more than one. */
static int cur_app;

static void opt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void opt_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpiexec: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (cur_app > 1)
        fprintf(stderr, " (in app context %d)", cur_app);
    fputc('\n', stderr);
}

/* Context of the -host being parsed (-1: a job-wide option). */
static int host_app = -1;

/* One host entry: "host", "host:N" or (host files) "host slots=N". */
static int add_host(mpiexec_options_t *o, const char *entry)
{
    char name[256];
    size_t n = strcspn(entry, ": \t");
    if (n == 0 || n >= sizeof name) {
        opt_error("bad host entry '%s'", entry);
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
        if (v < 1 || v > MAX_RANKS || *end) {
            opt_error("bad slot count in host entry '%s'", entry);
            return -1;
        }
        slots = (int)v;
    }
    o->hosts = realloc(o->hosts, sizeof *o->hosts * (size_t)(o->nhosts + 1));
    o->hosts[o->nhosts++] = (host_entry_t){ strdup(name), slots, host_app };
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
    char *line = NULL; /* whole lines: a long comment must not spill into host entries */
    size_t cap = 0;
    int rc = 0;
    if (!f) {
        opt_error("cannot open host file %s: %s", path, strerror(errno));
        return -1;
    }
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        line[strcspn(line, "#\r\n")] = '\0';
        char *h = line + strspn(line, " \t");
        size_t end = strlen(h);
        while (end && (h[end - 1] == ' ' || h[end - 1] == '\t'))
            h[--end] = '\0';
        if (*h)
            rc = add_host(o, h);
    }
    free(line);
    fclose(f);
    if (rc == 0 && o->nhosts == 0) {
        opt_error("host file %s names no host", path);
        rc = -1;
    }
    return rc;
}

/* A whole number in [lo, hi] (`what` names it in the error) into *out. */
static int parse_int(const char *opt, const char *s, long lo, long hi, const char *what, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || v < lo || v > hi) {
        opt_error("%s needs %s, got '%s'", opt, what, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_count(const char *opt, const char *s, int *out)
{
    return parse_int(opt, s, 1, MAX_RANKS, "a positive number", out);
}

static int parse_seconds(const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end || v < 0) {
        opt_error("%s needs a number of seconds, got '%s'", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

static void add_env(char ***env, int *nenv, const char *name, const char *value)
{
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    snprintf(s, n, "%s=%s", name, value);
    *env = realloc(*env, sizeof(char *) * (size_t)(*nenv + 1));
    (*env)[(*nenv)++] = s;
}

static int add_export(mpiexec_options_t *o, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (eq == spec || !*spec) {
        opt_error("-x needs NAME or NAME=VALUE");
        return -1;
    }
    if (eq) {
        char *name = strndup(spec, (size_t)(eq - spec));
        add_env(&o->env, &o->nenv, name, eq + 1);
        free(name);
    } else if (getenv(spec)) {
        add_env(&o->env, &o->nenv, spec, getenv(spec));
    }
    return 0;
}

/* --bind-to: the ranks bind themselves at MPI_Init (EMPI_BIND_TO). Open MPI's modifiers
   (core:overload-allowed) are dropped; levels we do not bind at leave the ranks unbound. */
static int set_binding(mpiexec_options_t *o, const char *spec)
{
    char level[32];
    snprintf(level, sizeof level, "%.*s", (int)strcspn(spec, ":"), spec);
    if (!strcmp(level, "cores"))
        strcpy(level, "core");
    if (!strcmp(level, "hwthreads"))
        strcpy(level, "hwthread");
    if (strcmp(level, "core") && strcmp(level, "hwthread") && strcmp(level, "none") && strcmp(level, "auto")) {
        fprintf(stderr, "mpiexec: --bind-to %s is not supported (core, hwthread, auto, none): ranks are not bound\n",
                spec);
        strcpy(level, "none");
    }
    add_env(&o->env, &o->nenv, "EMPI_BIND_TO", level);
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

/* A file name pattern from `text`: '%' escaped unless `raw` (then %r is the rank), absolute. */
static char *pattern_from(const char *text, int raw, const char *tail)
{
    char cwd[4096] = "";
    if (text[0] != '/' && !getcwd(cwd, sizeof cwd))
        return NULL;
    size_t cap = strlen(cwd) + 2 * strlen(text) + strlen(tail) + 2;
    char *out = malloc(cap), *q = out;
    if (!out)
        return NULL;
    if (cwd[0])
        q += sprintf(q, "%s/", cwd);
    for (const char *p = text; *p; p++) {
        if (*p == '%' && !raw)
            *q++ = '%';
        *q++ = *p;
    }
    strcpy(q, tail);
    return out;
}

static int set_pattern(char **field, const char *opt, const char *val)
{
    if (!*val) {
        opt_error("%s needs a file name", opt);
        return -1;
    }
    free(*field);
    if (!(*field = pattern_from(val, 1, ""))) {
        opt_error("%s %s: cannot make the name absolute", opt, val);
        return -1;
    }
    return 0;
}

/* Open MPI's --output-filename DIR[:nocopy,nojobid]: DIR/1/rank.N/stdout and .../stderr, N
   zero-padded to the digits of the job size; the terminal gets the lines too unless nocopy. */
static int set_output_dir(mpiexec_options_t *o, const char *opt, const char *val)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", val);
    char *colon = strchr(dir, ':');
    int nocopy = 0, nojobid = 0;
    if (colon) {
        *colon = '\0';
        for (char *d = strtok(colon + 1, ","); d; d = strtok(NULL, ",")) {
            if (!strcasecmp(d, "nocopy"))
                nocopy = 1;
            else if (!strcasecmp(d, "nojobid"))
                nojobid = 1;
            else {
                opt_error("%s: unknown directive '%s' (nocopy, nojobid)", opt, d);
                return -1;
            }
        }
    }
    if (!dir[0]) {
        opt_error("%s needs a directory", opt);
        return -1;
    }
    free(o->out_pattern);
    free(o->err_pattern);
    o->out_pattern = pattern_from(dir, 0, nojobid ? "/rank.%r/stdout" : "/1/rank.%r/stdout");
    o->err_pattern = pattern_from(dir, 0, nojobid ? "/rank.%r/stderr" : "/1/rank.%r/stderr");
    if (!o->out_pattern || !o->err_pattern) {
        opt_error("%s %s: cannot make the name absolute", opt, val);
        return -1;
    }
    o->output_padded = 1;
    o->output_copy = !nocopy;
    return 0;
}

/* MPICH's -launcher/-bootstrap: how remote proxies start. fork: this host only. */
static int set_launcher(mpiexec_options_t *o, const char *opt, const char *val)
{
    if (!strcmp(val, "ssh") || !strcmp(val, "rsh")) {
        setenv("EMPI_LAUNCHER_RSH", val, 1);
        return 0;
    }
    if (!strcmp(val, "fork")) {
        o->launcher_fork = 1;
        return 0;
    }
    opt_error("%s %s is not supported: remote hosts are reached with ssh or rsh (or the command in "
              "-launcher-exec); under Slurm start the ranks with srun --mpi=pmi2 (docs/NETWORK.md)", opt, val);
    return -1;
}

/* The options of one app context from argv[*pos]; *pos is left at its program. 0: go on;
 * 1: help/version printed; -1: error reported. */
static int parse_options(int argc, char **argv, int *pos, mpiexec_options_t *o, app_context_t *app)
{
    int i = *pos;
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
                        "-map-by", "--map-by", "-usize", "--usize", "--universe-size",
                        "-universe-size", "-nargs", "-wdir", "--wdir", "-wd", "--wd", "-gwdir", "--gwdir", "--prefix",
                        "-prefix", "-N", "-genvlist", "-envlist", "-launcher", "-bootstrap", "-launcher-exec",
                        "-bootstrap-exec", "-outfile-pattern", "-errfile-pattern", "--output-filename",
                        "-output-filename", "--rank-by", "-rank-by", "--parent-pid") ? 1
                    : ANY("-genv", "-env", "--mca", "-mca", "--gmca", "-gmca") ? 2
                                           : 0;
        if (inline_val && nargs != 1) {
            opt_error("option %s takes no '=value'", opt);
            return -1;
        }
        const char *val = inline_val;
        if (nargs > 0 && !inline_val) {
            if (i + nargs >= argc) {
                opt_error("option %s needs %d argument%s", opt, nargs, nargs > 1 ? "s" : "");
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
            rc = parse_count(opt, val, &app->nprocs);
        } else if (ANY("-ppn", "--ppn", "-npernode", "--npernode", "-N")) {
            rc = parse_count(opt, val, &o->ppn);
        } else if (ANY("-usize", "--usize", "--universe-size", "-universe-size")) {
            rc = parse_count(opt, val, &o->universe_size);
        } else if (ANY("-timeout", "--timeout")) {
            rc = parse_seconds(opt, val, &o->timeout);
        } else if (ANY("-genv")) {
            add_env(&o->env, &o->nenv, argv[i + 1], argv[i + 2]);
        } else if (ANY("-env")) {
            add_env(&app->env, &app->nenv, argv[i + 1], argv[i + 2]);
        } else if (ANY("-x")) {
            rc = add_export(o, val);
        } else if (ANY("--tag-output", "-tag-output", "-prepend-rank", "--prepend-rank", "-l")) {
            o->tag_output = 1;
        } else if (ANY("-host", "--host", "-H")) {
            host_app = cur_app - 1;   /* Open MPI's and the standard's: hosts of this context */
            rc = add_host_list(o, val);
            host_app = -1;
        } else if (ANY("-hosts", "--hosts")) {
            rc = add_host_list(o, val);
        } else if (ANY("-f", "-hostfile", "--hostfile", "-machinefile", "--machinefile")) {
            rc = add_host_file(o, val);
        } else if (ANY("-bind-to", "--bind-to")) {
            rc = set_binding(o, val);
        } else if (ANY("--report-bindings", "-report-bindings")) {
            add_env(&o->env, &o->nenv, "EMPI_REPORT_BINDINGS", "1");
        } else if (ANY("--parent-pid")) {
            int pid;
            rc = parse_int(opt, val, 1, INT_MAX, "a process id", &pid);
            o->parent_pid = pid;
        } else if (ANY("-nargs")) {
            rc = parse_int(opt, val, 0, INT_MAX / 2, "a number of arguments", &app->nargs);
        } else if (ANY("-wdir", "--wdir", "-wd", "--wd")) {
            free(app->wdir);
            app->wdir = strdup(val);
        } else if (ANY("-gwdir", "--gwdir")) {
            free(o->wdir);
            o->wdir = strdup(val);
        } else if (ANY("-launcher", "-bootstrap")) {
            rc = set_launcher(o, opt, val);
        } else if (ANY("-launcher-exec", "-bootstrap-exec")) {
            setenv("EMPI_LAUNCHER_RSH", val, 1);
        } else if (ANY("-outfile-pattern")) {
            rc = set_pattern(&o->out_pattern, opt, val);
        } else if (ANY("-errfile-pattern")) {
            rc = set_pattern(&o->err_pattern, opt, val);
        } else if (ANY("--output-filename", "-output-filename")) {
            rc = set_output_dir(o, opt, val);
        } else if (ANY("-print-all-exitcodes", "--print-all-exitcodes")) {
            o->print_exit_codes = 1;
        } else if (ANY("--display-map", "-display-map")) {
            o->display_map = 1;
        } else if (ANY("--mca", "-mca", "--gmca", "-gmca")) {
            fprintf(stderr, "mpiexec: ignoring %s %s %s: EtherMPI has no MCA parameters (its settings are "
                    "EMPI_* environment variables, listed by empi-info)\n", opt, argv[i + 1], argv[i + 2]);
        } else if (ANY("--oversubscribe", "-oversubscribe", "-genvall", "--genvall", "-envall",
                       "-map-by", "--map-by", "--allow-run-as-root",
                       "-allow-run-as-root", "--use-hwthread-cpus", "-use-hwthread-cpus", "--prefix",
                       "-prefix", "-v", "--verbose", "-q", "--quiet", "-genvlist", "-envlist", "--rank-by",
                       "-rank-by")) {
            /* Accepted so that scripts written for Open MPI or MPICH run unchanged: ranks are
               placed and numbered in order and not bound, running as root is allowed, the
               installation is found from this mpiexec's own path, and the whole environment
               reaches the ranks (so the variables -genvlist names do too). */
        } else {
            opt_error("unknown option '%s' (see mpiexec --help)", argv[i]);
            return -1;
        }
        if (rc != 0)
            return -1;
        i += 1 + (inline_val ? 0 : nargs);
    }
    *pos = i;
    return 0;
}

/* Once one context names its hosts (-host), every context needs hosts: its own or the job's. */
static int check_context_hosts(const mpiexec_options_t *o)
{
    int per_context = 0, global = 0;
    for (int h = 0; h < o->nhosts; h++) {
        per_context |= o->hosts[h].app >= 0;
        global |= o->hosts[h].app < 0;
    }
    for (int a = 0; per_context && !global && a < o->napps; a++) {
        int own = 0;
        for (int h = 0; h < o->nhosts; h++)
            own |= o->hosts[h].app == a;
        if (!own) {
            opt_error("app context %d has no hosts while others give theirs with -host: give it -host too, "
                      "or give the job -hosts", a + 1);
            return -1;
        }
    }
    return 0;
}

int options_parse(int argc, char **argv, mpiexec_options_t *o)
{
    memset(o, 0, sizeof *o);
    cur_app = 0;
    const char *env_timeout = getenv("MPIEXEC_TIMEOUT");
    if (env_timeout && *env_timeout && parse_seconds("MPIEXEC_TIMEOUT", env_timeout, &o->timeout) != 0)
        return -1;
    const char *env_usize = getenv("MPIEXEC_UNIVERSE_SIZE");
    if (env_usize && *env_usize && parse_count("MPIEXEC_UNIVERSE_SIZE", env_usize, &o->universe_size) != 0)
        return -1;

    int i = 1;
    for (;;) {
        o->apps = realloc(o->apps, sizeof *o->apps * (size_t)(o->napps + 1));
        app_context_t *app = &o->apps[o->napps++];
        *app = (app_context_t){ .nprocs = 1, .nargs = -1 };
        cur_app = o->napps;
        int rc = parse_options(argc, argv, &i, o, app);
        if (rc != 0)
            return rc;
        if (i >= argc || !strcmp(argv[i], ":")) {
            if (i < argc)
                opt_error("no program given before ':'");
            else
                opt_error("no program given%s", o->napps > 1 ? " after the last ':'" : "");
            usage(stderr);
            return -1;
        }
        int end = i + 1;
        if (app->nargs < 0) {
            while (end < argc && strcmp(argv[end], ":"))
                end++;
        } else if (app->nargs > argc - end || (app->nargs < argc - end && strcmp(argv[end + app->nargs], ":"))) {
            opt_error("-nargs %d: the program %s is not followed by %d arguments and then ':' or the end",
                      app->nargs, argv[i], app->nargs);
            return -1;
        } else {
            end += app->nargs;
        }
        app->argv = calloc((size_t)(end - i + 1), sizeof(char *));
        memcpy(app->argv, argv + i, sizeof(char *) * (size_t)(end - i));
        if (app->nprocs > MAX_RANKS - o->nprocs) {
            opt_error("more than %d ranks in all", MAX_RANKS);
            return -1;
        }
        o->nprocs += app->nprocs;
        if (end == argc)
            break;
        i = end + 1; /* past the ':'; a context must follow */
    }
    cur_app = 0;
    return check_context_hosts(o);
}

int options_app_of(const mpiexec_options_t *o, int rank)
{
    int a = 0;
    while (a + 1 < o->napps && rank >= o->apps[a].nprocs) {
        rank -= o->apps[a].nprocs;
        a++;
    }
    return a;
}

void options_free(mpiexec_options_t *o)
{
    for (int i = 0; i < o->nhosts; i++)
        free(o->hosts[i].name);
    free(o->hosts);
    free(o->wdir);
    free(o->out_pattern);
    free(o->err_pattern);
    for (int i = 0; i < o->nenv; i++)
        free(o->env[i]);
    free(o->env);
    for (int a = 0; a < o->napps; a++) {
        for (int i = 0; i < o->apps[a].nenv; i++)
            free(o->apps[a].env[i]);
        free(o->apps[a].env);
        free(o->apps[a].argv);
        free(o->apps[a].program_path);
        free(o->apps[a].wdir);
    }
    free(o->apps);
    memset(o, 0, sizeof *o);
}
