/* Starting one rank: pipes for stdout/stderr, its own process group (so one kill
 * reaches the rank and anything it started), the EMPI_* environment, exec. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *self_exe_path(void)
{
    static char path[4096];
    static int state; /* 0: not read yet, 1: read, -1: unreadable */
    if (state == 0) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        state = n > 0 && path[0] == '/' ? 1 : -1;
        if (state > 0)
            path[n] = '\0';
    }
    return state > 0 ? path : NULL;
}

static void set_int_env(const char *name, int value)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%d", value);
    setenv(name, buf, 1);
}

/* Runs in the child between fork and exec; mpiexec is single-threaded, so setenv
 * and friends are safe here. */
static void become_rank(const spawn_context_t *ctx, const rank_place_t *pl, int stdin_fd,
                        int out_w, int err_w, pid_t launcher)
{
    setpgid(0, 0);
    /* Even a SIGKILLed mpiexec must not leave ranks behind. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher)
        _exit(127); /* it died before the line above took effect */
    if (stdin_fd < 0)
        stdin_fd = open("/dev/null", O_RDONLY);
    if (stdin_fd >= 0 && stdin_fd != 0) {
        dup2(stdin_fd, 0);
        close(stdin_fd);
    }
    dup2(out_w, 1);
    dup2(err_w, 2);
    if (out_w > 2)
        close(out_w);
    if (err_w > 2)
        close(err_w);

    /* mpiexec ignores SIGPIPE and blocks the signals it reads via signalfd; both
     * would otherwise survive exec and change how the program behaves. A shell without job
     * control starts `mpiexec ... &` with SIGINT and SIGQUIT ignored: the signals mpiexec
     * forwards to end the job must reach the ranks. */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    sigprocmask(SIG_SETMASK, &ctx->child_sigmask, NULL);

    const app_context_t *app = &ctx->apps[pl->appnum];
    for (int i = 0; i < ctx->nenv; i++)
        putenv(ctx->env[i]);
    for (int i = 0; i < app->nenv; i++)
        putenv(app->env[i]);
    /* The rank's place; then the same facts under the names MPICH's and Open MPI's launchers give
       them, which wrapper scripts read (to pick a GPU or a core per local rank, say). */
    const struct {
        const char *name;
        int value;
    } place[] = {
        {"EMPI_RANK", pl->rank},
        {"EMPI_SIZE", ctx->nprocs},
        {"EMPI_LOCAL_RANK", pl->local_rank},
        {"EMPI_LOCAL_SIZE", pl->local_size},
        {"EMPI_NODE_ID", pl->node_id},
        {"EMPI_NUM_NODES", pl->num_nodes},
        {"EMPI_APPNUM", pl->appnum},
        {"EMPI_UNIVERSE_SIZE", ctx->universe_size},
        {"MPI_LOCALRANKID", pl->local_rank},
        {"MPI_LOCALNRANKS", pl->local_size},
        {"OMPI_COMM_WORLD_RANK", pl->rank},
        {"OMPI_COMM_WORLD_SIZE", ctx->nprocs},
        {"OMPI_COMM_WORLD_LOCAL_RANK", pl->local_rank},
        {"OMPI_COMM_WORLD_LOCAL_SIZE", pl->local_size},
    };
    for (size_t i = 0; i < sizeof place / sizeof place[0]; i++)
        set_int_env(place[i].name, place[i].value);
    setenv("EMPI_JOBID", ctx->jobid, 1);
    setenv("EMPI_LAUNCHER_ADDR", ctx->addr, 1);
    setenv("EMPI_COOKIE", ctx->cookie, 1);
    /* Unset rather than left as inherited: a parent job's value is not ours. */
    if (ctx->self_path)
        setenv("EMPI_MPIEXEC", ctx->self_path, 1);
    else
        unsetenv("EMPI_MPIEXEC");

    if (app->wdir && chdir(app->wdir) != 0) {
        fprintf(stderr, "mpiexec: rank %d cannot enter %s: %s\n", pl->rank, app->wdir, strerror(errno));
        _exit(127);
    }
    execv(app->program_path, app->argv);
    fprintf(stderr, "mpiexec: cannot execute %s: %s\n", app->program_path, strerror(errno));
    _exit(127);
}

int spawn_rank(const spawn_context_t *ctx, const rank_place_t *place, int stdin_fd, rank_proc_t *rp)
{
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    pid_t launcher = getpid();
    pid_t pid = fork();
    if (pid == 0)
        become_rank(ctx, place, stdin_fd, out[1], err[1], launcher);
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        return -1;
    }
    /* Also set the group from the parent: a kill(-pid) right after fork must not
     * miss a child that has not run yet. */
    setpgid(pid, pid);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    memset(rp, 0, sizeof *rp);
    rp->pid = pid;
    rp->out_fd = out[0];
    rp->err_fd = err[0];
    rp->running = 1;
    return 0;
}
