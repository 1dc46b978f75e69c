/*
 * MPI_Comm_disconnect, on any communicator (the rest of dynamic process management: dyn.h).
 */
#include "comm/comm.h"
#include "comm/dyn.h"
#include "core/error.h"
#include "core/global.h"

/*
 * Collective: every member arrives (a barrier, which on an intercommunicator also waits for the
 * remote group), then the communicator is freed. Messages the caller started on it have been
 * completed by then, as the standard requires of the program; the barrier makes sure no member
 * still sends to one that has gone.
 */
EMPI_WEAK_ALIAS(Comm_disconnect)
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    if (!comm)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Comm_disconnect: comm is NULL");
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(*comm, "MPI_Comm_disconnect", &c));
    if (c == &empi_comm_world || c == &empi_comm_self)
        return empi_err_comm(c, MPI_ERR_COMM, "MPI_Comm_disconnect: %s cannot be disconnected", c->name);
    EMPI_CHECK(PMPI_Barrier(*comm));
    empi_dyn_disconnected(c);
    return PMPI_Comm_free(comm);
}
