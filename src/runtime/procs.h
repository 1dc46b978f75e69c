/*
 * Process indices beyond the world. Every layer below the communicators names a process by an
 * int: 0..size-1 are this job's world ranks, and processes of other jobs met through
 * MPI_Comm_spawn, MPI_Comm_accept/connect or MPI_Comm_join get size, size+1, ... in the order
 * they were met (this numbering is private to each process). A foreign process is identified by
 * its job and its world rank there, and reached through the address record it sent.
 */
#ifndef EMPI_RUNTIME_PROCS_H
#define EMPI_RUNTIME_PROCS_H

#include <stddef.h>
#include <stdint.h>

#define EMPI_PROC_RECORD_MAX 128 /* a transport's address record of one process */

/* What a process tells another job about itself. Plain bytes: the same on both ends. */
typedef struct empi_proc_desc {
    char jobid[32];      /* NUL-terminated unless all 32 are used */
    int32_t rank;        /* world rank in that job */
    int32_t node;        /* host index in that job: processes share memory only within a job's host */
    uint32_t record_len; /* bytes of record */
    unsigned char record[EMPI_PROC_RECORD_MAX];
} empi_proc_desc_t;

/* This process's description (its "tcp" record must have been published). 0, or -1 if none. */
int empi_procs_describe_self(empi_proc_desc_t *out);

/* The index of the process `d` describes, adding it when it is new; -1 on ENOMEM. */
int empi_procs_add(const empi_proc_desc_t *d);

/* Indices in use: the world plus every foreign process so far. */
int empi_procs_total(void);

/* The index of (job hash, rank), or -1 if this process never met it. */
int empi_procs_find(uint64_t job, int rank);

/* The host of foreign index i as this process numbers hosts: after the job's own, one per (job,
   host) pair, so every process sees the same grouping of processes into shared-memory hosts. */
int empi_procs_node(int i);

/* Job hash and rank of index i (this job's hash for world ranks). */
uint64_t empi_procs_job(int i);
int empi_procs_rank(int i);

/* A total order every process agrees on: by job hash, then rank. */
int empi_procs_before(int a, int b);

/* The record of foreign index i (NULL if i is not foreign), for the bootstrap's lookups. */
const void *empi_procs_record(int i, size_t *len);

/* How two processes name a third when their numberings may differ (groups spanning two jobs). */
typedef struct empi_proc_gid {
    uint64_t job;
    int64_t rank;
} empi_proc_gid_t;
void empi_procs_to_gids(const int *idx, int n, empi_proc_gid_t *out);
/* 0, or -1 if some process was never met here. */
int empi_procs_from_gids(const empi_proc_gid_t *gids, int n, int *idx);

/* The job id of index i, as its launcher named it (this job's for world ranks). */
const char *empi_procs_jobid(int i);

/*
 * A process of another job went away without finalizing (its transport saw the connection close
 * with no goodbye): the communicator layer decides whether that ends this job (it does while a
 * communicator still connects the two). The transport calls empi_procs_lost; the hook is set once.
 */
typedef void (*empi_procs_lost_fn)(int i, const char *why);
void empi_procs_set_lost_hook(empi_procs_lost_fn fn);
void empi_procs_lost(int i, const char *why);

void empi_procs_finalize(void);

#endif
