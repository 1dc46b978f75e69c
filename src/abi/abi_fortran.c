/*
 * Fortran registration of the standard ABI (MPI-5.0 §21.4.1). The C library knows nothing about the
 * Fortran compiler, so a Fortran binding layer tells it the sizes of Fortran types (an info object)
 * and the bit patterns of .TRUE./.FALSE. per LOGICAL size. Only the first registration counts;
 * later ones fail with MPI_ERR_ABI, as the standard requires, so every layer sees one answer.
 */
#include <pthread.h>
#include <string.h>

#include "core/error.h"
#include "core/global.h"
#include "core/info.h"

enum { MAX_LOGICAL_LOG2 = 4 };   /* LOGICAL sizes 1, 2, 4, 8, 16 bytes */

static struct {
    pthread_mutex_t lock;
    empi_info_t *info;   /* NULL until MPI_Abi_set_fortran_info */
    struct {
        int set;
        unsigned char true_bits[1 << MAX_LOGICAL_LOG2];
        unsigned char false_bits[1 << MAX_LOGICAL_LOG2];
    } booleans[MAX_LOGICAL_LOG2 + 1];
} fortran = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Index of a LOGICAL size in booleans[], or -1 if it is not a power of two up to 16. */
static int logical_slot(int size)
{
    for (int i = 0; i <= MAX_LOGICAL_LOG2; i++)
        if (size == 1 << i)
            return i;
    return -1;
}

EMPI_WEAK_ALIAS(Abi_set_fortran_info)
int PMPI_Abi_set_fortran_info(MPI_Info info)
{
    empi_info_t *src = empi_info_get(info);
    if (!src)
        return empi_err_noobj(MPI_ERR_INFO, "MPI_Abi_set_fortran_info: invalid info %p", (void *)info);
    pthread_mutex_lock(&fortran.lock);
    int rc = MPI_SUCCESS;
    if (fortran.info)
        rc = MPI_ERR_ABI;
    else if (!(fortran.info = empi_info_dup(src)))
        rc = MPI_ERR_NO_MEM;
    pthread_mutex_unlock(&fortran.lock);
    if (rc == MPI_ERR_ABI)
        return empi_err_noobj(rc, "MPI_Abi_set_fortran_info: the Fortran ABI details were already set");
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Abi_set_fortran_info: out of memory");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Abi_get_fortran_info)
int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
    if (!info)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Abi_get_fortran_info: info is NULL");
    pthread_mutex_lock(&fortran.lock);
    empi_info_t *copy = fortran.info ? empi_info_dup(fortran.info) : NULL;
    int known = fortran.info != NULL;
    pthread_mutex_unlock(&fortran.lock);
    if (known && !copy)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Abi_get_fortran_info: out of memory");
    /* MPI_INFO_NULL tells the caller that nobody has registered the Fortran compiler yet. */
    *info = copy ? copy->handle : MPI_INFO_NULL;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Abi_set_fortran_booleans)
int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    int slot = logical_slot(logical_size);
    if (slot < 0)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Abi_set_fortran_booleans: logical_size %d is not 1, 2, 4, 8 or 16",
                              logical_size);
    if (!logical_true || !logical_false)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Abi_set_fortran_booleans: %s is NULL",
                              logical_true ? "logical_false" : "logical_true");
    pthread_mutex_lock(&fortran.lock);
    int already = fortran.booleans[slot].set;
    if (!already) {
        memcpy(fortran.booleans[slot].true_bits, logical_true, (size_t)logical_size);
        memcpy(fortran.booleans[slot].false_bits, logical_false, (size_t)logical_size);
        fortran.booleans[slot].set = 1;
    }
    pthread_mutex_unlock(&fortran.lock);
    if (already)
        return empi_err_noobj(MPI_ERR_ABI, "MPI_Abi_set_fortran_booleans: the values for LOGICAL size %d were already set",
                              logical_size);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Abi_get_fortran_booleans)
int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set)
{
    int slot = logical_slot(logical_size);
    if (slot < 0)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Abi_get_fortran_booleans: logical_size %d is not 1, 2, 4, 8 or 16",
                              logical_size);
    if (!logical_true || !logical_false || !is_set)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Abi_get_fortran_booleans: %s is NULL",
                              !logical_true ? "logical_true" : !logical_false ? "logical_false" : "is_set");
    pthread_mutex_lock(&fortran.lock);
    *is_set = fortran.booleans[slot].set;
    if (*is_set) {
        memcpy(logical_true, fortran.booleans[slot].true_bits, (size_t)logical_size);
        memcpy(logical_false, fortran.booleans[slot].false_bits, (size_t)logical_size);
    }
    pthread_mutex_unlock(&fortran.lock);
    return MPI_SUCCESS;
}
