/* Request management: free, status queries and cancellation. */
#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "pt2pt/args.h"
#include "pt2pt/pt2pt_internal.h"

EMPI_WEAK_ALIAS(Request_free)
int PMPI_Request_free(MPI_Request *request)
{
    EMPI_CHECK(empi_check_ptr("MPI_Request_free", NULL, request, "request"));
    empi_lock();
    empi_request_t *req = empi_request_get(*request);
    int rc = MPI_SUCCESS;
    if (!req) {
        rc = empi_err_noobj(MPI_ERR_REQUEST, "MPI_Request_free: invalid request handle %p", (void *)*request);
    } else if (req->ops && req->ops->collective && !req->complete) {
        /* every member must see it complete (the schedule is shared): the request stays */
        rc = empi_err_noobj(MPI_ERR_REQUEST,
                            "MPI_Request_free: request %p is an active collective operation's; complete it "
                            "with MPI_Wait or MPI_Test",
                            (void *)*request);
    } else {
        /* An operation still running keeps going; it is released when it completes. */
        if (req->complete || (req->persistent && !req->active)) {
            empi_request_release(req);
        } else if (req->ops && req->ops->poll) {
            req->persistent = 0;
            rc = empi_request_orphan(req);   /* nothing else would poll it to completion */
            if (rc != MPI_SUCCESS)
                rc = empi_err_noobj(rc, "MPI_Request_free: out of memory");
        } else {
            req->user_freed = 1;
            req->persistent = 0;
        }
        *request = MPI_REQUEST_NULL;
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Request_get_status)
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    EMPI_CHECK(empi_check_ptr("MPI_Request_get_status", NULL, flag, "flag"));
    empi_lock();
    int rc = MPI_SUCCESS;
    empi_request_t *req = empi_request_get(request);
    if (request == MPI_REQUEST_NULL || (req && req->persistent && !req->active)) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            empi_status_empty(status);
    } else if (!req) {
        rc = empi_err_noobj(MPI_ERR_REQUEST, "MPI_Request_get_status: invalid request handle %p", (void *)request);
    } else {
        *flag = empi_request_test(req);
        if (*flag && (rc = empi_request_query(req, 0)) != MPI_SUCCESS) {
            rc = empi_err_noobj(rc, "MPI_Request_get_status: the query function returned error %d", rc);
        } else if (*flag) {
            empi_status_out(status, &req->status);
            /* its error (a truncated receive) as MPI_Test would raise it; the request stays */
            rc = empi_raise_completion("MPI_Request_get_status", req->comm, req->status.MPI_ERROR);
        }
    }
    empi_unlock();
    return rc;
}

/*
 * A receive still waiting in the posted queue is withdrawn here. A send waiting for its receiver
 * (synchronous, or rendezvous) asks it to withdraw the message (proto.h): the request completes
 * cancelled if no receive had matched it, normally otherwise, so a wait after MPI_Cancel always
 * returns. Generalized requests hear about every cancel, complete or not. Returns a callback's
 * error.
 */
