/* Completion: Wait and Test in their single, all, any and some forms, and Request_free. */
#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "pt2pt/args.h"
#include "pt2pt/pt2pt.h"


static int check_request(const char *fn, MPI_Request h, empi_request_t **out)
{
    *out = empi_request_get(h);
    if (!*out)
        return empi_err_noobj(MPI_ERR_REQUEST, "%s: invalid request handle %p", fn, (void *)h);
    return MPI_SUCCESS;
}

/*
 * Hand a completed request's status to the user and retire it; returns its error, and in *comm the
 * communicator to raise it on (NULL for none), which the request may have kept alive alone (freed
 * by the user meanwhile). A released request (*handle is then MPI_REQUEST_NULL) hands its reference
 * over, for drop_comm once the error is raised; a persistent one keeps the communicator itself. So a
 * wait counts no reference of its own.
 */
static int retire(MPI_Request *handle, MPI_Status *status, empi_comm_t **comm)
{
    empi_request_t *req = empi_request_get(*handle);
    int qrc = empi_request_query(req, !req->persistent);
    if (qrc != MPI_SUCCESS)
        req->status.MPI_ERROR = qrc;
    empi_status_out(status, &req->status);
    int rc = req->status.MPI_ERROR;
    *comm = req->comm;
    if (req->persistent) {
        req->active = 0;
    } else {
        req->comm = NULL;
        empi_request_release(req);
        *handle = MPI_REQUEST_NULL;
    }
    return rc;
}

/* Drop what retire handed over with the communicator, if anything. */
static void drop_comm(MPI_Request handle, empi_comm_t *comm)
{
    if (comm && handle == MPI_REQUEST_NULL)
        empi_comm_release(comm);
}

/* Retire one request and raise its error on its communicator. */
static int retire_raise(const char *fn, MPI_Request *handle, MPI_Status *status)
{
    empi_comm_t *comm;
    int rc = retire(handle, status, &comm);
    rc = empi_raise_completion(fn, comm, rc);
    drop_comm(*handle, comm);
    return rc;
}

/* The communicator a set's first error goes to, held by retire_one until raised here. */
static int raise_on_failed(const char *fn, empi_comm_t *failed_on, int rc)
{
    rc = empi_raise_completion(fn, failed_on, rc);
    if (failed_on)
        empi_comm_release(failed_on);
    return rc;
}

static void empty_status(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE)
        empi_status_empty(status);
}

EMPI_WEAK_ALIAS(Wait)
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    EMPI_CHECK(empi_check_ptr("MPI_Wait", NULL, request, "request"));
    if (empi_request_is_inactive(*request)) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    empi_request_t *req;
    empi_lock();
    int rc = check_request("MPI_Wait", *request, &req);
    if (rc == MPI_SUCCESS) {
        empi_request_wait(req);
        rc = retire_raise("MPI_Wait", request, status);
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Test)
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    EMPI_CHECK(empi_check_ptr("MPI_Test", NULL, request, "request"));
    EMPI_CHECK(empi_check_ptr("MPI_Test", NULL, flag, "flag"));
    if (empi_request_is_inactive(*request)) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    empi_request_t *req;
    empi_lock();
    int rc = check_request("MPI_Test", *request, &req);
    if (rc == MPI_SUCCESS) {
        *flag = empi_request_test(req);
        if (*flag)
            rc = retire_raise("MPI_Test", request, status);
    }
    empi_unlock();
    return rc;
}

static int check_array(const char *fn, int count, const MPI_Request reqs[])
{
    if (count < 0)
        return empi_err_noobj(MPI_ERR_COUNT, "%s: count %d is negative", fn, count);
    if (count > 0 && !reqs)
        return empi_err_noobj(MPI_ERR_ARG, "%s: array_of_requests is NULL", fn);
    for (int i = 0; i < count; i++) {
        empi_request_t *req;
        if (reqs[i] != MPI_REQUEST_NULL)
            EMPI_CHECK(check_request(fn, reqs[i], &req));
    }
    return MPI_SUCCESS;
}

/* Retire one request of a set into status slot `index`; the first to fail names the
   communicator the error goes to. */
