/*
 * Single-copy reads from (and writes to) a peer's address space with Linux Cross Memory Attach
 * (process_vm_readv, process_vm_writev).
 * Whether the kernel lets us is found out, not assumed: the first refusal for a peer (ptrace policy,
 * kernel without CMA) switches CMA off for that peer and the caller falls back to ring copies.
 */
#ifndef EMPI_SHM_CMA_H
#define EMPI_SHM_CMA_H

#include <stddef.h>
#include <sys/types.h>

typedef struct empi_cma_peer {
    pid_t pid;
    int usable;   /* cleared by the first permission failure */
} empi_cma_peer_t;

/* Mode from the shm_cma tunable: 0 off, 1 auto (silent fallback), 2 on (warn when refused). */
int empi_cma_mode(const char *setting);

/* "auto": 1 if process_vm_readv copies fast enough here, relative to a vector copy, to beat the
   pipelined copy through the rings (a kernel in a virtual machine may make it several times
   slower). Timing is noisy: one process per node decides for all (shm.c). */
int empi_cma_fast_enough(void);

/* Read `len` bytes at `remote` in the peer into `local`. Returns 0 or -1. */
int empi_cma_read(empi_cma_peer_t *peer, int mode, void *local, const void *remote, size_t len);
/* Read the peer's scattered `remote` ranges, in order, into the scattered `local` ones: as many
   bytes as the shorter side holds. Either list may be longer than the kernel's IOV_MAX.
   Returns 0 or -1. */
struct iovec;
int empi_cma_readv(empi_cma_peer_t *peer, int mode, const struct iovec *local, size_t nlocal,
                   const struct iovec *remote, size_t nremote);
/* Write `len` bytes at `local` to `remote` in the peer (process_vm_writev). Returns 0 or -1. */
int empi_cma_write(empi_cma_peer_t *peer, int mode, const void *local, void *remote, size_t len);

#endif
