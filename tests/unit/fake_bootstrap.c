/*
 * A stand-in for the bootstrap so transport tests can run forked processes without mpiexec: the
 * fence is a process-shared barrier in memory mapped before fork. Only what the transports use.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fake_bootstrap.h"

static pthread_barrier_t *fence_barrier;
static int fake_size = 1;

int fake_boot_setup(int nprocs)
{
    fence_barrier = mmap(NULL, sizeof *fence_barrier, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                         -1, 0);
    if (fence_barrier == MAP_FAILED)
        return -1;
    pthread_barrierattr_t attr;
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    fake_size = nprocs;
    return pthread_barrier_init(fence_barrier, &attr, (unsigned)nprocs) == 0 ? 0 : -1;
}

int empi_boot_fence(void)
{
    if (fake_size > 1)
        pthread_barrier_wait(fence_barrier);
    return 0;
}

int empi_boot_node_of(int rank)
{
    (void)rank;
    return 0;
}
