/* `mpiexec --proxy ADDR ENTRY`: mpiexec's agent on a remote host, started through rsh. It reads
 * the job cookie from stdin, connects to mpiexec at ADDR, says which host entry it serves and
 * what this host calls itself, receives its ranks with each one's program, arguments and app
 * number (PROXY_SETUP, format in remote.c) and starts them exactly as mpiexec does locally (their
 * EMPI_MPIEXEC is this proxy's own path). Then it relays: rank output as it comes, each exit
 * status after the rank's last output, kills and stdin from mpiexec to the ranks. If mpiexec goes
 * away, the proxy kills its ranks; whatever happens it removes the job's files on this host. */
#include "mpiexec.h"
#include "runtime/bootstrap_addr.h"
#include "runtime/bootstrap_proto.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct proxy_rank {
    int rank;
    rank_place_t place;
    rank_proc_t proc;
} proxy_rank_t;

static int link_fd = -1;
static proxy_rank_t *ranks;
static int nranks, nrunning;
static char jobid[64];
static int stdin_w = -1;          /* rank 0's stdin, if it runs here */
static wbuf_t stdin_q;            /* bytes for it not written yet */
static size_t stdin_q_off;
static int stdin_eof;

static void die_with_ranks(const char *why)
{
    if (why)
        fprintf(stderr, "mpiexec proxy: %s\n", why);
    for (int i = 0; i < nranks; i++)
        if (ranks[i].proc.running)
            kill(-ranks[i].proc.pid, SIGKILL);
    exit(1);
}

static int read_cookie(char *cookie)
{
    /* One byte at a time: nothing past the line may be consumed from the shared stdin. */
    size_t n = 0;
    char c;
    while (n <= EMPI_BOOT_COOKIE_HEX && read(0, &c, 1) == 1 && c != '\n')
        cookie[n++] = c;
    cookie[n] = '\0';
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, 0);
        close(devnull);
    }
    return n == EMPI_BOOT_COOKIE_HEX ? 0 : -1;
}

static void send_link(uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
    if (wire_send(link_fd, type, a, alen, b, blen) != 0)
        die_with_ranks("lost the link to mpiexec");
}

/* Parse PROXY_SETUP into ctx and the rank table. */
static int parse_setup(rbuf_t *r, spawn_context_t *ctx, char **cwd)
{
    char *s = rbuf_str(r);
    snprintf(jobid, sizeof jobid, "%s", s);
    free(s);
    ctx->jobid = jobid;
    janitor_start(jobid);
    ctx->addr = rbuf_str(r);
    *cwd = rbuf_str(r);
    ctx->nprocs = (int)rbuf_u32(r);
    ctx->universe_size = (int)rbuf_u32(r);
    int num_nodes = (int)rbuf_u32(r);
    ctx->env = rbuf_strs(r, &ctx->nenv);
    uint32_t napps = rbuf_u32(r);
    /* An app takes at least 16 bytes (three counts, an empty wdir): a bigger count is garbage. */
    if (r->bad || napps < 1 || napps > r->left / 16)
        return -1;
    app_context_t *apps = calloc(napps, sizeof *apps);
    ctx->apps = apps;
    ctx->napps = (int)napps;
    for (uint32_t a = 0; a < napps && !r->bad; a++) {
        int argc = 0;
        apps[a].program_path = rbuf_str(r);
        apps[a].argv = rbuf_strs(r, &argc);
        apps[a].env = rbuf_strs(r, &apps[a].nenv);
        apps[a].wdir = rbuf_str(r);
        if (apps[a].wdir && !*apps[a].wdir) {
            free(apps[a].wdir);
            apps[a].wdir = NULL;
        }
        if (argc < 1)
            return -1;
    }
    nranks = (int)rbuf_u32(r);
    if (r->bad || nranks < 1 || (size_t)nranks > r->left / 20)
        return -1;
    ranks = calloc((size_t)nranks, sizeof *ranks);
    for (int i = 0; i < nranks; i++) {
        rank_place_t *pl = &ranks[i].place;
        pl->rank = (int)rbuf_u32(r);
        pl->node_id = (int)rbuf_u32(r);
        pl->local_rank = (int)rbuf_u32(r);
        pl->local_size = (int)rbuf_u32(r);
        pl->appnum = (int)rbuf_u32(r);
        pl->num_nodes = num_nodes;
        if (pl->appnum < 0 || pl->appnum >= ctx->napps)
            return -1;
        ranks[i].rank = pl->rank;
        ranks[i].proc.out_fd = ranks[i].proc.err_fd = -1;
    }
    return r->bad ? -1 : 0;
}

