/*
 * The MPI tool information interface (MPI_T), shared by its files: control variables (the tunable
 * registry), performance variables (pt2pt counters), categories, enumerations and events.
 *
 * MPI_T has its own life cycle, independent of MPI_Init/MPI_Finalize: MPI_T_init_thread and
 * MPI_T_finalize nest, and every other MPI_T call fails with MPI_T_ERR_NOT_INITIALIZED outside
 * them. MPI_T calls return their error codes directly; they never invoke MPI error handlers.
 *
 * Handles (cvar handles, pvar sessions and handles) are heap objects kept on lists, and a handle is
 * valid only if it is found on its list: a stale or garbage handle is reported, never followed.
 * The last MPI_T_finalize frees them all.
 */
#ifndef EMPI_MPIT_H
#define EMPI_MPIT_H

#include <stddef.h>
#include <stdint.h>

#include "mpi.h"

/*
 * Every MPI_T call runs between empi_mpit_enter (MPI_T_ERR_NOT_INITIALIZED when the interface is
 * not initialized, and then nothing is held) and empi_mpit_exit. Entering takes the library's big
 * lock first (under MPI_THREAD_MULTIPLE, so counters and tunables hold still), then MPI_T's own.
 */
int empi_mpit_enter(void);
int empi_mpit_exit(int rc);
/* empi_mpit_enter, then MPI_T_ERR_INVALID (and nothing held) if the required argument is NULL. */
int empi_mpit_enter_arg(const void *arg);

/* The whole body of the calls that report one number (MPI_T_cvar_get_num and the like). */
int empi_mpit_report_int(int *out, int value);

/* The standard's convention for returning strings: copy what fits, report the full length + 1. */
void empi_mpit_copy_string(const char *src, char *buf, int *len);

/* The enumeration behind the state performance variable (mpit_enum.c). */
extern struct MPI_T_enum_t empi_mpit_state_enum;

/* Control variables (one per tunable) and their categories. */
const char *empi_mpit_cvar_category(int cvar_index);

/* Performance variables. */
int empi_mpit_pvar_count(void);
const char *empi_mpit_pvar_category(int pvar_index);

/* Called by the last MPI_T_finalize: free every handle and session. */
void empi_mpit_cvar_release_all(void);
void empi_mpit_pvar_release_all(void);

#endif
