/*
 * MPI_Comm_spawn and MPI_Comm_spawn_multiple. The root opens a port and starts the children as a
 * job of their own with our launcher:
 *     mpiexec -genv EMPI_PARENT_PORT <port> -n K [-wdir D] [-host H] cmd args : -n K2 cmd2 ...
 * (the launcher path comes from EMPI_MPIEXEC, which mpiexec gives every rank, or is found next to
 * this library). The children connect back from MPI_Init (empi_dyn_init) and the two groups meet
 * as in accept/connect. If the launcher ends before anyone connects (no such program, a child that
 * crashed), the spawn fails with MPI_ERR_SPAWN instead of waiting forever. The parent's
 * MPI_Finalize waits for the jobs it started that are still connected; the process waits for the
 * others when it exits, so a job ends only when everything it spawned did (the launcher dies with
 * its parent). A spawned job that fails while still connected takes the parent down; once the
 * spawn's intercommunicator is disconnected the two are independent (MPI 4.1, 11.10.4: MPI_Finalize
 * is collective over connected processes only) and its exit status is only collected.
 */
#include "comm/dyn.h"
#include "comm/intercomm.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "core/progress.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

empi_comm_t *empi_dyn_parent;

/* The launcher of each job this process spawned (at the spawn's root), until it is reaped. */
typedef struct {
    pid_t pid;
    uint32_t context_id;   /* of the spawn's intercommunicator */
    int independent;       /* that intercommunicator was disconnected */
} launched_t;
static launched_t *launched;
static int nlaunched;

/* ---- building the launcher's command line ---- */

typedef struct argvec {
    char **v;
    int n, cap;
} argvec_t;

