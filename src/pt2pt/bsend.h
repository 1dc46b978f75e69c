/* Buffered sends: the message is copied into the user-attached buffer and sent from there. */
#ifndef EMPI_BSEND_H
#define EMPI_BSEND_H

#include "pt2pt/request.h"

#include "comm/comm.h"

/* One attached buffer: the process's, a communicator's or a session's (bsend.c). */
typedef struct empi_bsend_buffer empi_bsend_buffer_t;

/* The buffer a buffered send on c uses: c's, else its session's, else the process's. */
empi_bsend_buffer_t *empi_bsend_buffer_for(empi_comm_t *c);

/* Attach into *slot (allocated on first use; on failure return the class and set *why) / detach
   from it after flushing (NULL and 0 when nothing is attached). The process buffer's slot is
   empi_bsend_process_slot(). */
int empi_bsend_attach(empi_bsend_buffer_t **slot, void *buffer, MPI_Count size, const char **why);
void empi_bsend_detach(empi_bsend_buffer_t **slot, void *buffer_addr, MPI_Count *size);
/* Detach when the buffer's owner ends (MPI_Comm_free, MPI_Session_finalize), once its messages have
   left; takes the library lock. Nothing when nothing is attached. */
void empi_bsend_detach_at_end(empi_bsend_buffer_t **slot);
empi_bsend_buffer_t **empi_bsend_process_slot(void);

/* Has every message buffered in buf left it (NULL: nothing attached)? Wait until it has. */
int empi_bsend_flushed(empi_bsend_buffer_t *buf);
void empi_bsend_flush(empi_bsend_buffer_t *buf);
/* A request that completes once buf is flushed (bsend_api.c); raises on c (NULL: no object). */
int empi_bsend_iflush(const char *fn, empi_bsend_buffer_t *buf, empi_comm_t *c, MPI_Request *request);

/* Start a persistent MPI_Bsend_init request: copy now, send from the copy. */
int empi_bsend_start_persistent(const char *fn, empi_request_t *req);

#endif
