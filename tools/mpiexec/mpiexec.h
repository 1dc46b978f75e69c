/* Shared declarations of the single-host launcher. One concern per file:
 *   options.c  command line            spawn.c    starting one rank
 *   output.c   line-atomic forwarding  server.c   bootstrap key-value server
 *   job.c      rank lifecycle, kills   cleanup.c  /dev/shm + socket removal
 *   main.c     setup and the poll loop */
#ifndef EMPI_MPIEXEC_H
#define EMPI_MPIEXEC_H

#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* ---- options.c ---- */
typedef struct mpiexec_options {
    int nprocs;
    int tag_output;
    double timeout;   /* seconds; 0 = none */
    char **env;       /* "NAME=VALUE" strings for every rank, applied in order */
    int nenv;
    char **argv;      /* program and its arguments (NULL-terminated) */
} mpiexec_options_t;

/* 0: run the job; 1: help/version printed, exit 0; -1: usage error reported. */
int options_parse(int argc, char **argv, mpiexec_options_t *opts);
void options_free(mpiexec_options_t *opts);

/* ---- output.c ---- */
typedef struct line_buffer {
    char *data;
    size_t len, cap;
} line_buffer_t;

void output_set_tagging(int on);
/* Read what `fd` has and write every complete line to `dest`. Returns 1 while the
 * pipe is open, 0 at EOF (the partial tail has been flushed). */
int output_pump(int fd, line_buffer_t *lb, int rank, int dest);
void output_flush_tail(line_buffer_t *lb, int rank, int dest);
void output_release(void);

/* ---- spawn.c ---- */
typedef struct spawn_context {
    const mpiexec_options_t *opts;
    const char *program_path;   /* resolved once, so a missing program fails early */
    const char *jobid, *addr, *cookie;
    sigset_t child_sigmask;     /* the mask mpiexec started with */
} spawn_context_t;

typedef struct rank_proc {
    pid_t pid;           /* also the rank's process group id */
    int out_fd, err_fd;  /* read ends, -1 once closed */
    line_buffer_t out, err;
    int running;
    int connected;       /* presented a valid cookie: it is an MPI process */
    int finalized;
} rank_proc_t;

/* Start `rank`; stdin_fd is its stdin (-1: /dev/null). 0 on success. */
int spawn_rank(const spawn_context_t *ctx, int rank, int stdin_fd, rank_proc_t *rp);

/* ---- server.c ---- */
int server_open(const char *path, const char *cookie, int nranks);
/* How many descriptors server_pollfds will write. */
int server_pollfd_count(void);
/* Write the server's descriptors to pfds; returns how many. */
int server_pollfds(struct pollfd *pfds);
void server_handle(const struct pollfd *pfds, int n);
/* Process whatever a rank sent before it exited (e.g. a last FINALIZE or ABORT). */
void server_drain_rank(int rank);
void server_close(void);

/* ---- job.c ---- (called by the server and the main loop) */
void job_rank_connected(int rank);
void job_rank_finalized(int rank);
void job_rank_aborted(int rank, int code, const char *msg);
/* Print "mpiexec: <why>" and tear the job down with SIGTERM; first caller wins. */
void job_end(int exit_code, const char *why_fmt, ...) __attribute__((format(printf, 2, 3)));
/* mpiexec itself got `sig`: forward it to the ranks and end with 128+sig. */
void job_interrupt(int sig);
void job_rank_exited(int rank, int wait_status);
void job_kill_all(int sig);
/* Called from the loop: SIGKILL the stragglers once the grace period is over. */
void job_check_deadlines(double now);

/* ---- cleanup.c ---- */
void cleanup_job_files(const char *jobid, const char *socket_path);

/* ---- main.c state shared with job.c ---- */
typedef struct job_state {
    int nprocs;
    rank_proc_t *ranks;
    int running;          /* ranks not yet reaped */
    int ending;           /* the job is being torn down */
    int exit_code;        /* decided by the first failure, else first non-zero exit */
    int exit_code_set;
    double kill_deadline; /* monotonic seconds when stragglers get SIGKILL; 0 = none */
} job_state_t;

extern job_state_t job;
double now_seconds(void);

#endif