static void retire_one(MPI_Request *handle, MPI_Status *status, int index, empi_status_errors_t *errs,
                       empi_comm_t **failed_on)
{
    empi_comm_t *comm;
    int rc = retire(handle, status, &comm);
    if (rc != MPI_SUCCESS && !errs->failed && comm) {
        *failed_on = comm;   /* held for raise_on_failed */
        if (*handle != MPI_REQUEST_NULL)
            empi_comm_retain(comm);   /* a persistent request handed nothing over */
    } else {
        drop_comm(*handle, comm);
    }
    empi_status_errors_note(errs, index, rc);
}

/* Retire every request of a completed set; MPI_ERR_IN_STATUS if any failed. */
static int retire_all(int count, MPI_Request reqs[], MPI_Status statuses[], empi_comm_t **failed_on)
{
    empi_status_errors_t errs = {statuses == MPI_STATUSES_IGNORE ? NULL : statuses, 0};
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (empi_request_is_inactive(reqs[i])) {
            empty_status(st);
            continue;
        }
        retire_one(&reqs[i], st, i, &errs, failed_on);
    }
    return errs.failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

/* Complete, after giving a request that drives itself (ops->poll) a chance to advance. */
static int request_done(MPI_Request h)
{
    if (empi_request_is_inactive(h))
        return 1;
    empi_request_t *req = empi_request_get(h);
    return req->complete || (req->ops && req->ops->poll && (req->ops->poll(req), req->complete));
}

static int all_complete(int count, MPI_Request reqs[])
{
    int done = 1;
    for (int i = 0; i < count; i++)
        done &= request_done(reqs[i]);
    return done;
}

/* Requests that advance only when polled. Collectives are not among them: every progress pass
   steps them all (coll/sched.c), and more cheaply than one by one. */
static int any_self_polling(int count, MPI_Request reqs[])
{
    for (int i = 0; i < count; i++) {
        if (empi_request_is_inactive(reqs[i]))
            continue;
        empi_request_t *req = empi_request_get(reqs[i]);
        if (req->ops && req->ops->poll && req->kind != EMPI_REQ_COLL)
            return 1;
    }
    return 0;
}

/*
 * Waitall's completion check. Requests mostly complete in the order they were issued, so a cursor
 * skips the finished prefix and each pass costs O(1) instead of O(count): rescanning 100,000
 * requests per progress pass made large Waitalls quadratic. Requests that advance only when polled
 * are still polled on every pass so none waits on another behind the cursor.
 */
static int all_complete_from(int count, MPI_Request reqs[], int *first, int self_polling)
{
    while (*first < count && request_done(reqs[*first]))
        (*first)++;
    if (*first == count)
        return 1;
    if (self_polling)
        for (int i = *first + 1; i < count; i++)
            (void)request_done(reqs[i]);
    return 0;
}

EMPI_WEAK_ALIAS(Waitall)
int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    empi_lock();
    int rc = check_array("MPI_Waitall", count, array_of_requests);
    if (rc == MPI_SUCCESS) {
        int first = 0, self_polling = any_self_polling(count, array_of_requests);
        EMPI_PROGRESS_UNTIL(all_complete_from(count, array_of_requests, &first, self_polling));
        empi_comm_t *failed_on = NULL;
        rc = retire_all(count, array_of_requests, array_of_statuses, &failed_on);
        rc = raise_on_failed("MPI_Waitall", failed_on, rc);
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Testall)
int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    EMPI_CHECK(empi_check_ptr("MPI_Testall", NULL, flag, "flag"));
    empi_lock();
    int rc = check_array("MPI_Testall", count, array_of_requests);
    if (rc == MPI_SUCCESS) {
        *flag = all_complete(count, array_of_requests);
        if (!*flag) {
            empi_progress_test();
            *flag = all_complete(count, array_of_requests);
        }
        if (*flag) {
            empi_comm_t *failed_on = NULL;
            rc = retire_all(count, array_of_requests, array_of_statuses, &failed_on);
            rc = raise_on_failed("MPI_Testall", failed_on, rc);
        }
    }
    empi_unlock();
    return rc;
}

