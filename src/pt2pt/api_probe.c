/* Probing the unexpected queue, and matched probes whose message a later Mrecv takes. */
#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "pt2pt/args.h"
#include "pt2pt/pt2pt_internal.h"

static int check_probe(const char *fn, int source, int tag, MPI_Comm comm, empi_comm_t **c)
{
    EMPI_CHECK(empi_comm_check(comm, fn, c));
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= empi_comm_peer_size(*c)))
        return empi_err_comm(*c, MPI_ERR_RANK, "%s: source %d is not a rank of the communicator (size %d)", fn,
                             source, empi_comm_peer_size(*c));
    return empi_comm_check_tag(*c, fn, tag, 1);
}

/* An empty status whose error field stays the caller's (a probe does not set it, 3.2.5). */
static void empty_keeping_error(MPI_Status *status)
{
    int error = status->MPI_ERROR;
    empi_status_empty(status);
    status->MPI_ERROR = error;
}

static void probe_status(MPI_Status *status, const empi_unexpected_t *msg)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    empty_keeping_error(status);
    status->MPI_SOURCE = msg->src;
    status->MPI_TAG = msg->tag;
    empi_status_set_bytes(status, (MPI_Count)msg->bytes);
}

static void proc_null_status(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    empty_keeping_error(status);
    status->MPI_SOURCE = MPI_PROC_NULL;
}

static empi_unexpected_t *find(empi_comm_t *c, int source, int tag)
{
    return empi_unexpected_find(&empi_p2p.unexpected, c->context_id, source, tag);
}

/* Look for a matching message, polling once (iprobe) or until one arrives (probe). */
static empi_unexpected_t *probe(empi_comm_t *c, int source, int tag, int blocking)
{
    empi_unexpected_t *msg = find(c, source, tag);
    if (msg)
        return msg;
    if (!blocking) {
        empi_progress_test();
        return find(c, source, tag);
    }
    EMPI_PROGRESS_UNTIL((msg = find(c, source, tag)) != NULL);
    return msg;
}

static int probe_api(const char *fn, int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status,
                     MPI_Message *message)
{
    empi_comm_t *c;
    empi_lock();
    int rc = check_probe(fn, source, tag, comm, &c);
    if (rc == MPI_SUCCESS && source == MPI_PROC_NULL) {
        if (flag)
            *flag = 1;
        proc_null_status(status);
        if (message)
            *message = MPI_MESSAGE_NO_PROC;
    } else if (rc == MPI_SUCCESS) {
        empi_unexpected_t *msg = probe(c, source, tag, flag == NULL);
        if (flag)
            *flag = msg != NULL;
        if (msg) {
            probe_status(status, msg);
            if (message) {
                /* A matched probe takes the message out of reach of every other receive. */
                empi_unexpected_remove(&empi_p2p.unexpected, msg);
                msg->magic = EMPI_MAGIC_MESSAGE;
                msg->comm = c;
                *message = (MPI_Message)msg;
            }
        } else if (message) {
            *message = MPI_MESSAGE_NULL;
        }
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Probe)
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe_api("MPI_Probe", source, tag, comm, NULL, status, NULL);
}

EMPI_WEAK_ALIAS(Iprobe)
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    EMPI_CHECK(empi_check_ptr("MPI_Iprobe", NULL, flag, "flag"));
    return probe_api("MPI_Iprobe", source, tag, comm, flag, status, NULL);
}

EMPI_WEAK_ALIAS(Mprobe)
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    EMPI_CHECK(empi_check_ptr("MPI_Mprobe", NULL, message, "message"));
    return probe_api("MPI_Mprobe", source, tag, comm, NULL, status, message);
}

EMPI_WEAK_ALIAS(Improbe)
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    EMPI_CHECK(empi_check_ptr("MPI_Improbe", NULL, flag, "flag"));
    EMPI_CHECK(empi_check_ptr("MPI_Improbe", NULL, message, "message"));
    return probe_api("MPI_Improbe", source, tag, comm, flag, status, message);
}

/* Receive a matched-probed message into a new request (already complete for eager data). */
static int mrecv_start(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                       empi_request_t **out)
{
    EMPI_CHECK(empi_check_ptr(fn, NULL, message, "message"));
    empi_unexpected_t *msg = (empi_unexpected_t *)*message;
    int no_proc = *message == MPI_MESSAGE_NO_PROC;
    if (!no_proc && (empi_handle_is_predefined(*message) || msg->magic != EMPI_MAGIC_MESSAGE))
        return empi_err_noobj(MPI_ERR_REQUEST, "%s: message is not a handle returned by MPI_Mprobe/Improbe", fn);
    /* errors go to the communicator the message was matched on, as for any receive */
    empi_comm_t *comm = no_proc ? &empi_comm_self : msg->comm;
    const char *why = NULL;
    empi_datatype_t *dt;
    int rc = empi_datatype_check(datatype, count, &dt, &why);
    if (rc != MPI_SUCCESS)
        return empi_err_comm(comm, rc, "%s: %s", fn, why ? why : "invalid datatype or count");
    const char *problem = empi_buffer_problem(buf, count, dt);
    if (problem)
        return empi_err_comm(comm, MPI_ERR_BUFFER, "%s: buf %s (count %lld)", fn, problem, (long long)count);
    empi_request_t *req = empi_request_new(EMPI_REQ_RECV, comm);
    if (!req)
        return empi_err_comm(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    req->buf = buf;
    req->count = count;
    req->dt = dt;
    empi_datatype_retain(dt);
    if (no_proc) {
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        empi_request_set_complete(req);
    } else {
        req->peer = msg->src;
        req->tag = msg->tag;
        req->ctx = msg->ctx;
        empi_recv_matched_unexpected(req, msg);
    }
    *message = MPI_MESSAGE_NULL;
    *out = req;
    return MPI_SUCCESS;
}

static int mrecv_api(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                     MPI_Status *status)
{
    empi_request_t *req = NULL;
    empi_lock();
    int rc = mrecv_start(fn, buf, count, datatype, message, &req);
    if (rc == MPI_SUCCESS) {
        empi_request_wait(req);
        empi_status_out(status, &req->status);
        rc = req->status.MPI_ERROR;
        empi_comm_t *comm = req->comm;
        empi_request_release(req);
        if (rc != MPI_SUCCESS)
            rc = empi_err_comm(comm, rc, "%s: the message is longer than the receive buffer", fn);
    }
    empi_unlock();
    return rc;
}

static int imrecv_api(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                      MPI_Request *request)
{
    EMPI_CHECK(empi_check_ptr(fn, NULL, request, "request"));
    empi_request_t *req = NULL;
    empi_lock();
    int rc = mrecv_start(fn, buf, count, datatype, message, &req);
    if (rc == MPI_SUCCESS)
        *request = (MPI_Request)req;
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Mrecv)
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    return mrecv_api("MPI_Mrecv", buf, count, datatype, message, status);
}

EMPI_WEAK_ALIAS(Mrecv_c)
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    return mrecv_api("MPI_Mrecv_c", buf, count, datatype, message, status);
}

EMPI_WEAK_ALIAS(Imrecv)
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    return imrecv_api("MPI_Imrecv", buf, count, datatype, message, request);
}

EMPI_WEAK_ALIAS(Imrecv_c)
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    return imrecv_api("MPI_Imrecv_c", buf, count, datatype, message, request);
}
