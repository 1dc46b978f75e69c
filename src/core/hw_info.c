/*
 * MPI_Get_hw_resource_info: the hardware this process runs on at the moment of the call. The
 * standard leaves the keys to the implementation; ours are
 *   mpi_shared_memory     "1": the process sits in one shared-memory domain, its host (the
 *                         resource type MPI_Comm_split_type accepts with MPI_COMM_TYPE_HW_GUIDED)
 *   ethermpi_cpus         CPUs the process may run on now (its affinity mask)
 *   ethermpi_online_cpus  CPUs online on the host
 *   ethermpi_host         the host as the library groups ranks (EMPI_HOSTNAME, else the hostname)
 * It may be called before MPI_Init and after MPI_Finalize, like the other info calls.
 */
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "core/tunables.h"

static int set_count(empi_info_t *info, const char *key, long n)
{
    char value[32];
    snprintf(value, sizeof value, "%ld", n);
    return empi_info_set(info, key, value);
}

static const char *host_name(char *buf, size_t len)
{
    if (empi_tunables.hostname && empi_tunables.hostname[0])
        return empi_tunables.hostname;
    if (gethostname(buf, len) != 0)
        return "localhost";
    buf[len - 1] = '\0';
    return buf;
}

EMPI_WEAK_ALIAS(Get_hw_resource_info)
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    if (!hw_info)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Get_hw_resource_info: hw_info is NULL");
    empi_info_t *info = empi_info_new();
    if (!info)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Get_hw_resource_info: out of memory");
    cpu_set_t mask;
    long cpus = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : 0;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    char host[256];
    int rc = empi_info_set(info, "mpi_shared_memory", "1");
    if (rc == MPI_SUCCESS && cpus > 0)
        rc = set_count(info, "ethermpi_cpus", cpus);
    if (rc == MPI_SUCCESS && online > 0)
        rc = set_count(info, "ethermpi_online_cpus", online);
    if (rc == MPI_SUCCESS)
        rc = empi_info_set(info, "ethermpi_host", host_name(host, sizeof host));
    if (rc != MPI_SUCCESS) {
        empi_info_release(info);
        return empi_err_noobj(rc, "MPI_Get_hw_resource_info: out of memory");
    }
    *hw_info = info->handle;
    return MPI_SUCCESS;
}
