/* The bootstrap back ends behind the public empi_boot_* calls: our launcher's, a PMI-2 server's
 * (srun, Hydra) and the singleton's. bootstrap.c picks one at init; empi_boot_get is shared (all
 * fill the bootstrap_kvs cache; `fetch`, where there is one, fills a miss from the server). */
#ifndef EMPI_RUNTIME_BOOTSTRAP_IMPL_H
#define EMPI_RUNTIME_BOOTSTRAP_IMPL_H

#include "runtime/bootstrap.h"

typedef struct empi_boot_ops {
    int (*init)(empi_boot_info_t *info);
    int (*put)(const char *key, const void *val, size_t len);
    int (*fence)(void);
    void (*abort)(int errorcode, const char *msg);
    int (*finalize)(void);
    int (*node_of)(int rank);
    int (*fetch)(int rank, const char *key); /* NULL: the cache has all there is */
} empi_boot_ops_t;

extern const empi_boot_ops_t empi_boot_launcher_ops;
extern const empi_boot_ops_t empi_boot_pmi_ops;
extern const empi_boot_ops_t empi_boot_singleton_ops;

/* Exit status for an abort: the code's low byte; 0 only for the code 0 (MPI_Abort(comm, 0) stops a
   job that is done, as in MPICH and Open MPI), never for another code. */
static inline int empi_boot_abort_status(int errorcode)
{
    int status = errorcode & 0xff;
    return status || errorcode == 0 ? status : 1;
}

#endif
