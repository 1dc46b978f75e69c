/*
 * Point-to-point inside the library: the API layer and the collective, RMA and communicator code
 * all send through these. They return an MPI error class (MPI_SUCCESS on success) and never raise;
 * raising with a message is the API layer's job. `ctx` selects the context: comm->context_id for
 * user traffic, EMPI_COLL_CONTEXT(comm) for the library's own.
 */
#ifndef EMPI_PT2PT_H
#define EMPI_PT2PT_H

#include <sys/uio.h>

#include "pt2pt/request.h"

int empi_pt2pt_init(void);
/* Processes of other jobs joined: indices [0, total) become reachable (runtime/procs.h). */
int empi_pt2pt_add_peers(int total);
/* Copy `len` bytes at `remote` in world_peer's address space into `local` (the transport's get:
   CMA on one node). 0, or -1 where this pair cannot. */
int empi_pt2pt_read(int world_peer, void *local, const void *remote, size_t len);
/* 1 when the transport to world_peer reads and writes its memory at every size (empi_pt2pt_read
   and _write may work): on one host where CMA is in use without a smallest size, a setting every
   process of the host shares. */
int empi_pt2pt_can_read(int world_peer);
/* Its other direction (the transport's put): `len` bytes at `local` to `remote` in world_peer. */
int empi_pt2pt_write(int world_peer, const void *local, void *remote, size_t len);
void empi_pt2pt_finalize(void);

int empi_isend(const void *buf, MPI_Count count, empi_datatype_t *dt, int dest, int tag,
               empi_comm_t *comm, uint32_t ctx, empi_send_mode_t mode, empi_request_t **req);
int empi_irecv(void *buf, MPI_Count count, empi_datatype_t *dt, int source, int tag,
               empi_comm_t *comm, uint32_t ctx, empi_request_t **req);

/* Blocking forms for library-internal use (collectives, communicator creation). */
int empi_send(const void *buf, MPI_Count count, empi_datatype_t *dt, int dest, int tag,
              empi_comm_t *comm, uint32_t ctx);
int empi_recv(void *buf, MPI_Count count, empi_datatype_t *dt, int source, int tag,
              empi_comm_t *comm, uint32_t ctx, MPI_Status *status);
int empi_sendrecv(const void *sbuf, MPI_Count scount, empi_datatype_t *sdt, int dest, int stag,
                  void *rbuf, MPI_Count rcount, empi_datatype_t *rdt, int source, int rtag,
                  empi_comm_t *comm, uint32_t ctx, MPI_Status *status);

/* A message from `source` with `tag` on context ctx waits in the unexpected queue (no progress). */
int empi_message_arrived(int source, int tag, uint32_t ctx);

/* Wait for an internal request and release it; returns its status error (MPI_SUCCESS usually). */
int empi_wait_release(empi_request_t *req, MPI_Status *status);
int empi_waitall_release(int n, empi_request_t **reqs);

/*
 * Raw packets for the active messages of layers above (RMA). A packet whose first byte is
 * EMPI_PKT_RMA goes to empi_pt2pt_rma_handler, inside the transport's progress (so the handler
 * must not wait; it may send). empi_pt2pt_packet_send returns EMPI_OK, or EMPI_AGAIN when the
 * transport has no room (the caller queues and retries after progress), in FIFO order per peer.
 */
extern void (*empi_pt2pt_rma_handler)(int src, const void *pkt, size_t len);
int empi_pt2pt_packet_send(int world_peer, const struct iovec *iov, int iovcnt);
size_t empi_pt2pt_packet_max(int world_peer);

/* The predefined byte datatype, for internal transfers of raw bytes. */
extern empi_datatype_t *empi_byte_type;

#endif
