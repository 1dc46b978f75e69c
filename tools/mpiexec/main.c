/* mpiexec: start N ranks of one program (or of several: MPMD) on this host and (through
 * proxies, remote.c) on other hosts, serve their bootstrap requests, forward their output
 * line by line and end the job as a whole.
 * Everything happens in one poll() loop; signals (SIGCHLD included) arrive through
 * a signalfd, so there is no busy waiting and no async-signal-safety puzzle. */
#include "mpiexec.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

job_state_t job;

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Pipes created later must not land on 0..2 if we were started with them closed. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0)
            open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
}

static int random_hex(char *out, size_t nbytes)
{
    unsigned char raw[32];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || nbytes > sizeof raw || read(fd, raw, nbytes) != (ssize_t)nbytes) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    for (size_t i = 0; i < nbytes; i++)
        sprintf(out + 2 * i, "%02x", raw[i]);
    return 0;
}

/* 16 random hex digits; for a job started from inside another (MPI_Comm_spawn, or mpiexec in a
   rank's script), the outer job's first 16 followed by 8 random ones: the outer mpiexec's cleanup
   of /dev/shm/empi-<its jobid>* then also takes what an inner job left when it was killed before
   it could clean up (the outer teardown ends with SIGKILL to the whole process group). */
static int new_jobid(char out[25])
{
    const char *outer = getenv("EMPI_JOBID");
    if (outer && strlen(outer) >= 16 && strspn(outer, "0123456789abcdef") >= 16) {
        memcpy(out, outer, 16);
        return random_hex(out + 16, 4);
    }
    return random_hex(out, 8);
}

static int is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* PATH lookup done once here, so a typo fails before any rank starts. */
static char *resolve_program(const char *name)
{
    if (strchr(name, '/'))
        return is_executable_file(name) ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        size_t size = n + strlen(name) + 3;
        char *cand = malloc(size);
        /* An empty PATH element means the current directory. */
        snprintf(cand, size, "%.*s/%s", n ? (int)n : 1, n ? path : ".", name);
        if (is_executable_file(cand))
            return cand;
        free(cand);
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* ---- stdin forwarding to rank 0 ---- */
static int stdin_src = -1;    /* our fd 0 while forwarding */
static int stdin_dst = -1;    /* write end of rank 0's stdin pipe */
static int stdin_remote;      /* rank 0 runs on another host: send stdin to its proxy */
static char stdin_buf[65536];
static size_t stdin_len, stdin_off;

/* Reading a terminal we do not own would stop mpiexec (SIGTTIN): don't. */
static int should_forward_stdin(void)
{
    if (fcntl(0, F_GETFD) < 0)
        return 0;
    if (isatty(0) && tcgetpgrp(0) != getpgrp())
        return 0;
    return 1;
}

static void stdin_close(void)
{
    if (stdin_dst >= 0)
        close(stdin_dst);
    if (stdin_remote && stdin_src >= 0)
        remote_stdin(NULL, 0);
    stdin_dst = stdin_src = -1;
}

static void stdin_read(void)
{
    ssize_t n = read(stdin_src, stdin_buf, sizeof stdin_buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        stdin_close(); /* rank 0 sees EOF */
        return;
    }
    if (stdin_remote) {
        remote_stdin(stdin_buf, (size_t)n);
        return;
    }
    stdin_len = (size_t)n;
    stdin_off = 0;
}

static void stdin_write(void)
{
    ssize_t n = write(stdin_dst, stdin_buf + stdin_off, stdin_len - stdin_off);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n < 0) {
        stdin_close(); /* rank 0 closed its stdin or exited */
        return;
    }
    stdin_off += (size_t)n;
    if (stdin_off == stdin_len)
        stdin_len = stdin_off = 0;
}

/* ---- the loop ---- */
static void reap_children(void)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        if (remote_reaped(pid, status))
            continue;
        for (int r = 0; r < job.nprocs; r++)
            if (job.ranks[r].pid == pid && job.ranks[r].running && !job.ranks[r].remote) {
                job_rank_exited(r, status);
                break;
            }
    }
}

static void handle_signals(int sfd)
{
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD)
            reap_children();
        else if (si.ssi_signo == SIGUSR1 || si.ssi_signo == SIGUSR2)
            job_forward_signal((int)si.ssi_signo);
        else
            job_interrupt((int)si.ssi_signo);
    }
}

static void pump_rank_fd(int *fd, line_buffer_t *lb, int rank, int dest)
{
    if (*fd >= 0 && !output_pump(*fd, lb, rank, dest)) {
        close(*fd);
        *fd = -1;
    }
}

