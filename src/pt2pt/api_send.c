/* MPI_Send, Ssend, Rsend and their nonblocking forms (Bsend lives with the buffer in bsend.c). */
#include "core/error.h"
#include "core/global.h"
#include "pt2pt/args.h"
#include "pt2pt/pt2pt.h"

static int send_blocking(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, empi_send_mode_t mode)
{
    empi_comm_t *c;
    empi_datatype_t *dt;
    empi_lock();
    int rc = empi_check_send(fn, buf, count, datatype, dest, tag, comm, &c, &dt);
    if (rc == MPI_SUCCESS) {
        empi_request_t *req;
        rc = empi_isend(buf, count, dt, dest, tag, c, c->context_id, mode, &req);
        if (rc == MPI_SUCCESS)
            rc = empi_wait_release(req, NULL);
        if (rc != MPI_SUCCESS)
            rc = empi_err_comm(c, rc, "%s: sending to rank %d failed", fn, dest);
    }
    empi_unlock();
    return rc;
}

static int send_nonblocking(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm, empi_send_mode_t mode, MPI_Request *request)
{
    empi_comm_t *c;
    empi_datatype_t *dt;
    empi_lock();
    int rc = empi_check_send(fn, buf, count, datatype, dest, tag, comm, &c, &dt);
    if (rc == MPI_SUCCESS)
        rc = empi_check_ptr(fn, c, request, "request");
    if (rc == MPI_SUCCESS) {
        empi_request_t *req;
        rc = empi_isend(buf, count, dt, dest, tag, c, c->context_id, mode, &req);
        if (rc == MPI_SUCCESS)
            *request = (MPI_Request)req;
        else
            rc = empi_err_comm(c, rc, "%s: sending to rank %d failed", fn, dest);
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Send)
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, EMPI_MODE_STANDARD);
}

EMPI_WEAK_ALIAS(Send_c)
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Send_c", buf, count, datatype, dest, tag, comm, EMPI_MODE_STANDARD);
}

EMPI_WEAK_ALIAS(Ssend)
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, EMPI_MODE_SYNC);
}

EMPI_WEAK_ALIAS(Ssend_c)
int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, EMPI_MODE_SYNC);
}

EMPI_WEAK_ALIAS(Rsend)
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm, EMPI_MODE_READY);
}

EMPI_WEAK_ALIAS(Rsend_c)
int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, EMPI_MODE_READY);
}

EMPI_WEAK_ALIAS(Isend)
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return send_nonblocking("MPI_Isend", buf, count, datatype, dest, tag, comm, EMPI_MODE_STANDARD, request);
}

EMPI_WEAK_ALIAS(Isend_c)
int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request)
{
    return send_nonblocking("MPI_Isend_c", buf, count, datatype, dest, tag, comm, EMPI_MODE_STANDARD, request);
}

EMPI_WEAK_ALIAS(Issend)
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return send_nonblocking("MPI_Issend", buf, count, datatype, dest, tag, comm, EMPI_MODE_SYNC, request);
}

EMPI_WEAK_ALIAS(Issend_c)
int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return send_nonblocking("MPI_Issend_c", buf, count, datatype, dest, tag, comm, EMPI_MODE_SYNC, request);
}

EMPI_WEAK_ALIAS(Irsend)
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return send_nonblocking("MPI_Irsend", buf, count, datatype, dest, tag, comm, EMPI_MODE_READY, request);
}

EMPI_WEAK_ALIAS(Irsend_c)
int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return send_nonblocking("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, EMPI_MODE_READY, request);
}
