/*
 * The attached buffers of MPI_Buffer_attach and (MPI-4.1) MPI_Comm_attach_buffer and
 * MPI_Session_attach_buffer: a buffered send uses its communicator's buffer, else its session's,
 * else the process's (bsend_api.c has the per-communicator and per-session calls). Each buffered message takes MPI_BSEND_OVERHEAD bytes
 * of bookkeeping plus its packed size, carved first-fit from the gaps between messages still in
 * flight; a message that does not fit is MPI_ERR_BUFFER, as the standard requires. The copy is
 * sent by an ordinary internal send whose completion frees its space.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "pt2pt/args.h"
#include "pt2pt/bsend.h"
#include "pt2pt/pt2pt.h"
#include "comm/session.h"

typedef struct bsend_block {
    struct bsend_block *next;   /* blocks in flight, sorted by address */
    char *start;                /* first byte of the block's space in the buffer */
    size_t span;                /* bytes taken, overhead included */
    empi_request_t *send;
    int automatic;              /* malloc'ed because the buffer is MPI_BUFFER_AUTOMATIC */
} bsend_block_t;

struct empi_bsend_buffer {
    char *base;
    size_t size;
    int attached;
    int automatic;
    bsend_block_t *blocks;
};

static empi_bsend_buffer_t process_buffer;

/* Free the space of every buffered send that has completed. */
static void reclaim(empi_bsend_buffer_t *buf)
{
    for (bsend_block_t **p = &buf->blocks; *p;) {
        bsend_block_t *b = *p;
        if (b->send->complete) {
            *p = b->next;
            empi_request_release(b->send);
            if (b->automatic)
                free(b->start);
            free(b);
        } else {
            p = &b->next;
        }
    }
}

static int block_space(empi_bsend_buffer_t *buf, size_t need, char **where, bsend_block_t ***link)
{
    char *cursor = buf->base;
    for (bsend_block_t **p = &buf->blocks;; p = &(*p)->next) {
        char *limit = *p ? (*p)->start : buf->base + buf->size;
        if ((size_t)(limit - cursor) >= need) {
            *where = cursor;
            *link = p;
            return 1;
        }
        if (!*p)
            return 0;
        /* blocks abut: k messages fit in the sum of their sizes plus k overheads, as the
           standard promises (padding them to an alignment broke that) */
        cursor = (*p)->start + (*p)->span;
    }
}

