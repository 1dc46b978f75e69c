/*
 * Internal entry points behind the neighborhood collective PMPI_ functions (neighbor_api.c; the
 * PMPI_ wrappers are generated into neighbor_api_gen.c). Count and displacement arrays come as an
 * (int, MPI_Count/MPI_Aint) pair of which exactly one is non-NULL, as in coll_api.h.
 */
#ifndef EMPI_NEIGHBOR_API_H
#define EMPI_NEIGHBOR_API_H

#include "coll/coll_api.h"

/* allgather (one send block for all) and alltoall (one per neighbor): blocks of one count and type */
enum { EMPI_NEIGHBOR_ALLGATHER, EMPI_NEIGHBOR_ALLTOALL };
int empi_neighbor_uniform(const char *fn, int which, const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                          MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm, int mode, MPI_Request *request);
int empi_neighbor_allgatherv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                             const int *rci, const MPI_Count *rcc, const int *rdi, const MPI_Aint *rdc,
                             MPI_Datatype rdt, MPI_Comm comm, int mode, MPI_Request *request);
int empi_neighbor_alltoallv(const char *fn, const void *sbuf, const int *sci, const MPI_Count *scc, const int *sdi,
                            const MPI_Aint *sdc, MPI_Datatype sdt, void *rbuf, const int *rci, const MPI_Count *rcc,
                            const int *rdi, const MPI_Aint *rdc, MPI_Datatype rdt, MPI_Comm comm, int mode,
                            MPI_Request *request);
/* Displacements in bytes, one datatype per block. */
int empi_neighbor_alltoallw(const char *fn, const void *sbuf, const int *sci, const MPI_Count *scc,
                            const MPI_Aint *sdispls, const MPI_Datatype *sdts, void *rbuf, const int *rci,
                            const MPI_Count *rcc, const MPI_Aint *rdispls, const MPI_Datatype *rdts, MPI_Comm comm,
                            int mode, MPI_Request *request);

#endif
