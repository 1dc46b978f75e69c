/* MPI_Alloc_mem / MPI_Free_mem: cache-line aligned heap memory (RMA windows may later register it),
   or more strictly aligned when the info key mpi_minimum_memory_alignment asks for it. */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "core/info.h"

enum { ALLOC_MEM_ALIGN = 64 };

EMPI_WEAK_ALIAS(Alloc_mem)
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    if (size < 0)
        return empi_err_noobj(MPI_ERR_SIZE, "MPI_Alloc_mem: size %ld is negative", (long)size);
    if (!baseptr)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Alloc_mem: baseptr is NULL");
    if (info != MPI_INFO_NULL && !empi_info_get(info))
        return empi_err_noobj(MPI_ERR_INFO, "MPI_Alloc_mem: invalid info %p", (void *)info);
    size_t align = empi_info_alignment(info != MPI_INFO_NULL ? empi_info_get(info) : NULL, ALLOC_MEM_ALIGN);
    void *p = NULL;
    /* A zero-byte request still returns a unique pointer that Free_mem accepts. */
    if (posix_memalign(&p, align, size ? (size_t)size : 1) != 0)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Alloc_mem: cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Free_mem)
int PMPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}