/* Index of a completed active request, MPI_UNDEFINED if none is active, -1 if none is done yet. */
static int find_any(int count, MPI_Request reqs[])
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        if (empi_request_is_inactive(reqs[i]))
            continue;
        active = 1;
        empi_request_t *req = empi_request_get(reqs[i]);
        if (req->complete || (req->ops && req->ops->poll && (req->ops->poll(req), req->complete)))
            return i;
    }
    return active ? -1 : MPI_UNDEFINED;
}

static int finish_any(int idx, int *index, MPI_Request reqs[], MPI_Status *status)
{
    *index = idx;
    if (idx == MPI_UNDEFINED) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    return retire_raise("MPI_Waitany", &reqs[idx], status);
}

EMPI_WEAK_ALIAS(Waitany)
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    EMPI_CHECK(empi_check_ptr("MPI_Waitany", NULL, index, "index"));
    empi_lock();
    int rc = check_array("MPI_Waitany", count, array_of_requests);
    if (rc == MPI_SUCCESS) {
        int idx;
        EMPI_PROGRESS_UNTIL((idx = find_any(count, array_of_requests)) != -1);
        rc = finish_any(idx, index, array_of_requests, status);
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Testany)
int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    EMPI_CHECK(empi_check_ptr("MPI_Testany", NULL, index, "index"));
    EMPI_CHECK(empi_check_ptr("MPI_Testany", NULL, flag, "flag"));
    empi_lock();
    int rc = check_array("MPI_Testany", count, array_of_requests);
    if (rc == MPI_SUCCESS) {
        int idx = find_any(count, array_of_requests);
        if (idx == -1) {
            empi_progress_test();
            idx = find_any(count, array_of_requests);
        }
        *flag = idx != -1;
        if (*flag)
            rc = finish_any(idx, index, array_of_requests, status);
        else
            *index = MPI_UNDEFINED;
    }
    empi_unlock();
    return rc;
}

/* Retire every completed request; returns how many, or MPI_UNDEFINED if none was active. */
static int collect_some(int count, MPI_Request reqs[], int indices[], MPI_Status statuses[],
                        empi_status_errors_t *errs, empi_comm_t **failed_on)
{
    int active = 0, n = 0;
    for (int i = 0; i < count; i++) {
        if (empi_request_is_inactive(reqs[i]))
            continue;
        active = 1;
        empi_request_t *req = empi_request_get(reqs[i]);
        if (!req->complete && req->ops && req->ops->poll)
            req->ops->poll(req);
        if (!req->complete)
            continue;
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
        retire_one(&reqs[i], st, n, errs, failed_on);
        indices[n++] = i;
    }
    return active ? n : MPI_UNDEFINED;
}

static int some(const char *fn, int blocking, int incount, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[])
{
    EMPI_CHECK(empi_check_ptr(fn, NULL, outcount, "outcount"));
    empi_lock();
    int rc = check_array(fn, incount, reqs);
    if (rc == MPI_SUCCESS && incount > 0 && !indices)
        rc = empi_err_noobj(MPI_ERR_ARG, "%s: array_of_indices is NULL", fn);
    if (rc == MPI_SUCCESS) {
        empi_comm_t *failed_on = NULL;
        empi_status_errors_t errs = {statuses == MPI_STATUSES_IGNORE ? NULL : statuses, 0};
        int n = collect_some(incount, reqs, indices, statuses, &errs, &failed_on);
        if (n == 0) {
            int idle = 0;
            do {
                if ((blocking ? empi_progress_poll() : empi_progress_test()) != 0)
                    idle = 0;
                else if (blocking)
                    empi_progress_idle(&idle);
                n = collect_some(incount, reqs, indices, statuses, &errs, &failed_on);
            } while (n == 0 && blocking);
        }
        *outcount = n;
        rc = raise_on_failed(fn, failed_on, errs.failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS);
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Waitsome)
int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[])
{
    return some("MPI_Waitsome", 1, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

EMPI_WEAK_ALIAS(Testsome)
int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[])
{
    return some("MPI_Testsome", 0, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}
