/* Bootstrap: how a process learns its place in the job and swaps small key-value
 * records with its peers before any fast transport exists (a PMI-like service).
 * Under mpiexec the values travel through the launcher; without it the process is
 * a world of one (singleton). */
#ifndef EMPI_RUNTIME_BOOTSTRAP_H
#define EMPI_RUNTIME_BOOTSTRAP_H

#include <stddef.h>

typedef struct empi_boot_info {
    int rank, size;              /* world */
    int local_rank, local_size;  /* ranks on this host */
    int node_id, num_nodes;      /* host index 0..num_nodes-1 */
    int appnum, universe_size;
    char jobid[32];              /* unique per job, [0-9a-f] only; used in /dev/shm names */
    int is_singleton;            /* 1 when started without mpiexec */
} empi_boot_info_t;

/* Not thread-safe: meant for MPI init/finalize/abort paths.
 * empi_boot_get returns -1 when the value is larger than maxlen, but still stores
 * its size in *len (so a caller can ask with maxlen 0, then allocate).
 * A rank sees its own puts at once; other ranks' puts after the next fence. */

/* Largest value one put may carry, and longest key (without the NUL). */
#define EMPI_BOOT_MAX_VALUE (64 * 1024)
#define EMPI_BOOT_MAX_KEY 255

int  empi_boot_init(empi_boot_info_t *info);              /* 0 on success, -1 and message to stderr on failure */
int  empi_boot_put(const char *key, const void *val, size_t len);   /* visible to others after the next fence */
int  empi_boot_get(int rank, const char *key, void *val, size_t maxlen, size_t *len); /* value put by `rank`; -1 if absent */
int  empi_boot_fence(void);                               /* collective over all ranks: barrier + publish puts */
void empi_boot_abort(int errorcode, const char *msg);    /* ask the launcher to end the job with that exit code; does not return (falls back to _exit) */
int  empi_boot_finalize(void);                            /* tell the launcher this rank finalized cleanly; closes connection */
int  empi_boot_node_of(int rank);                         /* host index of a world rank (from info exchanged at init) */

/* While a fence waits for the other ranks, call `hook` about every millisecond (NULL: just block).
 * A transport with its own reliability sets it, so a rank waiting in a fence still answers its
 * peers' retransmissions and they can reach the fence too. */
void empi_boot_set_fence_hook(void (*hook)(void));
void (*empi_boot_fence_hook(void))(void);

#endif
