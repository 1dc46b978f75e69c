/* Version and identity queries; all of them are valid before MPI_Init and after MPI_Finalize. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/global.h"
#include "core/info.h"

EMPI_WEAK_ALIAS(Get_version)
int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Get_version: %s is NULL", version ? "subversion" : "version");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Get_library_version)
int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Get_library_version: %s is NULL",
                              version ? "resultlen" : "version");
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "EtherMPI %s (MPI %d.%d, standard ABI %d.%d; transports: self, shm; built %s)",
                     EMPI_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION,
                     __DATE__);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Abi_get_version)
int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    if (!abi_major || !abi_minor)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Abi_get_version: %s is NULL",
                              abi_major ? "abi_minor" : "abi_major");
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Get_processor_name)
int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Get_processor_name: %s is NULL", name ? "resultlen" : "name");
    if (!empi_g.processor_name[0] && gethostname(empi_g.processor_name, sizeof empi_g.processor_name) != 0)
        strcpy(empi_g.processor_name, "localhost");
    empi_g.processor_name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    strcpy(name, empi_g.processor_name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

/* Profiling control has no effect without a profiling layer, which interposes on MPI_Pcontrol. */
EMPI_WEAK_ALIAS(Pcontrol)
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

/* The standard names these keys so a program can check the ABI's integer widths at run time. */
EMPI_WEAK_ALIAS(Abi_get_info)
int PMPI_Abi_get_info(MPI_Info *info)
{
    if (!info)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Abi_get_info: info is NULL");
    empi_info_t *i = empi_info_new();
    if (!i)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Abi_get_info: out of memory");
    char v[8];
    snprintf(v, sizeof v, "%zu", sizeof(MPI_Aint));
    int rc = empi_info_set(i, "mpi_aint_size", v);
    snprintf(v, sizeof v, "%zu", sizeof(MPI_Count));
    rc |= empi_info_set(i, "mpi_count_size", v);
    snprintf(v, sizeof v, "%zu", sizeof(MPI_Offset));
    rc |= empi_info_set(i, "mpi_offset_size", v);
    if (rc != MPI_SUCCESS) {
        empi_info_release(i);
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Abi_get_info: out of memory");
    }
    *info = i->handle;
    return MPI_SUCCESS;
}