/* Forward what one output pipe has; at EOF tell mpiexec the stream ended. */
static void relay_output(proxy_rank_t *pr, int *fd, uint32_t which)
{
    char buf[65536];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    uint32_t hdr[2] = { (uint32_t)pr->rank, which };
    send_link(PROXY_OUTPUT, hdr, sizeof hdr, buf, n > 0 ? (size_t)n : 0);
    if (n <= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* A rank exited: pass on what its pipes still hold, then its status (output comes first). */
static void rank_exited(proxy_rank_t *pr, int status)
{
    int *fds[2] = { &pr->proc.out_fd, &pr->proc.err_fd };
    for (int k = 0; k < 2; k++) {
        struct pollfd p = { .fd = *fds[k], .events = POLLIN };
        while (*fds[k] >= 0 && poll(&p, 1, 0) > 0)
            relay_output(pr, fds[k], (uint32_t)(k + 1));
    }
    pr->proc.running = 0;
    nrunning--;
    int32_t v[3] = { pr->rank, (int32_t)pr->proc.pid, status };
    send_link(PROXY_EXIT, v, sizeof v, NULL, 0);
}

static void reap(void)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        for (int i = 0; i < nranks; i++)
            if (ranks[i].proc.pid == pid && ranks[i].proc.running) {
                rank_exited(&ranks[i], status);
                break;
            }
}

static void stdin_done(size_t bytes);

static void link_message(void)
{
    uint32_t type, len;
    unsigned char *p;
    if (wire_recv(link_fd, &type, &p, &len) != 0)
        die_with_ranks(NULL); /* mpiexec ended the job or died: nobody is left to report to */
    if (type == PROXY_KILL && len == sizeof(uint32_t)) {
        uint32_t sig;
        memcpy(&sig, p, sizeof sig);
        for (int i = 0; i < nranks; i++)
            if (ranks[i].proc.running && kill(-ranks[i].proc.pid, (int)sig) != 0)
                kill(ranks[i].proc.pid, (int)sig);
    } else if (type == PROXY_STDIN) {
        if (len && stdin_w >= 0)
            wbuf_bytes(&stdin_q, p, len);
        else if (len)
            stdin_done(len); /* rank 0 closed its stdin: nobody reads it */
        else
            stdin_eof = 1;
    }
    free(p);
}

/* mpiexec reads on only while little of what it sent is waiting here (its window). */
static void stdin_done(size_t bytes)
{
    uint32_t v[2] = {0, (uint32_t)bytes};
    send_link(PROXY_STDIN_ACK, v, sizeof v, NULL, 0);
}

static void stdin_push(void)
{
    if (stdin_w < 0)
        return;
    if (stdin_q.len > stdin_q_off) {
        ssize_t n = write(stdin_w, stdin_q.data + stdin_q_off, stdin_q.len - stdin_q_off);
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            close(stdin_w); /* rank 0 closed its stdin */
            stdin_w = -1;
            stdin_done(stdin_q.len - stdin_q_off);
            stdin_q.len = stdin_q_off = 0;
            return;
        }
        if (n > 0) {
            stdin_q_off += (size_t)n;
            stdin_done((size_t)n);
        }
        if (stdin_q_off == stdin_q.len)
            stdin_q.len = stdin_q_off = 0;
    }
    if (stdin_eof && stdin_q.len == 0) {
        close(stdin_w);
        stdin_w = -1;
    }
}