/* Copy the message into the buffer and send it from there. */
static int bsend(const char *fn, const void *data, MPI_Count count, empi_datatype_t *dt, int dest, int tag,
                 empi_comm_t *c)
{
    size_t bytes = (size_t)(count * dt->size);
    size_t need = bytes + MPI_BSEND_OVERHEAD;
    empi_bsend_buffer_t *buf = empi_bsend_buffer_for(c);
    reclaim(buf);
    if (!buf->attached)
        return empi_err_comm(c, MPI_ERR_BUFFER, "%s: no buffer is attached (MPI_Buffer_attach)", fn);
    char *where = NULL;
    bsend_block_t **link = &buf->blocks;
    if (buf->automatic)
        where = malloc(need);
    else if (!block_space(buf, need, &where, &link))
        return empi_err_comm(c, MPI_ERR_BUFFER,
                             "%s: the attached buffer has no room for %zu bytes (+%d overhead); attached size %zu", fn,
                             bytes, MPI_BSEND_OVERHEAD, buf->size);
    bsend_block_t *b = calloc(1, sizeof *b);
    if (!b || !where) {
        free(b);
        return empi_err_comm(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    b->start = where;
    b->span = need;
    b->automatic = buf->automatic;
    char *payload = where + MPI_BSEND_OVERHEAD;
    empi_dt_pack(data, count, dt, 0, payload, (MPI_Count)bytes);
    int rc = empi_isend(payload, (MPI_Count)bytes, empi_byte_type, dest, tag, c, c->context_id,
                        EMPI_MODE_STANDARD, &b->send);
    if (rc != MPI_SUCCESS) {
        if (b->automatic)
            free(where);
        free(b);
        return empi_err_comm(c, rc, "%s: sending the buffered copy failed", fn);
    }
    b->next = *link;
    *link = b;
    return MPI_SUCCESS;
}

int empi_bsend_start_persistent(const char *fn, empi_request_t *req)
{
    int rc = req->peer == MPI_PROC_NULL ? MPI_SUCCESS
                                        : bsend(fn, req->buf, req->count, req->dt, req->peer, req->tag, req->comm);
    if (rc == MPI_SUCCESS) {
        empi_status_empty(&req->status);
        empi_request_set_complete(req);
    }
    return rc;
}

static int bsend_api(const char *fn, const void *data, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    empi_comm_t *c;
    empi_datatype_t *dt;
    empi_lock();
    int rc = empi_check_send(fn, data, count, datatype, dest, tag, comm, &c, &dt);
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)
        rc = bsend(fn, data, count, dt, dest, tag, c);
    if (rc == MPI_SUCCESS && request) {
        empi_request_t *req = empi_request_new(EMPI_REQ_SEND, c);
        if (!req) {
            rc = empi_err_comm(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        } else {
            empi_request_set_complete(req);
            *request = (MPI_Request)req;
        }
    }
    empi_unlock();
    return rc;
}

EMPI_WEAK_ALIAS(Bsend)
int PMPI_Bsend(const void *buf_, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return bsend_api("MPI_Bsend", buf_, count, datatype, dest, tag, comm, NULL);
}

EMPI_WEAK_ALIAS(Bsend_c)
int PMPI_Bsend_c(const void *buf_, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return bsend_api("MPI_Bsend_c", buf_, count, datatype, dest, tag, comm, NULL);
}

EMPI_WEAK_ALIAS(Ibsend)
int PMPI_Ibsend(const void *buf_, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    EMPI_CHECK(empi_check_ptr("MPI_Ibsend", NULL, request, "request"));
    return bsend_api("MPI_Ibsend", buf_, count, datatype, dest, tag, comm, request);
}

EMPI_WEAK_ALIAS(Ibsend_c)
int PMPI_Ibsend_c(const void *buf_, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    EMPI_CHECK(empi_check_ptr("MPI_Ibsend_c", NULL, request, "request"));
    return bsend_api("MPI_Ibsend_c", buf_, count, datatype, dest, tag, comm, request);
}

int empi_bsend_attach(empi_bsend_buffer_t **slot, void *buffer, MPI_Count size, const char **why)
{
    if (size < 0) {
        *why = "size is negative";
        return MPI_ERR_ARG;
    }
    if (!buffer && size > 0) {
        *why = "buffer is NULL";
        return MPI_ERR_BUFFER;
    }
    if (!*slot && !(*slot = calloc(1, sizeof **slot))) {
        *why = "out of memory";
        return MPI_ERR_NO_MEM;
    }
    empi_bsend_buffer_t *buf = *slot;
    if (buf->attached) {
        *why = "a buffer is already attached";
        return MPI_ERR_BUFFER;
    }
    buf->attached = 1;
    buf->automatic = buffer == MPI_BUFFER_AUTOMATIC;
    buf->base = buf->automatic ? NULL : buffer;
    buf->size = buf->automatic ? 0 : (size_t)size;
    return MPI_SUCCESS;
}

int empi_bsend_flushed(empi_bsend_buffer_t *buf)
{
    if (!buf)
        return 1;
    reclaim(buf);
    return buf->blocks == NULL;
}

/* Wait until every buffered message has left the buffer. */
void empi_bsend_flush(empi_bsend_buffer_t *buf)
{
    EMPI_PROGRESS_UNTIL(empi_bsend_flushed(buf));
}

void empi_bsend_detach(empi_bsend_buffer_t **slot, void *buffer_addr, MPI_Count *size)
{
    empi_bsend_buffer_t *buf = *slot;
    if (!buf || !buf->attached) {
        /* With no buffer MPI behaves as if a zero-sized one were attached (3.6): detaching it
           succeeds, so that a library can swap its own buffer in and the caller's back. */
        *(void **)buffer_addr = NULL;
        *size = 0;
        return;
    }
    empi_bsend_flush(buf);
    *(void **)buffer_addr = buf->automatic ? MPI_BUFFER_AUTOMATIC : buf->base;
    *size = (MPI_Count)buf->size;
    if (buf == &process_buffer)
        memset(buf, 0, sizeof *buf);
    else {
        free(buf);
        *slot = NULL;
    }
}

void empi_bsend_detach_at_end(empi_bsend_buffer_t **slot)
{
    if (!*slot)
        return;
    void *addr;
    MPI_Count size;
    empi_lock();
    empi_bsend_detach(slot, &addr, &size);
    empi_unlock();
}

empi_bsend_buffer_t **empi_bsend_process_slot(void)
{
    static empi_bsend_buffer_t *slot = &process_buffer;
    return &slot;
}

empi_bsend_buffer_t *empi_bsend_buffer_for(empi_comm_t *c)
{
    if (c && c->bsend_buffer && c->bsend_buffer->attached)
        return c->bsend_buffer;
    if (c && c->session && c->session->buffer && c->session->buffer->attached)
        return c->session->buffer;
    return &process_buffer;
}

static int attach(const char *fn, void *buffer, MPI_Count size)
{
    const char *why = NULL;
    empi_lock();
    int rc = empi_bsend_attach(empi_bsend_process_slot(), buffer, size, &why);
    empi_unlock();
    return rc == MPI_SUCCESS ? rc : empi_err_noobj(rc, "%s: %s", fn, why);
}

static int detach(const char *fn, void *buffer_addr, MPI_Count *size)
{
    EMPI_CHECK(empi_check_ptr(fn, NULL, buffer_addr, "buffer_addr"));
    EMPI_CHECK(empi_check_ptr(fn, NULL, size, "size"));
    empi_lock();
    empi_bsend_detach(empi_bsend_process_slot(), buffer_addr, size);
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Buffer_attach)
int PMPI_Buffer_attach(void *buffer, int size)
{
    return attach("MPI_Buffer_attach", buffer, size);
}

EMPI_WEAK_ALIAS(Buffer_attach_c)
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return attach("MPI_Buffer_attach_c", buffer, size);
}

EMPI_WEAK_ALIAS(Buffer_detach)
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = detach("MPI_Buffer_detach", buffer_addr, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = empi_int_or_undefined(n);
    return rc;
}

EMPI_WEAK_ALIAS(Buffer_detach_c)
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return detach("MPI_Buffer_detach_c", buffer_addr, size);
}

EMPI_WEAK_ALIAS(Buffer_flush)
int PMPI_Buffer_flush(void)
{
    empi_lock();
    empi_bsend_flush(&process_buffer);
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Buffer_iflush)
int PMPI_Buffer_iflush(MPI_Request *request)
{
    EMPI_CHECK(empi_check_ptr("MPI_Buffer_iflush", NULL, request, "request"));
    return empi_bsend_iflush("MPI_Buffer_iflush", &process_buffer, NULL, request);
}
