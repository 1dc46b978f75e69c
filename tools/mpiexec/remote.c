/* mpiexec's side of the remote hosts. For each host entry that is not this host, mpiexec runs
 *     <rsh> <host> <this mpiexec> --proxy tcp:IP:PORT <entry>
 * with rsh = $EMPI_LAUNCHER_RSH (split at spaces) or ssh, and writes the job cookie to its stdin
 * (never on a command line, where other users could read it). The proxy connects back, presents
 * the cookie and its host's name; once every proxy has, mpiexec numbers the nodes by name and
 * sends each proxy a PROXY_SETUP:
 *     str jobid, str launcher address, str cwd, u32 nprocs, u32 universe, u32 num_nodes,
 *     u32 nenv, nenv x str "NAME=VALUE" (every rank),
 *     u32 napps, napps x (str program, u32 argc, argc x str, u32 nenv, nenv x str,
 *                         str wdir, "" for the job's) (MPMD),
 *     u32 count, count x (u32 rank, node, local rank, local size, appnum)
 * Ranks then talk to mpiexec's bootstrap server directly; the proxy relays their output and exit
 * statuses and delivers kills and stdin. A link that closes while its host still has ranks means
 * the host (or its proxy) died: the job ends with a message naming the host and its ranks. */
#include "mpiexec.h"
#include "runtime/bootstrap_proto.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define RSH_EXIT_WAIT_SECONDS 5.0

typedef struct remote_host {
    int used;          /* remote entry with ranks: a proxy runs there */
    pid_t rsh_pid;     /* 0 once reaped */
    int conn;          /* server connection of its proxy, -1 before hello / after loss */
    int hello;
    int live;          /* ranks not yet reported exited */
} remote_host_t;

static remote_host_t *hosts;
static int nhosts;
static char **names;            /* per entry: the host's own name (ours for local entries) */
static const mpiexec_options_t *options;
static int shutting_down;
static char label[320];

static void child_exec_rsh(const mpiexec_options_t *o, int h, const char *server_addr, int in_fd,
                           const sigset_t *mask)
{
    setpgid(0, 0); /* a ^C at the terminal reaches mpiexec, which decides */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(in_fd, 0);
    if (in_fd > 0)
        close(in_fd);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, mask, NULL);

    const char *rsh = getenv("EMPI_LAUNCHER_RSH");
    char *words = strdup(rsh && *rsh ? rsh : "ssh");
    const char *self = self_exe_path();
    if (!self)
        _exit(127);
    char entry[16];
    snprintf(entry, sizeof entry, "%d", h);
    char *argv[64];
    int argc = 0;
    char *save = NULL;
    for (char *w = strtok_r(words, " \t", &save); w && argc < 58; w = strtok_r(NULL, " \t", &save))
        argv[argc++] = w;
    argv[argc++] = o->hosts[h].name;
    argv[argc++] = (char *)self;
    argv[argc++] = "--proxy";
    argv[argc++] = (char *)server_addr;
    argv[argc++] = entry;
    argv[argc] = NULL;
    execvp(argv[0], argv);
    fprintf(stderr, "mpiexec: cannot run '%s' to reach host %s: %s\n", argv[0], o->hosts[h].name,
            strerror(errno));
    _exit(127);
}

int remote_start(const mpiexec_options_t *o, const spawn_context_t *ctx, const char *server_addr)
{
    options = o;
    nhosts = o->nhosts;
    hosts = calloc((size_t)(nhosts ? nhosts : 1), sizeof *hosts);
    names = calloc((size_t)(nhosts ? nhosts : 1), sizeof *names);
    char me[256];
    host_identity(me, sizeof me);
    for (int h = 0; h < nhosts; h++) {
        hosts[h].conn = -1;
        int has_ranks = 0;
        for (int r = 0; r < layout.nprocs && !has_ranks; r++)
            has_ranks = layout.host_of[r] == h;
        if (host_is_local(o->hosts[h].name) || !has_ranks) {
            names[h] = strdup(has_ranks ? me : o->hosts[h].name);
            continue;
        }
        hosts[h].used = 1;
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0)
            return -1;
        pid_t pid = fork();
        if (pid == 0) {
            close(p[1]);
            child_exec_rsh(o, h, server_addr, p[0], &ctx->child_sigmask);
        }
        close(p[0]);
        if (pid < 0) {
            close(p[1]);
            return -1;
        }
        hosts[h].rsh_pid = pid;
        /* The cookie line fits any pipe buffer: this write never blocks. */
        char line[64];
        int len = snprintf(line, sizeof line, "%s\n", ctx->cookie);
        if (write(p[1], line, (size_t)len) != len)
            fprintf(stderr, "mpiexec: cannot pass the job cookie to host %s\n", o->hosts[h].name);
        close(p[1]);
    }
    return 0;
}

