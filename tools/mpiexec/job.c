/* Rank lifecycle and job teardown. The rules:
 *  - a rank killed by a signal, or exiting before empi_boot_finalize, ends the job
 *    (exit 128+signal, or its exit code; 1 if that code was 0);
 *  - a program that never contacted the bootstrap (not an MPI program) may exit 0, unless
 *    another rank did: that one would wait in MPI_Init for it forever;
 *  - MPI_Abort ends the job with the abort code's low byte (1 if that is 0 but the code not);
 *  - otherwise mpiexec exits with the first non-zero exit code of any rank.
 * Teardown sends SIGTERM (or the signal mpiexec received) to every rank's process
 * group and SIGKILL to whatever is left after a grace period. */
#include "mpiexec.h"
#include "runtime/bootstrap_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#define KILL_GRACE_SECONDS 0.5

static void set_exit_code(int code)
{
    if (!job.exit_code_set) {
        job.exit_code = code;
        job.exit_code_set = 1;
    }
}

void job_kill_all(int sig)
{
    remote_kill_all(sig);
    for (int r = 0; r < job.nprocs; r++) {
        rank_proc_t *rp = &job.ranks[r];
        if (rp->pid <= 0 || rp->remote)
            continue;
        /* The group also holds whatever the rank started; it may outlive the rank. */
        if (kill(-rp->pid, sig) != 0 && rp->running)
            kill(rp->pid, sig);
    }
}

static void begin_teardown(int exit_code, int sig)
{
    job.ending = 1;
    /* A failure decides the exit status even if a rank exited non-zero before. */
    job.exit_code = exit_code;
    job.exit_code_set = 1;
    job_kill_all(sig);
    job.kill_deadline = now_seconds() + KILL_GRACE_SECONDS;
}

void job_end(int exit_code, const char *why_fmt, ...)
{
    if (job.ending)
        return;
    char why[512];
    va_list ap;
    va_start(ap, why_fmt);
    vsnprintf(why, sizeof why, why_fmt, ap);
    va_end(ap);
    fprintf(stderr, "mpiexec: %s\n", why);
    begin_teardown(exit_code, SIGTERM);
}

void job_interrupt(int sig)
{
    if (job.ending) {
        /* Asked twice: stop waiting for a graceful end. */
        job_kill_all(SIGKILL);
        return;
    }
    fprintf(stderr, "mpiexec: received signal %d (%s); ending the job\n", sig, strsignal(sig));
    begin_teardown(128 + sig, sig);
}

/* Our stdout or stderr has no reader any more: end the job quietly with the status a process
   killed by SIGPIPE has, as a command in a pipeline whose reader left would. */
void job_output_closed(void)
{
    if (!job.ending)
        begin_teardown(128 + SIGPIPE, SIGTERM);
}

/* SIGUSR1 and SIGUSR2 are the user's to send to the program (checkpointing, dumping state). */
void job_forward_signal(int sig)
{
    if (!job.ending)
        job_kill_all(sig);
}

void job_check_deadlines(double now)
{
    if (job.ending && job.kill_deadline > 0 && now >= job.kill_deadline) {
        job_kill_all(SIGKILL);
        job.kill_deadline = 0;
    }
}

/* A rank that exited 0 without ever contacting the bootstrap, or -1. */
static int exited_outside_mpi(void)
{
    for (int r = 0; r < job.nprocs; r++) {
        const rank_proc_t *rp = &job.ranks[r];
        if (rp->exited && !rp->connected && WIFEXITED(rp->wait_status) && WEXITSTATUS(rp->wait_status) == 0)
            return r;
    }
    return -1;
}

static int any_connected(void)
{
    for (int r = 0; r < job.nprocs; r++)
        if (job.ranks[r].connected)
            return 1;
    return 0;
}

static const char *describe(int rank);

void job_rank_connected(int rank)
{
    job.ranks[rank].connected = 1;
    int gone = exited_outside_mpi();
    if (gone >= 0)
        job_end(1, "%s exited with code 0 without calling MPI_Init, which rank %d called; ending the job",
                describe(gone), rank);
}

void job_rank_finalized(int rank)
{
    job.ranks[rank].finalized = 1;
}

void job_rank_aborted(int rank, int code, const char *msg)
{
    if (job.ending)
        return;
    fprintf(stderr, "mpiexec: rank %d called MPI_Abort(%d): %s\n", rank, code, msg);
    begin_teardown(empi_boot_abort_status(code), SIGTERM);
}

/* "rank 3 (pid 42)", with " on host NAME" for a rank on another host. */
static const char *describe(int rank)
{
    static char buf[400];
    const rank_proc_t *rp = &job.ranks[rank];
    snprintf(buf, sizeof buf, "rank %d (pid %d%s%s)", rank, (int)rp->pid, rp->remote ? " on " : "",
             rp->remote ? remote_host_label(rank) : "");
    return buf;
}

void job_rank_exited(int rank, int wait_status)
{
    rank_proc_t *rp = &job.ranks[rank];
    rp->running = 0;
    rp->exited = 1;
    rp->wait_status = wait_status;
    job.running--;
    /* A FINALIZE or ABORT may still sit unread in the socket. */
    server_drain_rank(rank);
    if (job.ending)
        return; /* exits caused by the teardown itself say nothing new */

    if (WIFSIGNALED(wait_status)) {
        int sig = WTERMSIG(wait_status);
        job_end(128 + sig, "%s killed by signal %d (%s); ending the job", describe(rank), sig,
                strsignal(sig));
        return;
    }
    int code = WEXITSTATUS(wait_status);
    if (!rp->finalized && !rp->connected && code == 0 && any_connected()) {
        job_end(1, "%s exited with code 0 without calling MPI_Init, which other ranks called; ending the job",
                describe(rank));
        return;
    }
    if (!rp->finalized && (code != 0 || rp->connected)) {
        job_end(code ? code : 1, "%s exited with code %d before MPI_Finalize; ending the job",
                describe(rank), code);
        return;
    }
    if (code != 0)
        set_exit_code(code);
}