int empi_request_cancel(empi_request_t *req)
{
    if (req->complete && req->kind != EMPI_REQ_GREQ)
        return MPI_SUCCESS;
    /* requests driven by ops (partitioned ones are sends and receives too) cancel their own way */
    if (req->ops)
        return req->ops->cancel ? req->ops->cancel(req) : MPI_SUCCESS;
    if (req->kind == EMPI_REQ_SEND && req->world_peer == empi_g.boot.rank && !req->cancel_sent) {
        /* to ourselves: settled at once, so the status shows it before any wait */
        empi_progress_poll();   /* what the self transport still holds lands in our queue */
        if (!req->complete && empi_unexpected_withdraw(req->world_peer, (uint64_t)(uintptr_t)req)) {
            empi_status_set_cancelled(&req->status, 1);
            empi_send_complete(req);
        }
    } else if (req->kind == EMPI_REQ_SEND && !req->cancel_sent && req->world_peer >= 0) {
        req->cancel_sent = 1;
        empi_hdr_ack_t cancel = {.type = EMPI_PKT_CANCEL, .sreq = (uint64_t)(uintptr_t)req};
        empi_send_ctrl(req->world_peer, &cancel, sizeof cancel);
    } else if (req->kind == EMPI_REQ_RECV && req->proto_state == EMPI_RECV_POSTED) {
        empi_posted_remove(&empi_p2p.posted, req);
        empi_status_set_cancelled(&req->status, 1);
        req->status.MPI_SOURCE = MPI_ANY_SOURCE;
        req->status.MPI_TAG = MPI_ANY_TAG;
        empi_status_set_bytes(&req->status, 0);
        empi_request_set_complete(req);
    }
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Cancel)
int PMPI_Cancel(MPI_Request *request)
{
    EMPI_CHECK(empi_check_ptr("MPI_Cancel", NULL, request, "request"));
    empi_lock();
    int rc = MPI_SUCCESS;
    empi_request_t *req = empi_request_get(*request);
    if (!req)
        rc = empi_err_noobj(MPI_ERR_REQUEST, "MPI_Cancel: invalid request handle %p", (void *)*request);
    else if (req->ops && req->ops->collective)
        rc = empi_err_noobj(MPI_ERR_REQUEST, "MPI_Cancel: request %p is a collective operation's, which cannot "
                            "be cancelled", (void *)*request);
    else if ((rc = empi_request_cancel(req)) != MPI_SUCCESS)
        rc = empi_err_noobj(rc, "MPI_Cancel: the cancel function returned error %d", rc);
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Test_cancelled)
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    EMPI_CHECK(empi_check_ptr("MPI_Test_cancelled", NULL, status, "status"));
    EMPI_CHECK(empi_check_ptr("MPI_Test_cancelled", NULL, flag, "flag"));
    *flag = empi_status_cancelled(status) != 0;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Status_set_cancelled)
int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    EMPI_CHECK(empi_check_ptr("MPI_Status_set_cancelled", NULL, status, "status"));
    empi_status_set_cancelled(status, flag != 0);
    return MPI_SUCCESS;
}

/* Status field accessors and setters of MPI-4.1 (for layered libraries building statuses). */

EMPI_WEAK_ALIAS(Status_get_source)
int PMPI_Status_get_source(const MPI_Status *status, int *source)
{
    EMPI_CHECK(empi_check_ptr("MPI_Status_get_source", NULL, status, "status"));
    EMPI_CHECK(empi_check_ptr("MPI_Status_get_source", NULL, source, "source"));
    *source = status->MPI_SOURCE;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Status_set_source)
int PMPI_Status_set_source(MPI_Status *status, int source)
{
    EMPI_CHECK(empi_check_ptr("MPI_Status_set_source", NULL, status, "status"));
    status->MPI_SOURCE = source;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Status_get_tag)
int PMPI_Status_get_tag(const MPI_Status *status, int *tag)
{
    EMPI_CHECK(empi_check_ptr("MPI_Status_get_tag", NULL, status, "status"));
    EMPI_CHECK(empi_check_ptr("MPI_Status_get_tag", NULL, tag, "tag"));
    *tag = status->MPI_TAG;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Status_set_tag)
int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    EMPI_CHECK(empi_check_ptr("MPI_Status_set_tag", NULL, status, "status"));
    status->MPI_TAG = tag;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Status_get_error)
int PMPI_Status_get_error(const MPI_Status *status, int *error)
{
    EMPI_CHECK(empi_check_ptr("MPI_Status_get_error", NULL, status, "status"));
    EMPI_CHECK(empi_check_ptr("MPI_Status_get_error", NULL, error, "error"));
    *error = status->MPI_ERROR;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Status_set_error)
int PMPI_Status_set_error(MPI_Status *status, int error)
{
    EMPI_CHECK(empi_check_ptr("MPI_Status_set_error", NULL, status, "status"));
    status->MPI_ERROR = error;
    return MPI_SUCCESS;
}
