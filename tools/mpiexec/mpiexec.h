/* Shared declarations of the launcher. One concern per file:
 *   options.c  command line, MPMD      spawn.c    starting one rank
 *   output.c   line-atomic forwarding  server.c   bootstrap key-value server
 *   job.c      rank lifecycle, kills   cleanup.c  /dev/shm + socket removal
 *   main.c     setup and the poll loop
 * Across hosts (docs/NETWORK.md):
 *   hosts.c    host list, rank placement, host identity and layout
 *   remote.c   mpiexec's side of the proxies: rsh start, their messages, remote kills and stdin
 *   proxy.c    `mpiexec --proxy`, run on each remote host: starts that host's ranks, relays I/O
 *   wire.c     message encoding shared by both sides (wire.h), TCP listen/connect helpers */
#ifndef EMPI_MPIEXEC_H
#define EMPI_MPIEXEC_H

#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- options.c ---- */
typedef struct host_entry {
    char *name;       /* as given: a name or an address */
    int slots;        /* 0: not given */
    int app;          /* the context whose -host gave it; -1: the job's (-hosts, -f) */
} host_entry_t;

/* One app context: a ':'-separated part of the command line (MPMD). */
typedef struct app_context {
    int nprocs;
    char **argv;         /* program and its arguments (NULL-terminated) */
    char **env;          /* "NAME=VALUE" from its -env, applied after the job-wide ones */
    int nenv;
    char *program_path;  /* resolved in main.c, so a missing program fails early */
    char *wdir;          /* its -wdir, absolute (main.c); NULL: the job's */
    int nargs;           /* -nargs: how many words after the program are its arguments; -1: up to ':' */
} app_context_t;

typedef struct mpiexec_options {
    int nprocs;       /* all contexts together */
    int universe_size; /* -usize / MPIEXEC_UNIVERSE_SIZE; 0: not given */
    int ppn;          /* 0: not given */
    host_entry_t *hosts;  /* from -hosts / -f; none: this host only */
    int nhosts;
    int tag_output;
    int print_exit_codes; /* -print-all-exitcodes */
    long parent_pid;      /* --parent-pid: started by MPI_Comm_spawn in that process; 0: no */
    int display_map;      /* --display-map */
    int launcher_fork;    /* -launcher fork: this host only */
    char *out_pattern, *err_pattern; /* -outfile-pattern, -errfile-pattern, --output-filename */
    int output_padded;    /* --output-filename: ranks zero-padded to the digits of the job size */
    int output_copy;      /* --output-filename without :nocopy: the terminal gets the lines too */
    char *wdir;       /* -gwdir: the ranks' working directory unless their context has a -wdir; NULL: ours */
    double timeout;   /* seconds; 0 = none */
    char **env;       /* "NAME=VALUE" strings for every rank (-genv, -x), applied in order */
    int nenv;
    app_context_t *apps;  /* in command-line order; ranks are numbered through them */
    int napps;
} mpiexec_options_t;

/* 0: run the job; 1: help/version printed, exit 0; -1: usage error reported. */
int options_parse(int argc, char **argv, mpiexec_options_t *opts);
void options_free(mpiexec_options_t *opts);
/* The app context (MPI_APPNUM) of a rank. */
int options_app_of(const mpiexec_options_t *opts, int rank);

/* ---- output.c ---- */
typedef struct line_buffer {
    char *data;
    size_t len, cap;
} line_buffer_t;

void output_set_tagging(int on);
/* Lines of each rank into files named by patterns (%r: the rank, zero-padded to `pad` digits;
   NULL: the terminal), also copied to the terminal if `copy`. Opens them all; 0 or -1. */
typedef struct output_files {
    const char *out_pattern, *err_pattern;
    int pad, copy;
} output_files_t;
int output_set_files(const output_files_t *spec, int nranks);
/* Read what `fd` has and write every complete line to `dest`. Returns 1 while the
 * pipe is open, 0 at EOF (the partial tail has been flushed). */
int output_pump(int fd, line_buffer_t *lb, int rank, int dest);
void output_flush_tail(line_buffer_t *lb, int rank, int dest);
void output_release(void);

/* Feed bytes that arrived for `rank` (from a pipe or a proxy) into its line buffer. */
void output_feed(line_buffer_t *lb, const char *data, size_t n, int rank, int dest);

/* ---- hosts.c ---- */
/* Where every rank runs and what it is told about its host. */
typedef struct layout {
    int nprocs, num_nodes;
    int *host_of;        /* rank -> index in opts.hosts (0 when there is no host list) */
    int *node_of;        /* rank -> node id: ranks whose hosts report the same name share one */
    int *local_rank;     /* rank -> index among the ranks of its node */
    int *local_size;     /* rank -> ranks on its node */
} layout_t;

