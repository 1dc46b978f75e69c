/*
 * Generalized requests (MPI_Grequest_start / MPI_Grequest_complete): operations the user drives,
 * completed through the ordinary Wait/Test machinery. The user's callbacks run at the points the
 * standard names: query_fn when a completion call reports the status (and MPI_Request_get_status),
 * then free_fn when that call frees the request, or at MPI_Request_free (at once if complete,
 * else when MPI_Grequest_complete arrives); cancel_fn at MPI_Cancel with whether it completed.
 */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "pt2pt/args.h"
#include "pt2pt/request.h"

typedef struct {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    int freed;      /* free_fn has run */
} greq_t;

static int greq_query(empi_request_t *req, int and_free)
{
    greq_t *g = req->state;
    MPI_Status st;
    empi_status_empty(&st);
    int rc = g->query_fn ? g->query_fn(g->extra_state, &st) : MPI_SUCCESS;
    req->status = st;
    if (and_free && !g->freed) {
        g->freed = 1;
        int frc = g->free_fn ? g->free_fn(g->extra_state) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = frc;
    }
    return rc;
}

static int greq_cancel(empi_request_t *req)
{
    greq_t *g = req->state;
    return g->cancel_fn ? g->cancel_fn(g->extra_state, req->complete) : MPI_SUCCESS;
}

/* Released without a completion call reporting it (MPI_Request_free): free_fn still runs once. */
static void greq_destroy(empi_request_t *req)
{
    greq_t *g = req->state;
    if (g && !g->freed && g->free_fn)
        g->free_fn(g->extra_state);
    free(g);
    req->state = NULL;
}

static const empi_request_ops_t greq_ops = {
    .cancel = greq_cancel,
    .destroy = greq_destroy,
    .query = greq_query,
};

EMPI_WEAK_ALIAS(Grequest_start)
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
    EMPI_CHECK(empi_check_ptr("MPI_Grequest_start", NULL, request, "request"));
    greq_t *g = calloc(1, sizeof *g);
    empi_lock();
    empi_request_t *req = g ? empi_request_new(EMPI_REQ_GREQ, NULL) : NULL;
    empi_unlock();
    if (!req) {
        free(g);
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Grequest_start: out of memory");
    }
    *g = (greq_t){query_fn, free_fn, cancel_fn, extra_state, 0};
    req->ops = &greq_ops;
    req->state = g;
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Grequest_complete)
int PMPI_Grequest_complete(MPI_Request request)
{
    empi_request_t *req = empi_request_lookup(request);   /* the user may have freed it already */
    if (!req || req->ops != &greq_ops)
        return empi_err_noobj(MPI_ERR_REQUEST, "MPI_Grequest_complete: %p is not a generalized request",
                              (void *)request);
    if (req->complete)
        return empi_err_noobj(MPI_ERR_REQUEST, "MPI_Grequest_complete: the request is already complete");
    empi_lock();
    /* A request the user already freed is released here, running free_fn (greq_destroy). */
    empi_request_set_complete(req);
    empi_unlock();
    return MPI_SUCCESS;
}
