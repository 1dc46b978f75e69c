/* MPI_Recv and MPI_Irecv. */
#include "core/error.h"
#include "core/global.h"
#include "pt2pt/args.h"
#include "pt2pt/pt2pt.h"

static int recv_blocking(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Status *status)
{
    empi_comm_t *c;
    empi_datatype_t *dt;
    empi_lock();
    int rc = empi_check_recv(fn, buf, count, datatype, source, tag, comm, &c, &dt);
    if (rc == MPI_SUCCESS) {
        empi_request_t *req;
        rc = empi_irecv(buf, count, dt, source, tag, c, c->context_id, &req);
        int from = source, with_tag = tag;
        if (rc == MPI_SUCCESS) {
            empi_request_wait(req);
            empi_status_out(status, &req->status);
            rc = req->status.MPI_ERROR;
            from = req->status.MPI_SOURCE, with_tag = req->status.MPI_TAG;
            empi_request_release(req);
        }
        if (rc == MPI_ERR_TRUNCATE)
            rc = empi_err_comm(c, rc,
                               "%s: the message from rank %d with tag %d is longer than the receive buffer "
                               "(%lld bytes: count %lld of %s)",
                               fn, from, with_tag, (long long)(count * dt->size), (long long)count,
                               dt->name[0] ? dt->name : "a derived datatype");
        else if (rc != MPI_SUCCESS)
            rc = empi_err_comm(c, rc, "%s: receive failed", fn);
    }
    empi_unlock();
    return rc;
}

static int recv_nonblocking(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                            MPI_Comm comm, MPI_Request *request)
{
    empi_comm_t *c;
    empi_datatype_t *dt;
    empi_lock();
    int rc = empi_check_recv(fn, buf, count, datatype, source, tag, comm, &c, &dt);
    if (rc == MPI_SUCCESS)
        rc = empi_check_ptr(fn, c, request, "request");
    if (rc == MPI_SUCCESS) {
        empi_request_t *req;
        rc = empi_irecv(buf, count, dt, source, tag, c, c->context_id, &req);
        if (rc == MPI_SUCCESS)
            *request = (MPI_Request)req;
        else
            rc = empi_err_comm(c, rc, "%s: posting the receive failed", fn);
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Recv)
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return recv_blocking("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

EMPI_WEAK_ALIAS(Recv_c)
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Status *status)
{
    return recv_blocking("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}

EMPI_WEAK_ALIAS(Irecv)
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return recv_nonblocking("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}

EMPI_WEAK_ALIAS(Irecv_c)
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Request *request)
{
    return recv_nonblocking("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request);
}