extern layout_t layout;
/* Place ranks on the host entries (-ppn, slots, or even blocks). 0 on success. */
int layout_place(const mpiexec_options_t *opts);
/* With every host's name known (names[h] for entry h), number the nodes. */
void layout_number_nodes(char *const *names, int nhosts);
void layout_free(void);
/* This host's identity: EMPI_HOSTNAME if set, else gethostname(). */
void host_identity(char *buf, size_t len);
int host_is_local(const char *host);

/* ---- spawn.c ---- */
typedef struct spawn_context {
    int nprocs, universe_size;
    char **env;                 /* "NAME=VALUE" set in every rank */
    int nenv;
    const app_context_t *apps;  /* a rank runs the program, arguments and -env of its own */
    int napps;
    const char *jobid, *addr, *cookie;
    const char *self_path;      /* this mpiexec (EMPI_MPIEXEC); NULL: unknown */
    sigset_t child_sigmask;     /* the mask mpiexec started with */
    const struct mpiexec_options *opts;  /* mpiexec only (NULL in a proxy) */
    int opts_nhosts;
} spawn_context_t;

/* What a rank is told about its place (EMPI_* variables). */
typedef struct rank_place {
    int rank, node_id, num_nodes, local_rank, local_size, appnum;
} rank_place_t;

typedef struct rank_proc {
    pid_t pid;           /* also the rank's process group id (on its host) */
    int remote;          /* started by a proxy on another host: signals go through it */
    int out_fd, err_fd;  /* read ends, -1 once closed */
    line_buffer_t out, err;
    int running;
    int connected;       /* presented a valid cookie: it is an MPI process */
    int finalized;
    int exited;          /* wait status below is known */
    int wait_status;
} rank_proc_t;

/* Raise the soft descriptor limit to `need` if it is lower (main.c). */
void mpiexec_fd_room(size_t need);

/* Absolute path of the running mpiexec (/proc/self/exe), NULL if unreadable. */
const char *self_exe_path(void);
/* Start a rank; stdin_fd is its stdin (-1: /dev/null). 0 on success. */
int spawn_rank(const spawn_context_t *ctx, const rank_place_t *place, int stdin_fd, rank_proc_t *rp);

/* ---- server.c ---- */
/* Listen on a unix socket (path) or, when path is NULL, on the TCP listener listen_fd. */
int server_open(const char *path, int listen_fd, const char *cookie, int nranks);
/* Send one message on connection `conn`; on failure the connection is dropped. */
void server_send(int conn, uint32_t type, const void *payload, size_t len);
void server_drop(int conn);
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
void job_output_closed(void);        /* stdout/stderr reader gone: end like a pipeline */
void job_forward_signal(int sig);    /* SIGUSR1/SIGUSR2 to every rank */
void job_rank_exited(int rank, int wait_status);
void job_kill_all(int sig);
/* Called from the loop: SIGKILL the stragglers once the grace period is over. */
void job_check_deadlines(double now);

/* ---- remote.c ---- */
/* Start the proxies (rsh) for the remote host entries. 0 on success. */
int remote_start(const mpiexec_options_t *opts, const spawn_context_t *ctx, const char *server_addr);
/* Remote entries whose proxy has not said hello yet (spawning waits for all names). */
int remote_pending_hellos(void);
/* Host names as reported (local entries: ours); valid once remote_pending_hellos() == 0. */
char *const *remote_host_names(void);
/* Send each proxy its ranks; after layout_number_nodes. */
void remote_send_setup(const spawn_context_t *ctx);
/* Server hooks: a PROXY_HELLO on connection `conn`, a message from host `h`, a lost proxy. */
int remote_hello(int conn, const unsigned char *p, uint32_t len);
void remote_message(int h, uint32_t type, const unsigned char *p, uint32_t len);
void remote_lost(int h);
/* A child of mpiexec exited: 1 if it was an rsh process. */
int remote_reaped(pid_t pid, int status);
void remote_kill_all(int sig);
int remote_rank0_host(void);        /* host entry of rank 0 if it is remote, else -1 */
void remote_stdin(const void *buf, size_t len);  /* len 0: EOF */
int remote_stdin_room(void);   /* whether to read more of stdin for a remote rank 0 */
/* After the job: close the links and wait (bounded) for the rsh processes. */
void remote_shutdown(void);
const char *remote_host_label(int rank); /* "host NAME" of a remote rank, for messages */

/* ---- proxy.c ---- */
int proxy_main(int argc, char **argv);

/* ---- cleanup.c ---- */
void cleanup_job_files(const char *jobid);

/* ---- janitor.c ---- */
/* From now on the job's files are removed when this process exits, and by the process started
   here if it dies unseen (SIGKILL). 0, or -1 when that process could not be started. */
int janitor_start(const char *jobid);
int janitor_main(const char *jobid);   /* mpiexec --janitor JOBID */

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
