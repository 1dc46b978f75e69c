/*
 * The parts of dynamic process management that need no launcher support: MPI_Comm_get_parent
 * (no process is ever spawned, so there is no parent) and MPI_Comm_disconnect on any
 * communicator. Spawning, ports, accept/connect, join and the name service are not implemented
 * (the launcher cannot start processes into a running job): they stay in the unimplemented stubs.
 */
#include "comm/comm.h"
#include "core/error.h"
#include "core/global.h"

EMPI_WEAK_ALIAS(Comm_get_parent)
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    if (!parent)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Comm_get_parent: parent is NULL");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

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
    return PMPI_Comm_free(comm);
}
