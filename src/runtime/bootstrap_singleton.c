/* Singleton bootstrap: a process started without mpiexec is rank 0 of a world of
 * one. Puts go straight into the local cache and fences have nobody to wait for. */
#include "runtime/bootstrap_impl.h"
#include "runtime/bootstrap_kvs.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int singleton_init(empi_boot_info_t *info)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    info->rank = 0;
    info->size = 1;
    info->local_rank = 0;
    info->local_size = 1;
    info->node_id = 0;
    info->num_nodes = 1;
    info->appnum = 0;
    info->universe_size = 1;
    info->is_singleton = 1;
    /* pid + time keeps concurrent singletons (and a reused pid) apart in /dev/shm. */
    snprintf(info->jobid, sizeof info->jobid, "%x%08lx%05lx", (unsigned)getpid(),
             (unsigned long)now.tv_sec & 0xffffffffUL,
             ((unsigned long)now.tv_nsec >> 10) & 0xfffffUL);
    return 0;
}

static int singleton_put(const char *key, const void *val, size_t len)
{
    return empi_kvs_store(0, key, strlen(key), val, len);
}

static int singleton_fence(void)
{
    return 0;
}

static void singleton_abort(int errorcode, const char *msg)
{
    fprintf(stderr, "MPI_Abort(%d): %s\n", errorcode, msg);
    _exit(empi_boot_abort_status(errorcode));
}

static int singleton_finalize(void)
{
    return 0;
}

static int singleton_node_of(int rank)
{
    (void)rank;
    return 0;
}

const empi_boot_ops_t empi_boot_singleton_ops = {
    singleton_init, singleton_put, singleton_fence,
    singleton_abort, singleton_finalize, singleton_node_of, NULL,
};
