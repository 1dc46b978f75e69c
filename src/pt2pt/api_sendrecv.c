/* Combined send-receive, blocking and nonblocking, with separate buffers or in place. */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "pt2pt/args.h"
#include "pt2pt/pt2pt.h"

/* The pair of requests behind MPI_Isendrecv(_replace); complete when both are. */
typedef struct sendrecv_state {
    empi_request_t *send, *recv;
    void *packed;   /* _replace: the outgoing copy */
} sendrecv_state_t;

static int sendrecv_poll(empi_request_t *req)
{
    sendrecv_state_t *s = req->state;
    if (!req->complete && s->send->complete && s->recv->complete) {
        req->status = s->recv->status;
        empi_request_set_complete(req);
        return 1;
    }
    return 0;
}

static void sendrecv_destroy(empi_request_t *req)
{
    sendrecv_state_t *s = req->state;
    /* The pair completes together; both must be finished before the memory goes. */
    empi_request_wait(s->send);
    empi_request_wait(s->recv);
    empi_request_release(s->send);
    empi_request_release(s->recv);
    free(s->packed);
    free(s);
}

/* Both halves: the receive's outcome is the status (cancelled if it was withdrawn unmatched). */
static int sendrecv_cancel(empi_request_t *req)
{
    sendrecv_state_t *s = req->state;
    int rc = empi_request_cancel(s->recv);
    int rc2 = empi_request_cancel(s->send);
    sendrecv_poll(req);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static const empi_request_ops_t sendrecv_ops = {.poll = sendrecv_poll, .destroy = sendrecv_destroy,
                                                .cancel = sendrecv_cancel};

/* Start both halves; `packed` (owned from here on) is the outgoing copy of a _replace call. */
static int start_pair(const void *sbuf, MPI_Count scount, empi_datatype_t *sdt, int dest, int stag, void *rbuf,
                      MPI_Count rcount, empi_datatype_t *rdt, int source, int rtag, empi_comm_t *c, void *packed,
                      empi_request_t **out)
{
    sendrecv_state_t *s = calloc(1, sizeof *s);
    empi_request_t *req = empi_request_new(EMPI_REQ_COLL, c);
    if (!s || !req) {
        free(s);
        free(packed);
        return MPI_ERR_NO_MEM;
    }
    s->packed = packed;
    int rc = empi_irecv(rbuf, rcount, rdt, source, rtag, c, c->context_id, &s->recv);
    if (rc == MPI_SUCCESS)
        rc = empi_isend(sbuf, scount, sdt, dest, stag, c, c->context_id, EMPI_MODE_STANDARD, &s->send);
    if (rc != MPI_SUCCESS)
        return rc; /* only out of memory gets here, which leaves nothing sensible to unwind */
    req->state = s;
    req->ops = &sendrecv_ops;
    sendrecv_poll(req);
    *out = req;
    return MPI_SUCCESS;
}

static int check_pair(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                      const void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                      empi_comm_t **c, empi_datatype_t **sdt, empi_datatype_t **rdt)
{
    EMPI_CHECK(empi_check_send(fn, sbuf, scount, stype, dest, stag, comm, c, sdt));
    return empi_check_recv(fn, rbuf, rcount, rtype, source, rtag, comm, c, rdt);
}

/* Pack the outgoing message of a _replace call, since the receive overwrites its buffer. */
static void *pack_copy(const void *buf, MPI_Count count, empi_datatype_t *dt)
{
    size_t bytes = (size_t)(count * dt->size);
    void *copy = malloc(bytes ? bytes : 1);
    if (copy)
        empi_dt_pack(buf, count, dt, 0, copy, (MPI_Count)bytes);
    return copy;
}

static int sendrecv_api(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                        void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                        int replace, MPI_Status *status, MPI_Request *request)
{
    empi_comm_t *c;
    empi_datatype_t *sdt, *rdt;
    if (fn[4] == 'I')   /* MPI_Isendrecv*: a request is owed (NULL one means blocking internally) */
        EMPI_CHECK(empi_check_ptr(fn, NULL, request, "request"));
    empi_lock();
    int rc = check_pair(fn, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, &c, &sdt, &rdt);
    if (rc != MPI_SUCCESS) {
        empi_unlock();
        return rc;
    }
    void *packed = NULL;
    if (replace) {
        packed = pack_copy(sbuf, scount, sdt);
        sbuf = packed;
        scount = scount * sdt->size;
        sdt = empi_byte_type;
    }
    empi_request_t *req;
    rc = start_pair(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, c, packed, &req);
    if (rc == MPI_SUCCESS && request) {
        *request = (MPI_Request)req;
    } else if (rc == MPI_SUCCESS) {
        empi_request_wait(req);
        empi_status_out(status, &req->status);
        rc = req->status.MPI_ERROR;
        empi_request_release(req);
    }
    if (rc != MPI_SUCCESS)
        rc = empi_err_comm(c, rc, "%s: %s", fn,
                           rc == MPI_ERR_TRUNCATE ? "the message is longer than the receive buffer" : "failed");
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Sendrecv)
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_api("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                        source, recvtag, comm, 0, status, NULL);
}

EMPI_WEAK_ALIAS(Sendrecv_c)
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                    MPI_Status *status)
{
    return sendrecv_api("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                        source, recvtag, comm, 0, status, NULL);
}

EMPI_WEAK_ALIAS(Sendrecv_replace)
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_api("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, buf, count, datatype, source,
                        recvtag, comm, 1, status, NULL);
}

EMPI_WEAK_ALIAS(Sendrecv_replace_c)
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_api("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, buf, count, datatype, source,
                        recvtag, comm, 1, status, NULL);
}

EMPI_WEAK_ALIAS(Isendrecv)
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return sendrecv_api("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                        source, recvtag, comm, 0, NULL, request);
}

EMPI_WEAK_ALIAS(Isendrecv_c)
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Request *request)
{
    return sendrecv_api("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                        recvtype, source, recvtag, comm, 0, NULL, request);
}

EMPI_WEAK_ALIAS(Isendrecv_replace)
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return sendrecv_api("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, buf, count, datatype, source,
                        recvtag, comm, 1, NULL, request);
}

EMPI_WEAK_ALIAS(Isendrecv_replace_c)
int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                             int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return sendrecv_api("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, buf, count, datatype,
                        source, recvtag, comm, 1, NULL, request);
}
