/*
 * MPI-4.1 buffers per communicator and per session: MPI_Comm_attach/detach/flush/iflush_buffer,
 * MPI_Session_attach/detach/flush/iflush_buffer, and the request behind every *_iflush_buffer.
 * The buffers themselves work as the process buffer does (bsend.c).
 */
#include "comm/session.h"
#include "core/error.h"
#include "core/global.h"
#include "pt2pt/args.h"
#include "pt2pt/bsend.h"
#include "pt2pt/pt2pt.h"

static int iflush_poll(empi_request_t *req)
{
    if (req->complete || !empi_bsend_flushed(req->state))
        return 0;
    empi_status_empty(&req->status);
    empi_request_set_complete(req);
    return 1;
}

static const empi_request_ops_t iflush_ops = {.poll = iflush_poll};

int empi_bsend_iflush(const char *fn, empi_bsend_buffer_t *buf, empi_comm_t *c, MPI_Request *request)
{
    empi_lock();
    empi_request_t *req = empi_request_new(EMPI_REQ_COLL, c);
    if (req) {
        req->ops = &iflush_ops;
        req->state = buf;
        iflush_poll(req);
        *request = (MPI_Request)req;
    }
    empi_unlock();
    if (!req)
        return c ? empi_err_comm(c, MPI_ERR_NO_MEM, "%s: out of memory", fn)
                 : empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return MPI_SUCCESS;
}

/* ---- communicators ---- */

static int comm_attach(const char *fn, MPI_Comm comm, void *buffer, MPI_Count size)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fn, &c));
    const char *why = NULL;
    empi_lock();
    int rc = empi_bsend_attach(&c->bsend_buffer, buffer, size, &why);
    empi_unlock();
    return rc == MPI_SUCCESS ? rc : empi_err_comm(c, rc, "%s: %s", fn, why);
}

static int comm_detach(const char *fn, MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fn, &c));
    EMPI_CHECK(empi_check_ptr(fn, c, buffer_addr, "buffer_addr"));
    EMPI_CHECK(empi_check_ptr(fn, c, size, "size"));
    empi_lock();
    empi_bsend_detach(&c->bsend_buffer, buffer_addr, size);
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_attach_buffer)
int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    return comm_attach("MPI_Comm_attach_buffer", comm, buffer, size);
}

EMPI_WEAK_ALIAS(Comm_attach_buffer_c)
int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    return comm_attach("MPI_Comm_attach_buffer_c", comm, buffer, size);
}

EMPI_WEAK_ALIAS(Comm_detach_buffer)
int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = comm_detach("MPI_Comm_detach_buffer", comm, buffer_addr, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = empi_int_or_undefined(n);
    return rc;
}

EMPI_WEAK_ALIAS(Comm_detach_buffer_c)
int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    return comm_detach("MPI_Comm_detach_buffer_c", comm, buffer_addr, size);
}

EMPI_WEAK_ALIAS(Comm_flush_buffer)
int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_flush_buffer", &c));
    empi_lock();
    empi_bsend_flush(c->bsend_buffer);
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_iflush_buffer)
int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_iflush_buffer", &c));
    EMPI_CHECK(empi_check_ptr("MPI_Comm_iflush_buffer", c, request, "request"));
    return empi_bsend_iflush("MPI_Comm_iflush_buffer", c->bsend_buffer, c, request);
}

/* ---- sessions ---- */

static int session_attach(const char *fn, MPI_Session session, void *buffer, MPI_Count size)
{
    empi_session_t *s;
    EMPI_CHECK(empi_session_check(session, fn, &s));
    const char *why = NULL;
    empi_lock();
    int rc = empi_bsend_attach(&s->buffer, buffer, size, &why);
    empi_unlock();
    return rc == MPI_SUCCESS ? rc : empi_err_session(s, rc, "%s: %s", fn, why);
}

static int session_detach(const char *fn, MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    empi_session_t *s;
    EMPI_CHECK(empi_session_check(session, fn, &s));
    if (!buffer_addr || !size)
        return empi_err_session(s, MPI_ERR_ARG, "%s: %s is NULL", fn, size ? "buffer_addr" : "size");
    empi_lock();
    empi_bsend_detach(&s->buffer, buffer_addr, size);
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Session_attach_buffer)
int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    return session_attach("MPI_Session_attach_buffer", session, buffer, size);
}

EMPI_WEAK_ALIAS(Session_attach_buffer_c)
int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    return session_attach("MPI_Session_attach_buffer_c", session, buffer, size);
}

EMPI_WEAK_ALIAS(Session_detach_buffer)
int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = session_detach("MPI_Session_detach_buffer", session, buffer_addr, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = empi_int_or_undefined(n);
    return rc;
}

EMPI_WEAK_ALIAS(Session_detach_buffer_c)
int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    return session_detach("MPI_Session_detach_buffer_c", session, buffer_addr, size);
}

EMPI_WEAK_ALIAS(Session_flush_buffer)
int PMPI_Session_flush_buffer(MPI_Session session)
{
    empi_session_t *s;
    EMPI_CHECK(empi_session_check(session, "MPI_Session_flush_buffer", &s));
    empi_lock();
    empi_bsend_flush(s->buffer);
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Session_iflush_buffer)
int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    empi_session_t *s;
    EMPI_CHECK(empi_session_check(session, "MPI_Session_iflush_buffer", &s));
    if (!request)
        return empi_err_session(s, MPI_ERR_ARG, "MPI_Session_iflush_buffer: request is NULL");
    return empi_bsend_iflush("MPI_Session_iflush_buffer", s->buffer, NULL, request);
}
