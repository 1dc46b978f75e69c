/* Internal entry points behind the collective PMPI_ functions (coll_api.c). */
#ifndef EMPI_COLL_API_H
#define EMPI_COLL_API_H

#include "coll/coll.h"

enum { EMPI_COLL_BLOCKING = 0, EMPI_COLL_NONBLOCKING = 1, EMPI_COLL_PERSISTENT = 2 };

int empi_coll_barrier(const char *fn, MPI_Comm comm, int mode, MPI_Request *request);
int empi_coll_bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm, int mode,
                    MPI_Request *request);
int empi_coll_red(const char *fn, int coll, const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                  int root, MPI_Comm comm, int mode, MPI_Request *request);
int empi_coll_reduce_scatter(const char *fn, const void *sbuf, void *rbuf, const int *ci, const MPI_Count *cc,
                             MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int mode, MPI_Request *request);
int empi_coll_gather(const char *fn, int coll, const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm, int mode, MPI_Request *request);
int empi_coll_gatherv(const char *fn, int coll, const void *sbuf, MPI_Count scount, const int *sci,
                      const MPI_Count *scc, const int *sdi, const MPI_Aint *sdc, MPI_Datatype sdt, void *rbuf,
                      MPI_Count rcount, const int *rci, const MPI_Count *rcc, const int *rdi, const MPI_Aint *rdc,
                      MPI_Datatype rdt, int root, MPI_Comm comm, int mode, MPI_Request *request);
int empi_coll_alltoallv(const char *fn, int coll, const void *sbuf, const int *sci, const MPI_Count *scc,
                        const int *sdi, const MPI_Aint *sdc, MPI_Datatype sdt, const MPI_Datatype *sdts, void *rbuf,
                        const int *rci, const MPI_Count *rcc, const int *rdi, const MPI_Aint *rdc, MPI_Datatype rdt,
                        const MPI_Datatype *rdts, MPI_Comm comm, int mode, MPI_Request *request);

#endif