/* After the last rank is reaped: forward what is still in the pipes, without
 * waiting for descendants that may hold a pipe open. */
static void drain_outputs(void)
{
    for (int r = 0; r < job.nprocs; r++) {
        rank_proc_t *rp = &job.ranks[r];
        int *fds[2] = { &rp->out_fd, &rp->err_fd };
        line_buffer_t *lbs[2] = { &rp->out, &rp->err };
        for (int k = 0; k < 2; k++) {
            struct pollfd p = { .fd = *fds[k], .events = POLLIN };
            while (*fds[k] >= 0 && poll(&p, 1, 0) > 0)
                pump_rank_fd(fds[k], lbs[k], r, k + 1);
            output_flush_tail(lbs[k], r, k + 1);
            if (*fds[k] >= 0)
                close(*fds[k]);
            *fds[k] = -1;
        }
    }
}

static void launch(spawn_context_t *ctx, int rank0_stdin);

/* poll() refuses more entries than the soft descriptor limit (EINVAL), and every local rank holds
   descriptors here: raise the soft limit as far as `need` (ranks inherit it, harmlessly). */
void mpiexec_fd_room(size_t need)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= need)
        return;
    lim.rlim_cur = lim.rlim_max == RLIM_INFINITY || lim.rlim_max > need ? need : lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
}

/* A job started by MPI_Comm_spawn ends when the spawning process is gone (we are re-parented):
   killed outright with its own job, it could not take us along. */
static long parent_pid;
#define PARENT_CHECK_MS 250

static void check_parent(void)
{
    if (parent_pid > 0 && getppid() != (pid_t)parent_pid && !job.ending)
        job_end(1, "the process that spawned this job (pid %ld) is gone; ending the job", parent_pid);
}

