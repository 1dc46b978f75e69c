/*
 * MPI_Request_get_status_any / _all / _some (MPI-4.1): the Testany/Testall/Testsome questions
 * without the side effects. Requests stay allocated and active; statuses of completed ones are
 * reported (a generalized request's through its query_fn).
 */
#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "pt2pt/args.h"
#include "pt2pt/pt2pt.h"

static int check_requests(const char *fn, int count, const MPI_Request reqs[])
{
    if (count < 0)
        return empi_err_noobj(MPI_ERR_COUNT, "%s: count %d is negative", fn, count);
    if (count > 0 && !reqs)
        return empi_err_noobj(MPI_ERR_ARG, "%s: array_of_requests is NULL", fn);
    for (int i = 0; i < count; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !empi_request_get(reqs[i]))
            return empi_err_noobj(MPI_ERR_REQUEST, "%s: invalid request handle %p at index %d", fn,
                                  (void *)reqs[i], i);
    return MPI_SUCCESS;
}

/* Is request i done (inactive counts as done), polling it once if it is driven by ops? */
static int done(MPI_Request h)
{
    if (empi_request_is_inactive(h))
        return 1;
    empi_request_t *req = empi_request_get(h);
    if (!req->complete && req->ops && req->ops->poll)
        req->ops->poll(req);
    return req->complete;
}

static int in_status(const char *fn, MPI_Request failed)
{
    return empi_raise_completion(fn, empi_request_get(failed)->comm, MPI_ERR_IN_STATUS);
}

/* Status of a done request into *st (may be MPI_STATUS_IGNORE); returns its error (a truncated
   receive's, or the query's), as the Test calls would. */
static int report(MPI_Request h, MPI_Status *st)
{
    if (empi_request_is_inactive(h)) {
        if (st != MPI_STATUS_IGNORE)
            empi_status_empty(st);
        return MPI_SUCCESS;
    }
    empi_request_t *req = empi_request_get(h);
    int rc = empi_request_query(req, 0);
    if (rc != MPI_SUCCESS)
        req->status.MPI_ERROR = rc;
    empi_status_out(st, &req->status);
    return req->status.MPI_ERROR;
}

EMPI_WEAK_ALIAS(Request_get_status_any)
int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *indx, int *flag,
                                MPI_Status *status)
{
    static const char fn[] = "MPI_Request_get_status_any";
    EMPI_CHECK(empi_check_ptr(fn, NULL, indx, "indx"));
    EMPI_CHECK(empi_check_ptr(fn, NULL, flag, "flag"));
    empi_lock();
    int rc = check_requests(fn, count, array_of_requests);
    if (rc == MPI_SUCCESS) {
        *flag = 0;
        *indx = MPI_UNDEFINED;
        for (int pass = 0; pass < 2 && !*flag; pass++) {
            int active = 0;
            for (int i = 0; i < count && !*flag; i++) {
                if (empi_request_is_inactive(array_of_requests[i]))
                    continue;
                active = 1;
                if (done(array_of_requests[i])) {
                    *flag = 1;
                    *indx = i;
                    rc = report(array_of_requests[i], status);
                }
            }
            if (!active) {
                /* Nothing active: true, with an empty status and MPI_UNDEFINED. */
                *flag = 1;
                if (status != MPI_STATUS_IGNORE)
                    empi_status_empty(status);
            }
            if (!*flag && pass == 0)
                empi_progress_test();
        }
        if (rc != MPI_SUCCESS)
            rc = empi_raise_completion(fn, empi_request_get(array_of_requests[*indx])->comm, rc);
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Request_get_status_all)
int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status *array_of_statuses)
{
    static const char fn[] = "MPI_Request_get_status_all";
    EMPI_CHECK(empi_check_ptr(fn, NULL, flag, "flag"));
    empi_lock();
    int rc = check_requests(fn, count, array_of_requests);
    if (rc == MPI_SUCCESS) {
        for (int pass = 0; pass < 2; pass++) {
            *flag = 1;
            for (int i = 0; i < count; i++)
                if (!done(array_of_requests[i]))
                    *flag = 0;
            if (*flag || pass == 1)
                break;
            empi_progress_test();
        }
        int failed = -1;
        empi_status_errors_t errs = {array_of_statuses == MPI_STATUSES_IGNORE ? NULL : array_of_statuses, 0};
        for (int i = 0; *flag && i < count; i++) {
            MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[i];
            int r = report(array_of_requests[i], st);
            empi_status_errors_note(&errs, i, r);
            if (r != MPI_SUCCESS && failed < 0)
                failed = i;
        }
        if (failed >= 0)
            rc = in_status(fn, array_of_requests[failed]);
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Request_get_status_some)
int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status *array_of_statuses)
{
    static const char fn[] = "MPI_Request_get_status_some";
    EMPI_CHECK(empi_check_ptr(fn, NULL, outcount, "outcount"));
    empi_lock();
    int rc = check_requests(fn, incount, array_of_requests);
    if (rc == MPI_SUCCESS && incount > 0 && !array_of_indices)
        rc = empi_err_noobj(MPI_ERR_ARG, "%s: array_of_indices is NULL", fn);
    if (rc == MPI_SUCCESS) {
        int n = 0, active = 0, failed = -1;
        empi_status_errors_t errs = {array_of_statuses == MPI_STATUSES_IGNORE ? NULL : array_of_statuses, 0};
        for (int pass = 0; pass < 2 && n == 0; pass++) {
            int pending = 0;
            for (int i = 0; i < incount; i++) {
                if (empi_request_is_inactive(array_of_requests[i]))
                    continue;
                active = 1;
                if (!done(array_of_requests[i])) {
                    pending = 1;
                    continue;
                }
                MPI_Status *st =
                    array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[n];
                int r = report(array_of_requests[i], st);
                empi_status_errors_note(&errs, n, r);
                if (r != MPI_SUCCESS && failed < 0)
                    failed = i;
                array_of_indices[n++] = i;
            }
            if (!active)
                break;
            /* even with some to report: the completed ones stay in the array (this call frees
               nothing), and a loop on it must see the others complete too */
            if (pending && pass == 0)
                empi_progress_test();
        }
        *outcount = active ? n : MPI_UNDEFINED;
        if (failed >= 0)
            rc = in_status(fn, array_of_requests[failed]);
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Request_toint)
int PMPI_Request_toint(MPI_Request request)
{
    return empi_handle_toint(request);
}

EMPI_WEAK_ALIAS(Request_fromint)
MPI_Request PMPI_Request_fromint(int request)
{
    return (MPI_Request)empi_handle_fromint(request);
}

EMPI_WEAK_ALIAS(Message_toint)
int PMPI_Message_toint(MPI_Message message)
{
    return empi_handle_toint(message);
}

EMPI_WEAK_ALIAS(Message_fromint)
MPI_Message PMPI_Message_fromint(int message)
{
    return (MPI_Message)empi_handle_fromint(message);
}
