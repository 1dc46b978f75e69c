/* Persistent point-to-point requests: set up once, started many times. */
#include "core/error.h"
#include "core/global.h"
#include "pt2pt/args.h"
#include "pt2pt/bsend.h"
#include "pt2pt/pt2pt_internal.h"

static int make_persistent(empi_req_kind_t kind, void *buf, MPI_Count count, empi_datatype_t *dt, int peer, int tag,
                           empi_comm_t *c, empi_send_mode_t mode, MPI_Request *request)
{
    empi_request_t *req = empi_request_new(kind, c);
    if (!req)
        return MPI_ERR_NO_MEM;
    req->persistent = 1;
    req->complete = 1;
    req->buf = buf;
    req->count = count;
    req->dt = dt;
    empi_datatype_retain(dt);
    req->peer = peer;
    req->tag = tag;
    req->ctx = c->context_id;
    req->mode = mode;
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

static int send_init(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, empi_send_mode_t mode, MPI_Request *request)
{
    empi_comm_t *c;
    empi_datatype_t *dt;
    empi_lock();
    int rc = empi_check_send(fn, buf, count, datatype, dest, tag, comm, &c, &dt);
    if (rc == MPI_SUCCESS)
        rc = empi_check_ptr(fn, c, request, "request");
    if (rc == MPI_SUCCESS && make_persistent(EMPI_REQ_SEND, (void *)buf, count, dt, dest, tag, c, mode, request))
        rc = empi_err_comm(c, MPI_ERR_NO_MEM, "%s: out of memory for the request", fn);
    empi_unlock();
    return rc;
}

static int recv_init(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    empi_comm_t *c;
    empi_datatype_t *dt;
    empi_lock();
    int rc = empi_check_recv(fn, buf, count, datatype, source, tag, comm, &c, &dt);
    if (rc == MPI_SUCCESS)
        rc = empi_check_ptr(fn, c, request, "request");
    if (rc == MPI_SUCCESS &&
        make_persistent(EMPI_REQ_RECV, buf, count, dt, source, tag, c, EMPI_MODE_STANDARD, request))
        rc = empi_err_comm(c, MPI_ERR_NO_MEM, "%s: out of memory for the request", fn);
    empi_unlock();
    return rc;
}

static int start_one(const char *fn, MPI_Request h)
{
    empi_request_t *req = empi_request_get(h);
    if (!req || !req->persistent)
        return empi_err_noobj(MPI_ERR_REQUEST, "%s: %p is not a persistent request", fn, (void *)h);
    if (req->active)
        return empi_err_comm(req->comm, MPI_ERR_REQUEST, "%s: the request is already active", fn);
    req->active = 1;
    int rc, raised = 0;
    if (req->ops && req->ops->start) {
        rc = req->ops->start(req);
    } else if (req->kind == EMPI_REQ_RECV) {
        rc = empi_recv_start(req);
    } else if (req->mode == EMPI_MODE_BUFFERED) {
        rc = empi_bsend_start_persistent(fn, req);
        raised = 1; /* with its reason (no buffer, no room) */
    } else {
        rc = empi_send_start(req);
    }
    if (rc != MPI_SUCCESS) {
        req->active = 0;
        return raised ? rc : empi_err_comm(req->comm, rc, "%s: starting the request failed", fn);
    }
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Start)
int PMPI_Start(MPI_Request *request)
{
    EMPI_CHECK(empi_check_ptr("MPI_Start", NULL, request, "request"));
    empi_lock();
    int rc = start_one("MPI_Start", *request);
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Startall)
int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (count < 0)
        return empi_err_noobj(MPI_ERR_COUNT, "MPI_Startall: count %d is negative", count);
    EMPI_CHECK(empi_check_ptr("MPI_Startall", NULL, count ? array_of_requests : (void *)1, "array_of_requests"));
    empi_lock();
    int rc = MPI_SUCCESS;
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++)
        rc = start_one("MPI_Startall", array_of_requests[i]);
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Send_init)
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return send_init("MPI_Send_init", buf, count, datatype, dest, tag, comm, EMPI_MODE_STANDARD, request);
}

EMPI_WEAK_ALIAS(Send_init_c)
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request *request)
{
    return send_init("MPI_Send_init_c", buf, count, datatype, dest, tag, comm, EMPI_MODE_STANDARD, request);
}

EMPI_WEAK_ALIAS(Bsend_init)
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return send_init("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, EMPI_MODE_BUFFERED, request);
}

EMPI_WEAK_ALIAS(Bsend_init_c)
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return send_init("MPI_Bsend_init_c", buf, count, datatype, dest, tag, comm, EMPI_MODE_BUFFERED, request);
}

EMPI_WEAK_ALIAS(Ssend_init)
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return send_init("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, EMPI_MODE_SYNC, request);
}

EMPI_WEAK_ALIAS(Ssend_init_c)
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return send_init("MPI_Ssend_init_c", buf, count, datatype, dest, tag, comm, EMPI_MODE_SYNC, request);
}

EMPI_WEAK_ALIAS(Rsend_init)
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return send_init("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, EMPI_MODE_READY, request);
}

EMPI_WEAK_ALIAS(Rsend_init_c)
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return send_init("MPI_Rsend_init_c", buf, count, datatype, dest, tag, comm, EMPI_MODE_READY, request);
}

EMPI_WEAK_ALIAS(Recv_init)
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return recv_init("MPI_Recv_init", buf, count, datatype, source, tag, comm, request);
}

EMPI_WEAK_ALIAS(Recv_init_c)
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Request *request)
{
    return recv_init("MPI_Recv_init_c", buf, count, datatype, source, tag, comm, request);
}