static void event_loop(int sfd, double timeout, spawn_context_t *ctx, int rank0_stdin)
{
    struct pollfd *pfds = NULL;
    int *slot_fd_of = NULL; /* rank r's stdout (2r) or stderr (2r + 1) for each rank slot */
    size_t pfds_cap = 0;
    double deadline = timeout > 0 ? now_seconds() + timeout : 0;
    int launched = 0;

    for (;;) {
        /* Ranks start once every remote host has told its name (node numbering needs them all). */
        if (!launched && !job.ending && remote_pending_hellos() == 0) {
            launch(ctx, rank0_stdin);
            launched = 1;
        }
        if (job.running == 0 && (launched || job.ending))
            break;
        size_t need = 3 + (size_t)server_pollfd_count() + 2 * (size_t)job.nprocs;
        if (need > pfds_cap) {
            pfds_cap = need * 2;
            pfds = realloc(pfds, sizeof *pfds * pfds_cap);
            slot_fd_of = realloc(slot_fd_of, sizeof *slot_fd_of * pfds_cap);
            if (!pfds || !slot_fd_of) {
                fprintf(stderr, "mpiexec: out of memory\n");
                exit(1);
            }
        }
        int n = 0;
        pfds[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
        int stdin_slot = n++;
        pfds[stdin_slot] = stdin_len ? (struct pollfd){ .fd = stdin_dst, .events = POLLOUT }
                                     : (struct pollfd){ .fd = launched && (!stdin_remote || remote_stdin_room())
                                                                  ? stdin_src : -1,
                                                        .events = POLLIN };
        /* only the pipes still open: remote ranks have none here, and poll counts every entry */
        int ranks_slot = n;
        for (int r = 0; r < job.nprocs; r++)
            for (int k = 0; k < 2; k++) {
                int fd = k ? job.ranks[r].err_fd : job.ranks[r].out_fd;
                if (fd < 0)
                    continue;
                slot_fd_of[n] = 2 * r + k;
                pfds[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
            }
        int server_slot = n;
        n += server_pollfds(pfds + n);

        double now = now_seconds(), wake = 0;
        if (job.ending && job.kill_deadline > 0)
            wake = job.kill_deadline;
        else if (!job.ending && deadline > 0)
            wake = deadline;
        int wait_ms = -1;
        if (wake > 0)
            wait_ms = wake <= now ? 0 : (int)((wake - now) * 1000.0) + 1;
        if (parent_pid > 0 && (wait_ms < 0 || wait_ms > PARENT_CHECK_MS))
            wait_ms = PARENT_CHECK_MS;

        if (poll(pfds, (nfds_t)n, wait_ms) < 0 && errno != EINTR) {
            /* it would fail again at once, signals unread: end here rather than spin */
            perror("mpiexec: poll");
            job_end(1, "internal error; ending the job");
            job_kill_all(SIGKILL);
            break;
        }
        /* Output before exits: a rank's last lines come out before its obituary. */
        for (int i = ranks_slot; i < server_slot; i++) {
            if (!pfds[i].revents)
                continue;
            rank_proc_t *rk = &job.ranks[slot_fd_of[i] / 2];
            if (slot_fd_of[i] % 2)
                pump_rank_fd(&rk->err_fd, &rk->err, slot_fd_of[i] / 2, 2);
            else
                pump_rank_fd(&rk->out_fd, &rk->out, slot_fd_of[i] / 2, 1);
        }
        if (pfds[stdin_slot].fd >= 0 && pfds[stdin_slot].revents)
            (stdin_len ? stdin_write : stdin_read)();
        server_handle(pfds + server_slot, n - server_slot);
        if (pfds[0].revents)
            handle_signals(sfd);

        check_parent();
        now = now_seconds();
        if (!job.ending && deadline > 0 && now >= deadline)
            job_end(124, "job timed out after %g seconds; ending the job", timeout);
        job_check_deadlines(now);
    }
    if (!launched && rank0_stdin >= 0)
        close(rank0_stdin);
    free(pfds);
    free(slot_fd_of);
}

/* Remote ranks get mpiexec's environment (as with ssh-started MPICH ranks), minus what
 * describes this host or this session rather than the job. */
static int host_specific(const char *var)
{
    static const char *const skip[] = { "HOSTNAME=", "HOST=", "PWD=", "OLDPWD=", "SHLVL=", "_=",
                                        "SSH_", "DISPLAY=", "XAUTHORITY=", "EMPI_HOSTNAME=", NULL };
    for (const char *const *p = skip; *p; p++)
        if (!strncmp(var, *p, strlen(*p)))
            return 1;
    return 0;
}

static char **remote_env(const mpiexec_options_t *o, int *n)
{
    extern char **environ;
    int count = 0;
    for (char **e = environ; *e; e++)
        count++;
    char **env = malloc(sizeof(char *) * (size_t)(count + o->nenv + 1));
    *n = 0;
    for (char **e = environ; *e; e++)
        if (!host_specific(*e))
            env[(*n)++] = *e;
    for (int i = 0; i < o->nenv; i++)
        env[(*n)++] = o->env[i];
    return env;
}

/* All hosts known: number the nodes, tell the proxies what to start, start our own ranks. */
static void launch(spawn_context_t *ctx, int rank0_stdin)
{
    layout_number_nodes(remote_host_names(), ctx->opts_nhosts);
    spawn_context_t rctx = *ctx;
    rctx.env = remote_env(ctx->opts, &rctx.nenv);
    remote_send_setup(&rctx);
    free(rctx.env);
    for (int r = 0; r < layout.nprocs && !job.ending; r++) {
        if (job.ranks[r].remote)
            continue;
        rank_place_t pl = { r, layout.node_of[r], layout.num_nodes, layout.local_rank[r],
                            layout.local_size[r], options_app_of(ctx->opts, r) };
        if (spawn_rank(ctx, &pl, r == 0 ? rank0_stdin : -1, &job.ranks[r]) != 0) {
            job_end(1, "cannot start rank %d: %s; ending the job", r, strerror(errno));
            break;
        }
        job.running++;
    }
    if (rank0_stdin >= 0)
        close(rank0_stdin);
}

/* Across hosts the bootstrap server listens on TCP: on EMPI_BOOTSTRAP_ADDR ("IP" or "IP:PORT")
 * if set, else on the address that routes to the first remote host. */
static int open_tcp_server(const mpiexec_options_t *o, char *addr, size_t addrlen)
{
    char ip[64] = "";
    int port = 0;
    const char *want = getenv("EMPI_BOOTSTRAP_ADDR");
    if (want && *want) {
        snprintf(ip, sizeof ip, "%s", want);
        char *colon = strchr(ip, ':');
        if (colon) {
            *colon = '\0';
            port = atoi(colon + 1);
        }
    } else {
        for (int h = 0; h < o->nhosts && !ip[0]; h++)
            if (!host_is_local(o->hosts[h].name) && wire_route_to(o->hosts[h].name, ip, sizeof ip) != 0) {
                fprintf(stderr, "mpiexec: set EMPI_BOOTSTRAP_ADDR to the address remote hosts reach "
                                "this one at\n");
                return -1;
            }
    }
    return wire_listen_tcp(ip, port, addr, addrlen);
}

/* MPI_UNIVERSE_SIZE: as given (never below the job's size: a nested mpiexec may inherit
 * MPIEXEC_UNIVERSE_SIZE from a smaller job), else the hosts' slots when they are more. */
static int universe_size(const mpiexec_options_t *o)
{
    int slots = 0, have_slots = 0;
    for (int h = 0; h < o->nhosts; h++) {
        have_slots |= o->hosts[h].slots > 0;
        slots += o->hosts[h].slots > 0 ? o->hosts[h].slots : 1;
    }
    int u = o->universe_size ? o->universe_size : have_slots ? slots : 0;
    return u > o->nprocs ? u : o->nprocs;
}

static int needs_remote(const mpiexec_options_t *o)
{
    for (int r = 0; r < layout.nprocs; r++)
        if (o->nhosts && !host_is_local(o->hosts[layout.host_of[r]].name))
            return 1;
    return 0;
}

/* The context's program, looked up from its -wdir when it has one (made absolute here, since the
   ranks enter it from the job's directory); 0, or mpiexec's exit status after a message. */
static int resolve_app(app_context_t *app)
{
    int here = -1;
    if (app->wdir) {
        char *abs = NULL;
        here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (here < 0 || chdir(app->wdir) != 0 || !(abs = getcwd(NULL, 0))) {
            fprintf(stderr, "mpiexec: cannot enter working directory '%s': %s\n", app->wdir, strerror(errno));
            if (here >= 0)
                close(here);
            return 1;
        }
        free(app->wdir);
        app->wdir = abs;
    }
    app->program_path = resolve_program(app->argv[0]);
    if (here >= 0) {
        if (fchdir(here) != 0)
            perror("mpiexec: returning to the working directory");
        close(here);
    }
    if (!app->program_path) {
        /* A path to something that is there but cannot run says why, as a shell would. */
        struct stat st;
        const char *name = app->argv[0];
        int there = strchr(name, '/') && stat(name, &st) == 0;
        if (there)
            fprintf(stderr, "mpiexec: cannot run '%s': %s\n", name,
                    S_ISDIR(st.st_mode) ? "is a directory" : "permission denied (not executable)");
        else
            fprintf(stderr, "mpiexec: cannot find executable '%s'\n", name);
        return there ? 126 : 127;
    }
    return 0;
}

/* --display-map: the placement, one line per rank, before anything starts. */
static void display_map(const mpiexec_options_t *o)
{
    for (int r = 0; r < o->nprocs; r++)
        printf("mpiexec: rank %d on %s (context %d)\n", r,
               o->nhosts ? o->hosts[layout.host_of[r]].name : "this host", options_app_of(o, r));
    fflush(stdout);
}

/* -print-all-exitcodes: how every rank ended. */
static void print_exit_codes(void)
{
    for (int r = 0; r < job.nprocs; r++) {
        const rank_proc_t *rp = &job.ranks[r];
        if (!rp->exited)
            fprintf(stderr, "mpiexec: rank %d: exit status unknown\n", r);
        else if (WIFSIGNALED(rp->wait_status))
            fprintf(stderr, "mpiexec: rank %d: killed by signal %d\n", r, WTERMSIG(rp->wait_status));
        else
            fprintf(stderr, "mpiexec: rank %d: exit code %d\n", r, WEXITSTATUS(rp->wait_status));
    }
}

int main(int argc, char **argv)
{
    mpiexec_options_t opts;
    ensure_std_fds();
    if (argc > 2 && !strcmp(argv[1], "--janitor"))
        return janitor_main(argv[2]);
    if (argc > 1 && !strcmp(argv[1], "--proxy"))
        return proxy_main(argc, argv);
    int prc = options_parse(argc, argv, &opts);
    if (prc != 0) {
        options_free(&opts);
        return prc > 0 ? 0 : 1;
    }
    /* Before the programs are looked up: a relative program path is relative to the working
       directory, as in MPICH and Open MPI. Remote hosts get the job's from the proxy set-up. */
    if (opts.wdir && chdir(opts.wdir) != 0) {
        fprintf(stderr, "mpiexec: cannot enter working directory '%s': %s\n", opts.wdir, strerror(errno));
        options_free(&opts);
        return 1;
    }
    for (int a = 0; a < opts.napps; a++) {
        int rc = resolve_app(&opts.apps[a]);
        if (rc != 0) {
            options_free(&opts);
            return rc;
        }
    }

    /* Signals are read from a signalfd in the loop; children get the old mask back. */
    signal(SIGPIPE, SIG_IGN);
    spawn_context_t ctx = { .nprocs = opts.nprocs, .universe_size = universe_size(&opts),
                            .env = opts.env, .nenv = opts.nenv, .apps = opts.apps,
                            .napps = opts.napps, .self_path = self_exe_path(), .opts = &opts,
                            .opts_nhosts = opts.nhosts };
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGQUIT);
    sigaddset(&handled, SIGUSR1);
    sigaddset(&handled, SIGUSR2);
    sigprocmask(SIG_BLOCK, &handled, &ctx.child_sigmask);
    int sfd = signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);

    char jobid[25], cookie[33], socket_name[32] = "", addr[170];
    if (sfd < 0 || new_jobid(jobid) != 0 || random_hex(cookie, 16) != 0) {
        fprintf(stderr, "mpiexec: cannot set up (signalfd or /dev/urandom): %s\n",
                strerror(errno));
        return 1;
    }
    ctx.jobid = jobid;
    janitor_start(jobid);
    ctx.addr = addr;
    ctx.cookie = cookie;
    job.nprocs = opts.nprocs;
    job.ranks = calloc((size_t)opts.nprocs, sizeof *job.ranks);
    for (int r = 0; r < opts.nprocs; r++)
        job.ranks[r].out_fd = job.ranks[r].err_fd = -1; /* polled before the ranks start */
    output_set_tagging(opts.tag_output);
    layout_place(&opts);
    if (opts.display_map)
        display_map(&opts);

    if (opts.launcher_fork && needs_remote(&opts)) {
        fprintf(stderr, "mpiexec: -launcher fork starts ranks on this host only, but the hosts name "
                        "another: use ssh or rsh, or drop those hosts\n");
        layout_free();
        options_free(&opts);
        return 1;
    }
    /* Output files are opened (and truncated) once the job is known to be startable, before any
       rank starts: a bad name stops the job at once, a rank that prints nothing leaves no stale
       file of an earlier run, and a command that fails earlier touches no file. (Their names were
       made absolute at parsing, so -gwdir does not move them.) */
    output_files_t files = {opts.out_pattern, opts.err_pattern, 0, opts.output_copy};
    for (int n = opts.nprocs; opts.output_padded && n > 0; n /= 10)
        files.pad++;
    if (output_set_files(&files, opts.nprocs) != 0) {
        layout_free();
        options_free(&opts);
        output_release();
        return 1;
    }
    int server_rc;
    if (needs_remote(&opts)) {
        int lfd = open_tcp_server(&opts, addr, sizeof addr);
        server_rc = lfd < 0 ? -1 : server_open(NULL, lfd, cookie, opts.nprocs);
    } else {
        snprintf(socket_name, sizeof socket_name, "empi-%s", jobid);
        snprintf(addr, sizeof addr, "unix:@%s", socket_name);
        server_rc = server_open(socket_name, -1, cookie, opts.nprocs);
    }
    if (server_rc != 0 || remote_start(&opts, &ctx, addr) != 0) {
        if (server_rc == 0)
            fprintf(stderr, "mpiexec: cannot start the remote hosts: %s\n", strerror(errno));
        remote_shutdown();
        server_close();
        return 1;
    }
    stdin_remote = remote_rank0_host() >= 0;

    int rank0_stdin = -1;
    if (should_forward_stdin() && stdin_remote) {
        stdin_src = 0;
    } else if (should_forward_stdin()) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) == 0) {
            rank0_stdin = p[0];
            stdin_dst = p[1];
            stdin_src = 0;
            fcntl(stdin_dst, F_SETFL, O_NONBLOCK);
        }
    }
    mpiexec_fd_room(64 + 4 * (size_t)opts.nprocs); /* pipes and a bootstrap connection per rank */
    parent_pid = opts.parent_pid;
    event_loop(sfd, opts.timeout, &ctx, rank0_stdin);

    if (job.ending)
        job_kill_all(SIGKILL); /* descendants of the ranks, if any survived */
    drain_outputs();
    if (opts.print_exit_codes)
        print_exit_codes();
    stdin_close();
    remote_shutdown();
    server_close();
    for (int r = 0; r < job.nprocs; r++) {
        free(job.ranks[r].out.data);
        free(job.ranks[r].err.data);
    }
    free(job.ranks);
    layout_free();
    options_free(&opts);
    output_release();
    close(sfd);
    return job.exit_code;
}