int remote_pending_hellos(void)
{
    int n = 0;
    for (int h = 0; h < nhosts; h++)
        n += hosts[h].used && !hosts[h].hello;
    return n;
}

char *const *remote_host_names(void)
{
    return names;
}

static void send_setup(int h, const spawn_context_t *ctx)
{
    wbuf_t b = { 0 };
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        strcpy(cwd, "/");
    wbuf_str(&b, ctx->jobid);
    wbuf_str(&b, ctx->addr);
    wbuf_str(&b, cwd);
    wbuf_u32(&b, (uint32_t)ctx->nprocs);
    wbuf_u32(&b, (uint32_t)ctx->universe_size);
    wbuf_u32(&b, (uint32_t)layout.num_nodes);
    wbuf_strs(&b, ctx->env, ctx->nenv);
    /* Every context, even those with no rank there: they are few, and indices stay appnums. */
    wbuf_u32(&b, (uint32_t)ctx->napps);
    for (int a = 0; a < ctx->napps; a++) {
        const app_context_t *app = &ctx->apps[a];
        int argc = 0;
        while (app->argv[argc])
            argc++;
        wbuf_str(&b, app->program_path);
        wbuf_strs(&b, app->argv, argc);
        wbuf_strs(&b, app->env, app->nenv);
        wbuf_str(&b, app->wdir ? app->wdir : "");
    }
    int count = 0;
    for (int r = 0; r < layout.nprocs; r++)
        count += layout.host_of[r] == h;
    wbuf_u32(&b, (uint32_t)count);
    for (int r = 0; r < layout.nprocs; r++) {
        if (layout.host_of[r] != h)
            continue;
        uint32_t v[5] = { (uint32_t)r, (uint32_t)layout.node_of[r], (uint32_t)layout.local_rank[r],
                          (uint32_t)layout.local_size[r], (uint32_t)options_app_of(options, r) };
        wbuf_bytes(&b, v, sizeof v);
        rank_proc_t *rp = &job.ranks[r];
        memset(rp, 0, sizeof *rp);
        rp->remote = 1;
        rp->running = 1;
        rp->out_fd = rp->err_fd = -1;
        job.running++;
        hosts[h].live++;
    }
    server_send(hosts[h].conn, PROXY_SETUP, b.data, b.len);
    wbuf_free(&b);
}

void remote_send_setup(const spawn_context_t *ctx)
{
    for (int h = 0; h < nhosts; h++)
        if (hosts[h].used && hosts[h].conn >= 0)
            send_setup(h, ctx);
}

int remote_hello(int conn, const unsigned char *p, uint32_t len)
{
    uint32_t h;
    memcpy(&h, p + EMPI_BOOT_COOKIE_HEX, sizeof h);
    if (h >= (uint32_t)nhosts || !hosts[h].used || hosts[h].hello)
        return -1;
    size_t off = EMPI_BOOT_COOKIE_HEX + sizeof h;
    names[h] = strndup((const char *)p + off, len - off);
    hosts[h].hello = 1;
    hosts[h].conn = conn;
    return (int)h;
}

static int rank_of_host(rbuf_t *r, int h)
{
    uint32_t rank = rbuf_u32(r);
    if (r->bad || rank >= (uint32_t)layout.nprocs || layout.host_of[rank] != h)
        return -1;
    return (int)rank;
}

/* Bytes of stdin sent to rank 0's proxy and not yet written to rank 0 (or dropped there). */
static size_t stdin_inflight;
#define STDIN_WINDOW (4u << 20)

void remote_message(int h, uint32_t type, const unsigned char *p, uint32_t len)
{
    rbuf_t r = { p, len, 0 };
    int rank = rank_of_host(&r, h);
    if (rank < 0 && (type == PROXY_OUTPUT || type == PROXY_EXIT)) {
        job_end(1, "host %s sent a message about a rank it does not run; ending the job",
                options->hosts[h].name);
        return;
    }
    rank_proc_t *rp = rank >= 0 ? &job.ranks[rank] : NULL;
    if (type == PROXY_OUTPUT) {
        uint32_t fd = rbuf_u32(&r);
        line_buffer_t *lb = fd == 2 ? &rp->err : &rp->out;
        if (r.left)
            output_feed(lb, (const char *)r.p, r.left, rank, fd == 2 ? 2 : 1);
        else
            output_flush_tail(lb, rank, fd == 2 ? 2 : 1);
    } else if (type == PROXY_STDIN_ACK) {
        uint32_t done = rbuf_u32(&r);
        if (!r.bad)
            stdin_inflight -= done < stdin_inflight ? done : stdin_inflight;
    } else if (type == PROXY_EXIT) {
        int32_t pid = (int32_t)rbuf_u32(&r), status = (int32_t)rbuf_u32(&r);
        if (r.bad || !rp->running)
            return;
        rp->pid = pid;
        hosts[h].live--;
        job_rank_exited(rank, status);
    } else {
        job_end(1, "host %s sent an unknown message (%u); ending the job", options->hosts[h].name,
                type);
    }
}

