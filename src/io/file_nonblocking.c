/*
 * Nonblocking data access: MPI_File_iread / iwrite in their explicit-offset, individual-pointer,
 * shared-pointer, collective (*_all) and large-count forms. The access is performed when it
 * starts and the request is born complete with its status, which the standard allows and which
 * keeps every request free of file state (MPI_File_close may come before MPI_Request_free).
 * Collective forms run as independent accesses: a nonblocking call must not wait for the other
 * processes, and two-phase aggregation would make it wait.
 */
#include "core/global.h"
#include "io/io.h"
#include "pt2pt/request.h"

static int start(const char *fname, MPI_File fh, int dir, empi_io_ptr_t ptr, MPI_Offset offset, const void *buf,
                 MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
    empi_io_call_t c = {.fname = fname, .dir = dir, .ptr = ptr, .offset = offset};
    EMPI_CHECK(empi_io_call_check(&c, fh, buf, count, datatype));
    if (!request)
        return empi_err_file(c.f, MPI_ERR_REQUEST, "%s: request is NULL", fname);
    empi_lock();
    empi_request_t *req = empi_request_new(EMPI_REQ_FILE, NULL);
    empi_unlock();
    if (!req)
        return empi_err_file(c.f, MPI_ERR_NO_MEM, "%s: out of memory", fname);
    int rc = empi_io_call_run(&c, &req->status);
    if (rc != MPI_SUCCESS) {
        empi_lock();
        empi_request_release(req);
        empi_unlock();
        return rc;
    }
    empi_lock();
    empi_request_set_complete(req);
    empi_unlock();
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_iread_at)
int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return start("MPI_File_iread_at", fh, EMPI_IO_READ, EMPI_IO_AT, offset, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iread_at_c)
int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    return start("MPI_File_iread_at_c", fh, EMPI_IO_READ, EMPI_IO_AT, offset, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iwrite_at)
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request)
{
    return start("MPI_File_iwrite_at", fh, EMPI_IO_WRITE, EMPI_IO_AT, offset, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iwrite_at_c)
int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    return start("MPI_File_iwrite_at_c", fh, EMPI_IO_WRITE, EMPI_IO_AT, offset, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iread_at_all)
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return start("MPI_File_iread_at_all", fh, EMPI_IO_READ, EMPI_IO_AT, offset, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iread_at_all_c)
int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request)
{
    return start("MPI_File_iread_at_all_c", fh, EMPI_IO_READ, EMPI_IO_AT, offset, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iwrite_at_all)
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    return start("MPI_File_iwrite_at_all", fh, EMPI_IO_WRITE, EMPI_IO_AT, offset, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iwrite_at_all_c)
int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request)
{
    return start("MPI_File_iwrite_at_all_c", fh, EMPI_IO_WRITE, EMPI_IO_AT, offset, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iread)
int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iread", fh, EMPI_IO_READ, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iread_c)
int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iread_c", fh, EMPI_IO_READ, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iwrite)
int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iwrite", fh, EMPI_IO_WRITE, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iwrite_c)
int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iwrite_c", fh, EMPI_IO_WRITE, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iread_all)
int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iread_all", fh, EMPI_IO_READ, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iread_all_c)
int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iread_all_c", fh, EMPI_IO_READ, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iwrite_all)
int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iwrite_all", fh, EMPI_IO_WRITE, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iwrite_all_c)
int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iwrite_all_c", fh, EMPI_IO_WRITE, EMPI_IO_INDIVIDUAL, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iread_shared)
int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iread_shared", fh, EMPI_IO_READ, EMPI_IO_SHARED, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iread_shared_c)
int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iread_shared_c", fh, EMPI_IO_READ, EMPI_IO_SHARED, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iwrite_shared)
int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return start("MPI_File_iwrite_shared", fh, EMPI_IO_WRITE, EMPI_IO_SHARED, 0, buf, count, datatype, request);
}

EMPI_WEAK_ALIAS(File_iwrite_shared_c)
int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request)
{
    return start("MPI_File_iwrite_shared_c", fh, EMPI_IO_WRITE, EMPI_IO_SHARED, 0, buf, count, datatype, request);
}
