/*
 * MPI_Pack, MPI_Unpack, MPI_Pack_size and their large-count forms. The "native" packed format is
 * the engine's byte stream itself (no header), so Pack_size is exactly count * size.
 */
#include <limits.h>

#include "comm/comm.h"
#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_internal.h"

/* Errors after the communicator is known go to its handler: comm is the call's object. */
static int common_checks(const char *fname, MPI_Count count, MPI_Datatype datatype, MPI_Comm comm,
                         empi_datatype_t **dt, empi_comm_t **c)
{
    EMPI_CHECK(empi_comm_check(comm, fname, c));
    const char *why;
    int rc = empi_datatype_check(datatype, count, dt, &why);
    if (rc != MPI_SUCCESS)
        return empi_err_comm(*c, rc, "%s: %s", fname, why);
    return MPI_SUCCESS;
}

static int pack(const char *fname, const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    empi_datatype_t *dt;
    empi_comm_t *c;
    EMPI_CHECK(common_checks(fname, incount, datatype, comm, &dt, &c));
    if (!position)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: position is NULL", fname);
    MPI_Count bytes = incount * dt->size;
    if (empi_buffer_missing(inbuf, incount, dt) || (bytes > 0 && !outbuf))
        return empi_err_comm(c, MPI_ERR_BUFFER, "%s: %s is NULL with %lld bytes to pack", fname,
                             outbuf ? "inbuf" : "outbuf", (long long)bytes);
    if (*position < 0 || outsize - *position < bytes)
        return empi_err_comm(c, MPI_ERR_TRUNCATE, "%s: %lld bytes do not fit at position %lld of a %lld-byte buffer",
                              fname, (long long)bytes, (long long)*position, (long long)outsize);
    empi_dt_pack(inbuf, incount, dt, 0, (char *)outbuf + *position, bytes);
    *position += bytes;
    return MPI_SUCCESS;
}

static int unpack(const char *fname, const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    empi_datatype_t *dt;
    empi_comm_t *c;
    EMPI_CHECK(common_checks(fname, outcount, datatype, comm, &dt, &c));
    if (!position)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: position is NULL", fname);
    MPI_Count bytes = outcount * dt->size;
    if (empi_buffer_missing(outbuf, outcount, dt) || (bytes > 0 && !inbuf))
        return empi_err_comm(c, MPI_ERR_BUFFER, "%s: %s is NULL with %lld bytes to unpack", fname,
                             inbuf ? "outbuf" : "inbuf", (long long)bytes);
    if (*position < 0 || insize - *position < bytes)
        return empi_err_comm(c, MPI_ERR_TRUNCATE, "%s: %lld bytes wanted at position %lld of a %lld-byte buffer",
                              fname, (long long)bytes, (long long)*position, (long long)insize);
    empi_dt_unpack(outbuf, outcount, dt, 0, (const char *)inbuf + *position, bytes);
    *position += bytes;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Pack)
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
              MPI_Comm comm)
{
    if (!position)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Pack: position is NULL");
    MPI_Count pos = *position;
    int rc = pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, &pos, comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos;   /* pos <= outsize, an int */
    return rc;
}

EMPI_WEAK_ALIAS(Pack_c)
int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                MPI_Count *position, MPI_Comm comm)
{
    return pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}

EMPI_WEAK_ALIAS(Unpack)
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype,
                MPI_Comm comm)
{
    if (!position)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Unpack: position is NULL");
    MPI_Count pos = *position;
    int rc = unpack("MPI_Unpack", inbuf, insize, &pos, outbuf, outcount, datatype, comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos;
    return rc;
}

EMPI_WEAK_ALIAS(Unpack_c)
int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                  MPI_Datatype datatype, MPI_Comm comm)
{
    return unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}

EMPI_WEAK_ALIAS(Pack_size)
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    empi_datatype_t *dt;
    empi_comm_t *c;
    EMPI_CHECK(common_checks("MPI_Pack_size", incount, datatype, comm, &dt, &c));
    if (!size)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Pack_size: size is NULL");
    MPI_Count bytes = (MPI_Count)incount * dt->size;
    *size = empi_int_or_undefined(bytes);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Pack_size_c)
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    empi_datatype_t *dt;
    empi_comm_t *c;
    EMPI_CHECK(common_checks("MPI_Pack_size_c", incount, datatype, comm, &dt, &c));
    if (!size)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Pack_size_c: size is NULL");
    *size = incount * dt->size;
    return MPI_SUCCESS;
}
