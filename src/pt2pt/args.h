/* Argument checks shared by the point-to-point API calls; each raises with the call's name. */
#ifndef EMPI_PT2PT_ARGS_H
#define EMPI_PT2PT_ARGS_H

#include "comm/comm.h"
#include "datatype/datatype.h"
#include "pt2pt/request.h"

/* Validate (buf, count, datatype) and the communicator, then the peer and tag of a send. */
int empi_check_send(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, empi_comm_t **c, empi_datatype_t **dt);
/* Same for a receive: source may be MPI_ANY_SOURCE, tag MPI_ANY_TAG. */
int empi_check_recv(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype, int source,
                    int tag, MPI_Comm comm, empi_comm_t **c, empi_datatype_t **dt);
/* A pointer argument that must not be NULL (request, status out-arguments...). */
int empi_check_ptr(const char *fn, empi_comm_t *c, const void *p, const char *what);

/*
 * Report `rc`, the error of a completed request, through the handler of its communicator `comm`
 * (MPI_COMM_SELF's when NULL); MPI_SUCCESS passes. The multiple-completion calls pass
 * MPI_ERR_IN_STATUS with the communicator of the first request that failed and get that very
 * constant back (MPI 4.1 3.7.5), not a code of its class.
 */
int empi_raise_completion(const char *fn, empi_comm_t *comm, int rc);

/*
 * Copy a request's status out unless the user passed MPI_STATUS_IGNORE. Its error field stays the
 * caller's: calls that complete one request return the error instead (MPI 4.1 3.2.5); the calls
 * that complete several set the field themselves (empi_status_errors_note).
 */
static inline void empi_status_out(MPI_Status *dst, const MPI_Status *src)
{
    if (dst != MPI_STATUS_IGNORE) {
        int error = dst->MPI_ERROR;
        *dst = *src;
        dst->MPI_ERROR = error;
    }
}

/*
 * The error fields of a multiple-completion call (Waitall, Testsome...): written if and only if
 * the call returns MPI_ERR_IN_STATUS (MPI 4.1 3.2.5), and then in every status it fills. Statuses
 * are noted in order; the first failure backfills MPI_SUCCESS into those before it.
 */
typedef struct {
    MPI_Status *statuses; /* NULL: MPI_STATUSES_IGNORE */
    int failed;           /* failures noted so far */
} empi_status_errors_t;

static inline void empi_status_errors_note(empi_status_errors_t *e, int index, int rc)
{
    if (rc != MPI_SUCCESS && !e->failed++)
        for (int j = 0; e->statuses && j < index; j++)
            e->statuses[j].MPI_ERROR = MPI_SUCCESS;
    if (e->failed && e->statuses)
        e->statuses[index].MPI_ERROR = rc;
}

#endif
