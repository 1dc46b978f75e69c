/*
 * MPI_Comm_disconnect, on any communicator (the rest of dynamic process management: dyn.h).
 */
#include "comm/comm.h"
#include "comm/dyn.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "pt2pt/request.h"

/*
 * Collective: every member arrives (a barrier, which on an intercommunicator also waits for the
 * remote group), then the communicator is freed. Messages the caller started on it have been
 * completed by then, as the standard requires of the program; the barrier makes sure no member
 * still sends to one that has gone.
 *
 * A member of another job may leave its barrier first and then end without MPI_Finalize, which
 * is its right once disconnected (MPI 4.1, 11.10.4): that does not end this job (comm.c skips a
 * communicator being disconnected), though the barrier may still need a moment here (a local
 * member relays the remote group's arrival). One that ended before it reached the disconnect
 * leaves the barrier waiting forever: so once a member is gone, the barrier gets a grace period.
 */
#define LOST_MEMBER_GRACE_NS (10ull * 1000 * 1000 * 1000)

/* The barrier completed, or a member is gone and the grace period over. */
static int barrier_settled(const empi_request_t *req, const empi_comm_t *c, uint64_t *lost_at)
{
    if (req->complete)
        return 1;
    if (!c->member_lost)
        return 0;
    if (!*lost_at)
        *lost_at = empi_now_ns();
    return empi_now_ns() - *lost_at > LOST_MEMBER_GRACE_NS;
}

static int disconnect_barrier(empi_comm_t *c)
{
    MPI_Request r;
    EMPI_CHECK(PMPI_Ibarrier(c->handle, &r));
    empi_lock();
    empi_request_t *req = empi_request_get(r);
    c->disconnecting = 1;
    uint64_t lost_at = 0;
    EMPI_PROGRESS_UNTIL(barrier_settled(req, c, &lost_at));
    int complete = req->complete;
    empi_unlock();
    if (!complete)
        empi_fatal(MPI_ERR_OTHER, "MPI_Comm_disconnect: a process of another job ended without MPI_Finalize "
                                  "and the disconnect did not complete within 10 s");
    return PMPI_Wait(&r, MPI_STATUS_IGNORE);
}

EMPI_WEAK_ALIAS(Comm_disconnect)
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    if (!comm)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Comm_disconnect: comm is NULL");
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(*comm, "MPI_Comm_disconnect", &c));
    if (c == &empi_comm_world || c == &empi_comm_self)
        return empi_err_comm(c, MPI_ERR_COMM, "MPI_Comm_disconnect: %s cannot be disconnected", c->name);
    /* before the barrier: a spawned job may leave it first and fail at once, which is its right */
    empi_dyn_disconnected(c);
    EMPI_CHECK(disconnect_barrier(c));
    return PMPI_Comm_free(comm);
}
