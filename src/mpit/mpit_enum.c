/*
 * MPI_T enumerations. One exists: empi_mpi_state, the values of the empi_mpi_state performance
 * variable. An enumeration handle is valid only if it is the address of one of ours.
 */
#include "core/global.h"
#include "mpit/mpit.h"

typedef struct enum_item {
    int value;
    const char *name;
} enum_item_t;

struct MPI_T_enum_t {
    const char *name;
    int nitems;
    const enum_item_t *items;
};

static const enum_item_t state_items[] = {
    {EMPI_STATE_PRE_INIT, "pre_init"},
    {EMPI_STATE_INITIALIZED, "initialized"},
    {EMPI_STATE_FINALIZED, "finalized"},
};

struct MPI_T_enum_t empi_mpit_state_enum = {"empi_mpi_state", 3, state_items};

static struct MPI_T_enum_t *const all_enums[] = {&empi_mpit_state_enum};

static int enum_valid(MPI_T_enum e)
{
    for (size_t i = 0; i < sizeof all_enums / sizeof all_enums[0]; i++)
        if (all_enums[i] == e)
            return 1;
    return 0;
}

EMPI_WEAK_ALIAS(T_enum_get_info)
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!enum_valid(enumtype))
        return empi_mpit_exit(MPI_T_ERR_INVALID_HANDLE);
    if (num)
        *num = enumtype->nitems;
    empi_mpit_copy_string(enumtype->name, name, name_len);
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_enum_get_item)
int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!enum_valid(enumtype))
        return empi_mpit_exit(MPI_T_ERR_INVALID_HANDLE);
    if (indx < 0 || indx >= enumtype->nitems)
        return empi_mpit_exit(MPI_T_ERR_INVALID_INDEX);
    if (value)
        *value = enumtype->items[indx].value;
    empi_mpit_copy_string(enumtype->items[indx].name, name, name_len);
    return empi_mpit_exit(MPI_SUCCESS);
}