static int push(argvec_t *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        int cap = a->cap ? 2 * a->cap : 32;
        char **v = realloc(a->v, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    if (!(a->v[a->n] = strdup(s)))
        return -1;
    a->v[++a->n] = NULL;
    return 0;
}

static void argvec_free(argvec_t *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
}

static int executable(const char *path)
{
    return access(path, X_OK) == 0;
}

/* EMPI_MPIEXEC, else the launcher installed beside this library (bin/ next to lib/) or built
   beside it (tools/mpiexec/ next to src/), else "mpiexec" from PATH. */
static void find_launcher(char *out, size_t len)
{
    const char *env = getenv("EMPI_MPIEXEC");
    if (env && executable(env)) {
        snprintf(out, len, "%s", env);
        return;
    }
    Dl_info dl;
    if (dladdr((void *)find_launcher, &dl) && dl.dli_fname) {
        char lib[PATH_MAX];
        snprintf(lib, sizeof lib, "%s", dl.dli_fname);
        const char *dir = dirname(lib);
        static const char *const beside[] = {"../bin/mpiexec", "../tools/mpiexec/mpiexec"};
        for (size_t i = 0; i < sizeof beside / sizeof *beside; i++) {
            snprintf(out, len, "%s/%s", dir, beside[i]);
            if (executable(out))
                return;
        }
    }
    snprintf(out, len, "mpiexec");
}

typedef struct app {
    const char *command;
    char **argv;
    int maxprocs;
    empi_info_t *info;
} app_t;

static const char *hint(const app_t *a, const char *key)
{
    return a->info ? empi_info_lookup(a->info, key) : NULL;
}

/* The command as the launcher should run it: found in the "path" hint's directories (a
   colon-separated list) when it names no directory and one of them holds it, else as given. */
static void resolve_command(const app_t *app, char *out, size_t len)
{
    const char *path = hint(app, "path");
    snprintf(out, len, "%s", app->command);
    if (!path || strchr(app->command, '/'))
        return;
    for (const char *dir = path; *dir;) {
        size_t n = strcspn(dir, ":");
        if (n && (size_t)snprintf(out, len, "%.*s/%s", (int)n, dir, app->command) < len && executable(out))
            return;
        dir += n + (dir[n] == ':');
    }
    snprintf(out, len, "%s", app->command);
}

static int build_command(const char *launcher, const char *port, const app_t *apps, int count, argvec_t *a)
{
    char me[24];
    snprintf(me, sizeof me, "%ld", (long)getpid());
    /* --parent-pid: the launcher ends the children if we go without a word (killed, say) */
    int rc = push(a, launcher) | push(a, "--parent-pid") | push(a, me) | push(a, "-genv") |
             push(a, "EMPI_PARENT_PORT") | push(a, port);
    /* Each command's own "host", "wdir" and "path" hints apply to it alone. */
    for (int i = 0; i < count; i++) {
        char n[16], nargs[16], command[PATH_MAX];
        const char *wdir = hint(&apps[i], "wdir"), *host = hint(&apps[i], "host");
        int k = 0;
        while (apps[i].argv && apps[i].argv[k])
            k++;
        snprintf(n, sizeof n, "%d", apps[i].maxprocs);
        snprintf(nargs, sizeof nargs, "%d", k);
        if (i)
            rc |= push(a, ":");
        /* -nargs: an argument ":" is the program's, not a separator of mpiexec's */
        rc |= push(a, "-n") | push(a, n) | push(a, "-nargs") | push(a, nargs);
        if (wdir)
            rc |= push(a, "-wdir") | push(a, wdir);
        if (host)
            rc |= push(a, "-host") | push(a, host);
        resolve_command(&apps[i], command, sizeof command);
        rc |= push(a, command);
        for (int k = 0; apps[i].argv && apps[i].argv[k]; k++)
            rc |= push(a, apps[i].argv[k]);
    }
    return rc ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

/* In the child between fork and exec: the launcher must not read our stdin and must die with us.
   "Us" is the forking thread for PR_SET_PDEATHSIG, so only a spawn from the main thread asks for
   it: a helper thread that spawns and ends would take the children along. (The launcher stays in
   our process group either way, so ending our job ends it; and it watches for our pid to go,
   --parent-pid, for when that job's mpiexec was killed outright.) */
static _Noreturn void exec_launcher(char **argv, int main_thread)
{
    if (main_thread)
        prctl(PR_SET_PDEATHSIG, SIGTERM);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) {
        dup2(null, 0);
        close(null);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "MPI_Comm_spawn: cannot run the launcher %s\n", argv[0]);
    _exit(127);
}

/* Root only: start the children and take the connection from their root. */
static int launch(const app_t *apps, int count, int *fd, pid_t *pid)
{
    char port[MPI_MAX_PORT_NAME], launcher[PATH_MAX];
    int rc = empi_dyn_port_open(port);
    if (rc != MPI_SUCCESS)
        return rc;
    find_launcher(launcher, sizeof launcher);
    argvec_t a = {0};
    rc = build_command(launcher, port, apps, count, &a);
    if (rc == MPI_SUCCESS) {
        fflush(NULL); /* buffered output must not be written twice */
        int main_thread = gettid() == getpid();
        *pid = fork();
        if (*pid == 0)
            exec_launcher(a.v, main_thread);
        if (*pid < 0)
            rc = MPI_ERR_SPAWN;
    }
    argvec_free(&a);
    if (rc == MPI_SUCCESS)
        rc = empi_dyn_port_accept(port, *pid, fd);
    empi_dyn_port_close(port);
    return rc;
}

/* Reap the spawned jobs that ended. One that failed takes this job down, as a failed rank would,
   rather than leave it waiting for messages that cannot come. */
static void reap_launched(void)
{
    for (int i = 0; i < nlaunched; i++) {
        int status;
        if (waitpid(launched[i].pid, &status, WNOHANG) != launched[i].pid)
            continue;
        if (!launched[i].independent && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
            char msg[160];
            snprintf(msg, sizeof msg, "a job this process spawned failed (its mpiexec, pid %d, %s %d)",
                     (int)launched[i].pid, WIFEXITED(status) ? "exited with status" : "was killed by signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            empi_fatal(MPI_ERR_SPAWN, msg);
        }
        launched[i--] = launched[--nlaunched];
    }
}

/* A progress hook: every 50 ms, since a waitpid per pass would cost more than a message. By the
   clock, not by passes: a process waiting for a message sleeps up to 100 ms per pass, so "every
   4096 passes" meant minutes before a singleton parent noticed its spawned job had died. */
static int watch_launched(void)
{
    static struct timespec last;
    struct timespec now;
    if (!nlaunched)
        return 0;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    if ((now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec - last.tv_nsec) / 1000000 >= 50) {
        last = now;
        reap_launched();
    }
    return 0;
}

static int remember(pid_t pid, const empi_comm_t *intercomm)
{
    launched_t *l = realloc(launched, sizeof *l * (size_t)(nlaunched + 1));
    if (!l)
        return MPI_ERR_NO_MEM;
    launched = l;
    launched[nlaunched++] = (launched_t){pid, intercomm->context_id, 0};
    empi_progress_add_hook(watch_launched);
    return MPI_SUCCESS;
}

/* Collective over c; apps matter at the root only, where bad_class/why tell of bad arguments,
   which still go through the group (everyone must hear the spawn failed, nobody may hang). */
static int spawn(const char *fn, empi_comm_t *c, int root, const app_t *apps, int count, int bad_class, const char *why,
                 MPI_Comm *intercomm, int *errcodes)
{
    int total = 0, fd = -1, root_rc = bad_class;
    pid_t pid = -1;
    if (c->rank == root && root_rc == MPI_SUCCESS) {
        for (int i = 0; i < count; i++)
            total += apps[i].maxprocs;
        empi_lock();
        root_rc = launch(apps, count, &fd, &pid);
        empi_unlock();
    }
    empi_comm_t *d = NULL;
    int rc = empi_dyn_establish(c, root, fd, root_rc, &d);
    if (fd >= 0)
        close(fd);
    if (pid > 0) {
        if (rc == MPI_SUCCESS && remember(pid, d) == MPI_SUCCESS) {
            pid = -1;
        } else {
            kill(pid, SIGTERM); /* it ends its own ranks */
            waitpid(pid, NULL, 0);
        }
    }
    if (rc == MPI_SUCCESS)
        total = d->remote_group->size;
    else if (PMPI_Bcast(&total, 1, MPI_INT, root, c->handle) != MPI_SUCCESS)
        total = 0; /* every process reports the failure per child, but only the root knows how many */
    for (int i = 0; errcodes != MPI_ERRCODES_IGNORE && i < total; i++)
        errcodes[i] = rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_SPAWN;
    if (rc != MPI_SUCCESS) {
        *intercomm = MPI_COMM_NULL;
        if (c->rank == root && bad_class != MPI_SUCCESS)
            return empi_err_comm(c, bad_class, "%s: %s", fn, why);
        return empi_err_comm(c, rc == MPI_ERR_NO_MEM ? rc : MPI_ERR_SPAWN,
                             "%s: the processes could not be started (%s)", fn,
                             rc == MPI_ERR_SPAWN ? "the launcher ended before they connected"
                             : rc == bad_class   ? "bad arguments at the root"
                                                 : empi_comm_failure_text(rc));
    }
    *intercomm = d->handle;
    return MPI_SUCCESS;
}

/* Arguments of one command at the root: MPI_SUCCESS or an error class, with *why. */
static int check_app(const char *command, int maxprocs, MPI_Info info, app_t *out, const char **why)
{
    if (!command || !command[0])
        return *why = "command is empty", MPI_ERR_SPAWN;
    if (maxprocs <= 0)
        return *why = "maxprocs is not positive", MPI_ERR_ARG;
    if (info != MPI_INFO_NULL && !empi_info_get(info))
        return *why = "info is not a valid info object", MPI_ERR_INFO;
    out->command = command;
    out->maxprocs = maxprocs;
    out->info = info == MPI_INFO_NULL ? NULL : empi_info_get(info);
    return MPI_SUCCESS;
}

static int check_common(const char *fn, MPI_Comm comm, int root, MPI_Comm *intercomm, empi_comm_t **c)
{
    EMPI_CHECK(empi_comm_check(comm, fn, c));
    if (empi_comm_is_inter(*c))
        return empi_err_comm(*c, MPI_ERR_COMM, "%s: comm is an intercommunicator", fn);
    if (!intercomm)
        return empi_err_comm(*c, MPI_ERR_ARG, "%s: intercomm is NULL", fn);
    if (root < 0 || root >= (*c)->size)
        return empi_err_comm(*c, MPI_ERR_ROOT, "%s: root %d is not a rank of comm (size %d)", fn, root, (*c)->size);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_spawn)
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char fn[] = "MPI_Comm_spawn";
    empi_comm_t *c;
    EMPI_CHECK(check_common(fn, comm, root, intercomm, &c));
    app_t app = {0};
    const char *why = NULL;
    int bad = c->rank == root ? check_app(command, maxprocs, info, &app, &why) : MPI_SUCCESS;
    app.argv = argv;
    return spawn(fn, c, root, &app, 1, bad, why, intercomm, array_of_errcodes);
}

EMPI_WEAK_ALIAS(Comm_spawn_multiple)
int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm,
                             MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char fn[] = "MPI_Comm_spawn_multiple";
    empi_comm_t *c;
    EMPI_CHECK(check_common(fn, comm, root, intercomm, &c));
    app_t *apps = NULL;
    const char *why = NULL;
    int bad = MPI_SUCCESS;
    if (c->rank == root) {
        if (count <= 0)
            bad = MPI_ERR_ARG, why = "count is not positive";
        else if (!array_of_commands || !array_of_maxprocs || !array_of_info)
            bad = MPI_ERR_ARG, why = "an array argument is NULL";
        else if (!(apps = calloc((size_t)count, sizeof *apps)))
            bad = MPI_ERR_NO_MEM, why = "out of memory";
        for (int i = 0; bad == MPI_SUCCESS && i < count; i++) {
            bad = check_app(array_of_commands[i], array_of_maxprocs[i], array_of_info[i], &apps[i], &why);
            apps[i].argv = array_of_argv == MPI_ARGVS_NULL ? NULL : array_of_argv[i];
        }
    }
    int rc = spawn(fn, c, root, apps, count, bad, why, intercomm, array_of_errcodes);
    free(apps);
    return rc;
}

