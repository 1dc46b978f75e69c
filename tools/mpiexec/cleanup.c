/* Removal of everything a job leaves in the file system: the shared-memory segments the MPI
 * library creates as /dev/shm/empi-<jobid>-* (the bootstrap socket has an abstract name).
 * Called at every exit of mpiexec and its proxies and by their janitors (janitor.c), including
 * after crashes of ranks (which cannot clean up). The jobids of jobs started from inside this one
 * begin with its own, so their files go too. */
#include "mpiexec.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void cleanup_job_files(const char *jobid)
{
    char prefix[64];
    int plen = snprintf(prefix, sizeof prefix, "empi-%s", jobid);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, (size_t)plen) == 0)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}
