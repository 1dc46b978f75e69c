#include "comm/comm.h"
#include "core/error.h"

int empi_unsupported(const char *fname)
{
    return empi_err_noobj(MPI_ERR_UNSUPPORTED_OPERATION, "%s is not implemented in this version of EtherMPI "
                          "(see docs/STATUS.md)", fname);
}

int empi_unsupported_on_comm(MPI_Comm comm, const char *fname)
{
    empi_comm_t *c = empi_comm_get(comm);
    if (!c)
        return empi_unsupported(fname);
    return empi_err_comm(c, MPI_ERR_UNSUPPORTED_OPERATION,
                         "%s is not implemented in this version of EtherMPI (see docs/STATUS.md)", fname);
}
