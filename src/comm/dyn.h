/*
 * Dynamic process management (MPI chapter 11) inside the library:
 *   dyn_port.c     ports: a listening socket per MPI_Open_port, the name that reaches it, and the
 *                  roots' raw socket that two groups meet through
 *   dyn_connect.c  joining two groups over that socket into one intercommunicator (accept/connect,
 *                  join and spawn all end there)
 *   dyn_spawn.c    MPI_Comm_spawn(_multiple): children are a job of their own, started by our
 *                  mpiexec, which connect back to a port of the parent at MPI_Init
 *   dyn_names.c    the name service (publish, lookup, unpublish)
 * Processes of the other group get indices beyond the world (runtime/procs.h) and are reached
 * over tcp, even on this host: the two jobs share no memory segment.
 */
#ifndef EMPI_DYN_H
#define EMPI_DYN_H

#include "comm/comm.h"

#include <stddef.h>
#include <sys/types.h>

/* A new port: its listening socket stays open until empi_dyn_port_close. An MPI error class. */
int empi_dyn_port_open(char name[MPI_MAX_PORT_NAME]);
int empi_dyn_port_close(const char *name);

/*
 * Root side of accept: wait for a connection to our port `name` and return its socket. While
 * waiting, progress runs; if `watch` > 0 and that child process ends first, fail with
 * MPI_ERR_SPAWN (the spawned job died before it connected back).
 */
int empi_dyn_port_accept(const char *name, pid_t watch, int *fd);

/* Root side of connect: reach the port `name` (another process's). MPI_ERR_PORT if it cannot. */
int empi_dyn_port_connect(const char *name, int *fd);

/* Send `mine` and receive `theirs` on a stream socket, both whole, progressing MPI meanwhile. */
int empi_dyn_sock_swap(int fd, const void *mine, size_t mine_len, void *theirs, size_t theirs_len);

/*
 * Collective over comm c: the two groups whose roots share socket `fd` (meaningful at the root,
 * which passes its own failure as root_rc, e.g. when no connection was made) become the two
 * sides of a new intercommunicator *out. The socket stays open.
 */
int empi_dyn_establish(empi_comm_t *c, int root, int fd, int root_rc, empi_comm_t **out);

/* The parent intercommunicator of a spawned process (NULL if none); dyn_spawn.c. */
extern empi_comm_t *empi_dyn_parent;
/* At MPI_Init: connect back to the parent when this job was spawned. At MPI_Finalize: wait for the
   jobs this process spawned, and withdraw names it published. */
int empi_dyn_init(void);
void empi_dyn_finalize(void);
/* c is being disconnected: a job spawned through it no longer takes this one down if it fails. */
void empi_dyn_disconnected(const empi_comm_t *c);
void empi_dyn_names_finalize(void);

#endif
