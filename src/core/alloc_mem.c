/* MPI_Alloc_mem / MPI_Free_mem: cache-line aligned heap memory (RMA windows may later register it),
   or more strictly aligned when the info key mpi_minimum_memory_alignment asks for it; large blocks
   on huge pages (EMPI_ALLOC_MEM_HUGE). */
#include <stdlib.h>
#include <sys/mman.h>

#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "core/tunables.h"

enum { ALLOC_MEM_ALIGN = 64 };
#define HUGE_PAGE ((size_t)2 << 20)

/* Aligned and rounded to whole huge pages, so that no small page is left at either end of the
   block; the kernel may still refuse them (THP off), leaving ordinary pages. Before MPI_Init the
   tunable reads 0: ordinary pages. */
static size_t huge_pages_for(size_t size, size_t *align)
{
    size_t min = empi_tunables.alloc_mem_huge;
    if (!min || size < min || size > SIZE_MAX - HUGE_PAGE)
        return size;
    if (*align < HUGE_PAGE)
        *align = HUGE_PAGE;
    return (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

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
    /* A zero-byte request still returns a unique pointer that Free_mem accepts. */
    size_t bytes = huge_pages_for(size ? (size_t)size : 1, &align);
    void *p = NULL;
    if (posix_memalign(&p, align, bytes) != 0)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Alloc_mem: cannot allocate %ld bytes", (long)size);
    if (align >= HUGE_PAGE)
        (void)madvise(p, bytes, MADV_HUGEPAGE);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Free_mem)
int PMPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}
