/* Creating the named shared-memory files of the library (/dev/shm/empi-<jobid>-*). */
#ifndef EMPI_CORE_SHM_FILE_H
#define EMPI_CORE_SHM_FILE_H

#include <stddef.h>

/*
 * Create `name` (replacing a leftover of a crashed run with the same job id) of `bytes`, with its
 * memory reserved when /dev/shm is short of room: tmpfs takes a file larger than its free space and
 * then kills the process with SIGBUS at the first touch of a page it cannot supply (Docker gives
 * /dev/shm 64 MiB), so there the pages are allocated here and a full /dev/shm is an error the
 * caller can handle. Returns the descriptor, or -1 with errno (ENOSPC when /dev/shm is full); the
 * name is gone again on failure.
 */
int empi_shm_file_create(const char *name, size_t bytes);

#endif
