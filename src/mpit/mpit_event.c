/*
 * MPI_T events and event sources. EtherMPI exposes no event types yet, so no registration or
 * event instance can exist: every call naming an event index fails with MPI_T_ERR_INVALID_INDEX,
 * every call naming a registration or instance with MPI_T_ERR_INVALID_HANDLE. There is one
 * source, the monotonic clock future events would be stamped with, in nanoseconds.
 */
#include <stdint.h>

#include "core/clock.h"
#include "core/global.h"
#include "core/info.h"
#include "mpit/mpit.h"

/* Enter, then fail with `code` (or MPI_T_ERR_NOT_INITIALIZED): the body of the calls that name
   something that cannot exist. */
static int nothing_there(int code)
{
    int rc = empi_mpit_enter();
    return rc != MPI_SUCCESS ? rc : empi_mpit_exit(code);
}

EMPI_WEAK_ALIAS(T_event_get_num)
int PMPI_T_event_get_num(int *num_events)
{
    return empi_mpit_report_int(num_events, 0);
}

EMPI_WEAK_ALIAS(T_event_get_info)
int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements,
                          MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind)
{
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc, (void)desc_len;
    (void)bind;
    return nothing_there(MPI_T_ERR_INVALID_INDEX);
}

EMPI_WEAK_ALIAS(T_event_get_index)
int PMPI_T_event_get_index(const char *name, int *event_index)
{
    return nothing_there(name && event_index ? MPI_T_ERR_INVALID_NAME : MPI_T_ERR_INVALID);
}

EMPI_WEAK_ALIAS(T_event_handle_alloc)
int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
    return nothing_there(MPI_T_ERR_INVALID_INDEX);
}

EMPI_WEAK_ALIAS(T_event_handle_free)
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_event_handle_set_info)
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration, (void)info;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_event_handle_get_info)
int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    (void)event_registration, (void)info_used;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_event_register_callback)
int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info, void *user_data, MPI_T_event_cb_function event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data, (void)event_cb_function;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_event_callback_set_info)
int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_event_callback_get_info)
int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety, (void)info_used;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_event_set_dropped_handler)
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_event_read)
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance, (void)element_index, (void)buffer;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_event_copy)
int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance, (void)buffer;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_event_get_timestamp)
int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance, (void)event_timestamp;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

EMPI_WEAK_ALIAS(T_event_get_source)
int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance, (void)source_index;
    return nothing_there(MPI_T_ERR_INVALID_HANDLE);
}

/* Sources. */

#define NSOURCES 1

EMPI_WEAK_ALIAS(T_source_get_num)
int PMPI_T_source_get_num(int *num_sources)
{
    return empi_mpit_report_int(num_sources, NSOURCES);
}

EMPI_WEAK_ALIAS(T_source_get_info)
int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                           MPI_Info *info)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (source_index < 0 || source_index >= NSOURCES)
        return empi_mpit_exit(MPI_T_ERR_INVALID_INDEX);
    empi_mpit_copy_string("empi_clock", name, name_len);
    empi_mpit_copy_string("The process's monotonic clock (CLOCK_MONOTONIC), in nanoseconds", desc, desc_len);
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = 1000000000;
    if (max_ticks)
        *max_ticks = INT64_MAX;
    if (info) { /* a new, empty info object the caller frees */
        empi_info_t *i = empi_info_new();
        if (!i)
            return empi_mpit_exit(MPI_T_ERR_MEMORY);
        *info = i->handle;
    }
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_source_get_timestamp)
int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (source_index < 0 || source_index >= NSOURCES)
        return empi_mpit_exit(MPI_T_ERR_INVALID_INDEX);
    if (!timestamp)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    *timestamp = (MPI_Count)empi_now_ns();
    return empi_mpit_exit(MPI_SUCCESS);
}
