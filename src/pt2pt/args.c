#include "pt2pt/args.h"

#include "core/error.h"

static int check_buffer(const char *fn, empi_comm_t *c, const void *buf, MPI_Count count, MPI_Datatype datatype,
                        empi_datatype_t **dt)
{
    const char *why = NULL;
    int rc = empi_datatype_check(datatype, count, dt, &why);
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "%s: %s", fn, why ? why : "invalid datatype or count");
    const char *problem = empi_buffer_problem(buf, count, *dt);
    if (problem)
        return empi_err_comm(c, MPI_ERR_BUFFER, "%s: buf %s (count %lld)", fn, problem, (long long)count);
    return MPI_SUCCESS;
}

int empi_check_send(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, empi_comm_t **c, empi_datatype_t **dt)
{
    EMPI_CHECK(empi_comm_check(comm, fn, c));
    EMPI_CHECK(check_buffer(fn, *c, buf, count, datatype, dt));
    if (dest != MPI_PROC_NULL && (dest < 0 || dest >= empi_comm_peer_size(*c)))
        return empi_err_comm(*c, MPI_ERR_RANK, "%s: dest %d is not a rank of the communicator (size %d)", fn, dest,
                             empi_comm_peer_size(*c));
    return empi_comm_check_tag(*c, fn, tag, 0);
}

int empi_check_recv(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, empi_comm_t **c, empi_datatype_t **dt)
{
    EMPI_CHECK(empi_comm_check(comm, fn, c));
    EMPI_CHECK(check_buffer(fn, *c, buf, count, datatype, dt));
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= empi_comm_peer_size(*c)))
        return empi_err_comm(*c, MPI_ERR_RANK, "%s: source %d is not a rank of the communicator (size %d)", fn,
                             source, empi_comm_peer_size(*c));
    return empi_comm_check_tag(*c, fn, tag, 1);
}

int empi_check_ptr(const char *fn, empi_comm_t *c, const void *p, const char *what)
{
    if (p)
        return MPI_SUCCESS;
    return c ? empi_err_comm(c, MPI_ERR_ARG, "%s: %s is NULL", fn, what)
             : empi_err_noobj(MPI_ERR_ARG, "%s: %s is NULL", fn, what);
}

int empi_raise_completion(const char *fn, empi_comm_t *comm, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    int code = empi_err_comm(comm, rc, "%s: %s", fn,
                             rc == MPI_ERR_IN_STATUS ? "a request completed with an error (see its status)"
                                                     : "the request completed with an error");
    return rc == MPI_ERR_IN_STATUS ? MPI_ERR_IN_STATUS : code;
}
