/* Buffered sends: the message is copied into the user-attached buffer and sent from there. */
#ifndef EMPI_BSEND_H
#define EMPI_BSEND_H

#include "pt2pt/request.h"

/* Start a persistent MPI_Bsend_init request: copy now, send from the copy. */
int empi_bsend_start_persistent(const char *fn, empi_request_t *req);

#endif
