#include "pt2pt/request.h"

#include "core/global.h"
#include "core/progress.h"

#include <stdlib.h>

static empi_pool_t request_pool = EMPI_POOL_INITIALIZER(empi_request_t, "request");

empi_request_t *empi_request_lookup(MPI_Request h)
{
    if (empi_handle_is_predefined(h))
        return NULL;
    empi_request_t *req = (empi_request_t *)h;
    return req->obj.magic == EMPI_MAGIC_REQUEST ? req : NULL;
}

empi_request_t *empi_request_get(MPI_Request h)
{
    empi_request_t *req = empi_request_lookup(h);
    return req && !req->user_freed ? req : NULL;
}

empi_request_t *empi_request_new(empi_req_kind_t kind, empi_comm_t *comm)
{
    empi_request_t *req = empi_pool_alloc(&request_pool);
    if (!req)
        return NULL;
    req->obj.magic = EMPI_MAGIC_REQUEST;
    req->obj.refcount = 1;
    req->kind = (uint8_t)kind;
    /* A communicator freed while its operations are pending lives until they complete (MPI 4.1
       7.4.3): queued sends still build headers from it, completions raise on its handler.
       (MPI_COMM_WORLD and MPI_COMM_SELF are not counted: no atomic on their latency path.) */
    req->comm = comm;
    if (comm)
        empi_comm_retain(comm);
    empi_status_empty(&req->status);
    return req;
}

void empi_request_set_complete(empi_request_t *req)
{
    req->complete = 1;
    if (req->user_freed && !req->persistent)
        empi_request_release(req);
}

void empi_request_release(empi_request_t *req)
{
    if (req->ops && req->ops->destroy)
        req->ops->destroy(req);
    if (req->dt)
        empi_datatype_release(req->dt);
    if (req->comm)
        empi_comm_release(req->comm);
    empi_pool_free(&request_pool, req);
}

static empi_request_t **orphans;
static int norphans, orphans_cap;

static int poll_orphans(void)
{
    int events = 0;
    for (int i = 0; i < norphans; i++) {
        empi_request_t *req = orphans[i];
        events += req->ops->poll(req);
        if (req->complete) {
            empi_request_release(req);
            orphans[i--] = orphans[--norphans];
        }
    }
    return events;
}

int empi_request_orphan(empi_request_t *req)
{
    if (norphans == orphans_cap) {
        int cap = orphans_cap ? 2 * orphans_cap : 16;
        empi_request_t **o = realloc(orphans, sizeof *o * (size_t)cap);
        if (!o)
            return MPI_ERR_NO_MEM;
        orphans = o;
        orphans_cap = cap;
    }
    orphans[norphans++] = req;
    empi_progress_add_hook(poll_orphans);
    return MPI_SUCCESS;
}

int empi_request_test(empi_request_t *req)
{
    if (!req->complete) {
        if (req->ops && req->ops->poll)
            req->ops->poll(req);
        if (!req->complete)
            empi_progress_test();
    }
    return req->complete;
}

void empi_request_wait(empi_request_t *req)
{
    int idle = 0;
    while (!req->complete) {
        int events = req->ops && req->ops->poll ? req->ops->poll(req) : 0;
        if (req->complete)
            break;
        events += empi_progress_poll();
        if (events == 0)
            empi_progress_idle(&idle);
        else
            idle = 0;
    }
}
