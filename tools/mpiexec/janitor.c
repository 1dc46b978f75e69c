/*
 * Removal of the job's files at the end of mpiexec (and of each remote host's proxy): every exit
 * of the process, once the job has an id, passes janitor_stop (atexit). A SIGKILL passes nothing,
 * and the ranks die with mpiexec (PR_SET_PDEATHSIG), possibly between creating a /dev/shm file and
 * unlinking it: so the janitor, a small child in its own session, outlives mpiexec. It waits on a
 * pipe only mpiexec writes to: a byte means the files are gone and it leaves at once; end of file
 * means mpiexec died, and it removes the job's files, a second time a moment later since the ranks
 * are killed only after mpiexec's descriptors close.
 */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t janitor_pid = -1;
static int janitor_fd = -1;
static char janitor_jobid[64];

static void janitor_stop(void)
{
    /* every way out of the process passes here (atexit): clean, then let the janitor go */
    cleanup_job_files(janitor_jobid);
    if (janitor_fd < 0)
        return;
    ssize_t w;
    do
        w = write(janitor_fd, "q", 1);
    while (w < 0 && errno == EINTR);
    close(janitor_fd);
    janitor_fd = -1;
    waitpid(janitor_pid, NULL, 0);
}

/* `mpiexec --janitor JOBID`, started by janitor_start with the pipe as descriptor 3 (its own
   command line, so that nobody takes it for a rank of the job). */
int janitor_main(const char *jobid)
{
    char c;
    ssize_t n;
    do
        n = read(3, &c, 1);
    while (n < 0 && errno == EINTR);
    if (n == 0) {
        cleanup_job_files(jobid);
        usleep(50 * 1000);
        cleanup_job_files(jobid);
    }
    return 0;
}

static void become_janitor(int fd)
{
    setsid();   /* the terminal's and the process group's signals are mpiexec's to handle */
    if (fd != 3 && (dup2(fd, 3) < 0 || close(fd) != 0))
        _exit(1);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int i = 0; i < 3 && null >= 0; i++)
        dup2(null, i);   /* whoever reads mpiexec's output sees its end without waiting for us */
    close_range(4, ~0U, 0);
    execl("/proc/self/exe", "mpiexec", "--janitor", janitor_jobid, (char *)NULL);
    _exit(janitor_main(janitor_jobid));
}

int janitor_start(const char *jobid)
{
    snprintf(janitor_jobid, sizeof janitor_jobid, "%s", jobid);
    atexit(janitor_stop);   /* the files go at exit even when no janitor could be started */
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[1]);
        become_janitor(p[0]);
    }
    close(p[0]);
    janitor_fd = p[1];
    janitor_pid = pid;
    return 0;
}