static void loop(int sfd)
{
    struct pollfd *pfds = calloc((size_t)(3 + 2 * nranks), sizeof *pfds);
    while (nrunning > 0) {
        int n = 0;
        pfds[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
        pfds[n++] = (struct pollfd){ .fd = link_fd, .events = POLLIN };
        pfds[n++] = (struct pollfd){ .fd = stdin_q.len || stdin_eof ? stdin_w : -1, .events = POLLOUT };
        for (int i = 0; i < nranks; i++) {
            pfds[n++] = (struct pollfd){ .fd = ranks[i].proc.out_fd, .events = POLLIN };
            pfds[n++] = (struct pollfd){ .fd = ranks[i].proc.err_fd, .events = POLLIN };
        }
        if (poll(pfds, (nfds_t)n, -1) < 0 && errno != EINTR)
            die_with_ranks("poll failed");
        for (int i = 0; i < nranks; i++) {
            if (pfds[3 + 2 * i].revents && ranks[i].proc.out_fd >= 0)
                relay_output(&ranks[i], &ranks[i].proc.out_fd, 1);
            if (pfds[4 + 2 * i].revents && ranks[i].proc.err_fd >= 0)
                relay_output(&ranks[i], &ranks[i].proc.err_fd, 2);
        }
        if (pfds[1].revents)
            link_message();
        if (pfds[2].revents)
            stdin_push();
        if (pfds[0].revents) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                if (si.ssi_signo == SIGCHLD)
                    reap();
                else
                    die_with_ranks("terminated by a signal; killing this host's ranks");
            }
        }
    }
    free(pfds);
}

int proxy_main(int argc, char **argv)
{
    char cookie[EMPI_BOOT_COOKIE_HEX + 2], name[PROXY_NAME_MAX + 1];
    if (argc != 4 || read_cookie(cookie) != 0) {
        fprintf(stderr, "mpiexec proxy: usage: mpiexec --proxy ADDR ENTRY, cookie on stdin\n");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    sigset_t handled, old;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGHUP);
    sigprocmask(SIG_BLOCK, &handled, &old);
    int sfd = signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);

    link_fd = empi_boot_addr_connect(argv[2]);
    if (link_fd < 0 || sfd < 0) {
        fprintf(stderr, "mpiexec proxy: cannot connect to mpiexec at %s: %s\n", argv[2], strerror(errno));
        return 1;
    }
    host_identity(name, sizeof name);
    uint32_t entry = (uint32_t)atoi(argv[3]);
    unsigned char hello[EMPI_BOOT_COOKIE_HEX + sizeof entry];
    memcpy(hello, cookie, EMPI_BOOT_COOKIE_HEX);
    memcpy(hello + EMPI_BOOT_COOKIE_HEX, &entry, sizeof entry);
    send_link(PROXY_HELLO, hello, sizeof hello, name, strlen(name));

    uint32_t type, len;
    unsigned char *p;
    if (wire_recv(link_fd, &type, &p, &len) != 0)
        return 1; /* the job ended before it started here */
    spawn_context_t ctx = { .cookie = cookie, .child_sigmask = old, .self_path = self_exe_path() };
    char *cwd = NULL;
    rbuf_t r = { p, len, 0 };
    if (type != PROXY_SETUP || parse_setup(&r, &ctx, &cwd) != 0) {
        fprintf(stderr, "mpiexec proxy: %s\n", type == EMPI_BOOT_REJECT ? (char *)p : "bad setup message");
        return 1;
    }
    free(p);
    if (chdir(cwd) != 0)
        fprintf(stderr, "mpiexec proxy on %s: cannot enter %s (%s); running in %s\n", name, cwd,
                strerror(errno), getenv("HOME") ? getenv("HOME") : "/");

    for (int i = 0; i < nranks; i++) {
        int in_fd = -1;
        if (ranks[i].rank == 0) {
            int sp[2];
            if (pipe2(sp, O_CLOEXEC) == 0) {
                in_fd = sp[0];
                stdin_w = sp[1];
                fcntl(stdin_w, F_SETFL, O_NONBLOCK);
            }
        }
        if (spawn_rank(&ctx, &ranks[i].place, in_fd, &ranks[i].proc) != 0) {
            int32_t v[3] = { ranks[i].rank, 0, 127 << 8 };
            send_link(PROXY_EXIT, v, sizeof v, NULL, 0);
        } else {
            nrunning++;
        }
        if (in_fd >= 0)
            close(in_fd);
    }
    loop(sfd);
    return 0;
}