/* ---- the parent, seen from the children ---- */

int empi_dyn_init(void)
{
    const char *port = getenv("EMPI_PARENT_PORT");
    if (!port || !port[0])
        return MPI_SUCCESS;
    int fd = -1, rc = MPI_SUCCESS;
    if (empi_comm_world.rank == 0) {
        empi_lock();
        rc = empi_dyn_port_connect(port, &fd);
        empi_unlock();
    }
    rc = empi_dyn_establish(&empi_comm_world, 0, fd, rc, &empi_dyn_parent);
    if (fd >= 0)
        close(fd);
    if (rc == MPI_SUCCESS)
        strcpy(empi_dyn_parent->name, "MPI_COMM_PARENT");   /* its default name (MPI 4.1, 7.8) */
    /* Our own children get their own port, not our parent's. */
    unsetenv("EMPI_PARENT_PORT");
    return rc;
}

EMPI_WEAK_ALIAS(Comm_get_parent)
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    if (!parent)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Comm_get_parent: parent is NULL");
    *parent = empi_dyn_parent ? empi_dyn_parent->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

void empi_dyn_disconnected(const empi_comm_t *c)
{
    for (int i = 0; i < nlaunched; i++)
        if (launched[i].context_id == c->context_id)
            launched[i].independent = 1;
}

static int connected_launched(void)
{
    int n = 0;
    for (int i = 0; i < nlaunched; i++)
        n += !launched[i].independent;
    return n;
}

/* At exit: the disconnected jobs still running would die with us (PR_SET_PDEATHSIG). */
static void wait_disconnected(void)
{
    for (int i = 0; i < nlaunched; i++)
        while (waitpid(launched[i].pid, NULL, 0) < 0 && errno == EINTR)
            ;
    free(launched);
    launched = NULL;
    nlaunched = 0;
}

void empi_dyn_finalize(void)
{
    /* The connected spawned jobs end after their MPI_Finalize; keep answering them until then. */
    int idle = 0;
    while (connected_launched()) {
        reap_launched();
        if (empi_progress_poll() == 0)
            empi_progress_idle(&idle);
    }
    reap_launched();
    static int at_exit_registered;
    if (nlaunched && !at_exit_registered)
        at_exit_registered = atexit(wait_disconnected) == 0;
    if (!nlaunched || !at_exit_registered)
        wait_disconnected();
    empi_dyn_parent = NULL;
    empi_dyn_names_finalize();
}