/* "2-3,5" style list of the ranks of host h still running. */
static void live_ranks(int h, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int r = 0; r < layout.nprocs && used + 24 < len; r++) {
        if (layout.host_of[r] != h || !job.ranks[r].running)
            continue;
        int last = r;
        while (last + 1 < layout.nprocs && layout.host_of[last + 1] == h && job.ranks[last + 1].running)
            last++;
        used += (size_t)snprintf(buf + used, len - used, used ? ",%d" : "%d", r);
        if (last > r)
            used += (size_t)snprintf(buf + used, len - used, "-%d", last);
        r = last;
    }
}

void remote_lost(int h)
{
    hosts[h].conn = -1;
    if (shutting_down)
        return;
    if (hosts[h].live > 0) {
        char ranks[256];
        live_ranks(h, ranks, sizeof ranks);
        job_end(1, "lost contact with host %s (rank%s %s); ending the job", options->hosts[h].name,
                strpbrk(ranks, ",-") ? "s" : "", ranks);
        for (int r = 0; r < layout.nprocs; r++)
            if (layout.host_of[r] == h && job.ranks[r].running) {
                job.ranks[r].running = 0;
                job.running--;
            }
        hosts[h].live = 0;
    } else if (!hosts[h].hello && !job.ending) {
        job_end(1, "the proxy on host %s closed its link before starting; ending the job",
                options->hosts[h].name);
    }
}

int remote_reaped(pid_t pid, int status)
{
    for (int h = 0; h < nhosts; h++) {
        if (!hosts[h].used || hosts[h].rsh_pid != pid)
            continue;
        hosts[h].rsh_pid = 0;
        if (!hosts[h].hello && !job.ending && !shutting_down) {
            char how[64];
            if (WIFSIGNALED(status))
                snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(status));
            else
                snprintf(how, sizeof how, "exited with code %d", WEXITSTATUS(status));
            const char *rsh = getenv("EMPI_LAUNCHER_RSH");
            job_end(1, "cannot start on host %s: '%s' %s before the proxy connected; ending the job",
                    options->hosts[h].name, rsh && *rsh ? rsh : "ssh", how);
        }
        return 1;
    }
    return 0;
}

void remote_kill_all(int sig)
{
    uint32_t s = (uint32_t)sig;
    for (int h = 0; h < nhosts; h++)
        if (hosts[h].used && hosts[h].conn >= 0)
            server_send(hosts[h].conn, PROXY_KILL, &s, sizeof s);
}

int remote_rank0_host(void)
{
    return layout.nprocs > 0 && nhosts > 0 && hosts[layout.host_of[0]].used ? layout.host_of[0] : -1;
}

void remote_stdin(const void *buf, size_t len)
{
    int h = remote_rank0_host();
    if (h >= 0 && hosts[h].conn >= 0) {
        server_send(hosts[h].conn, PROXY_STDIN, buf, len);
        stdin_inflight += len;
    }
}

int remote_stdin_room(void)
{
    return stdin_inflight < STDIN_WINDOW;
}

const char *remote_host_label(int rank)
{
    snprintf(label, sizeof label, "host %s", options->hosts[layout.host_of[rank]].name);
    return label;
}

void remote_shutdown(void)
{
    shutting_down = 1;
    for (int h = 0; h < nhosts; h++)
        if (hosts[h].conn >= 0)
            server_drop(hosts[h].conn);
    /* Closing the links lets every proxy exit, and with it its rsh. */
    double deadline = now_seconds() + RSH_EXIT_WAIT_SECONDS;
    for (;;) {
        int left = 0;
        for (int h = 0; h < nhosts; h++) {
            if (!hosts[h].rsh_pid)
                continue;
            int status;
            if (waitpid(hosts[h].rsh_pid, &status, WNOHANG) == hosts[h].rsh_pid)
                hosts[h].rsh_pid = 0;
            else if (now_seconds() > deadline) {
                kill(-hosts[h].rsh_pid, SIGKILL);
                waitpid(hosts[h].rsh_pid, &status, 0);
                hosts[h].rsh_pid = 0;
            } else
                left++;
        }
        if (!left)
            break;
        poll(NULL, 0, 10);
    }
    for (int h = 0; h < nhosts; h++)
        free(names[h]);
    free(names);
    free(hosts);
    names = NULL;
    hosts = NULL;
    nhosts = 0;
}
