/* Public bootstrap entry points: choose the back end once (mpiexec sets EMPI_RANK for every rank
 * it starts; a PMI-2 server, srun --mpi=pmi2 or Hydra, sets PMI_FD; without either we are a
 * singleton) and check arguments in one place so the back ends can trust them. */
#include "runtime/bootstrap.h"
#include "runtime/bootstrap_impl.h"
#include "runtime/bootstrap_kvs.h"
#include "runtime/procs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const empi_boot_ops_t *ops;
static int world_size;
static empi_boot_info_t self_info;

empi_boot_info_t *empi_boot_self_info(void);
empi_boot_info_t *empi_boot_self_info(void)
{
    return &self_info;
}

int empi_boot_init(empi_boot_info_t *info)
{
    if (ops) {
        fprintf(stderr, "empi bootstrap: initialized twice\n");
        return -1;
    }
    const empi_boot_ops_t *chosen = getenv("EMPI_RANK") ? &empi_boot_launcher_ops
                                    : getenv("PMI_FD")  ? &empi_boot_pmi_ops
                                                        : &empi_boot_singleton_ops;
    memset(info, 0, sizeof *info);
    if (chosen->init(info) != 0)
        return -1;
    ops = chosen;
    world_size = info->size;
    self_info = *info;
    return 0;
}

static int key_ok(const char *key)
{
    return key && key[0] && strlen(key) <= EMPI_BOOT_MAX_KEY;
}

int empi_boot_put(const char *key, const void *val, size_t len)
{
    if (!ops || !key_ok(key) || len > EMPI_BOOT_MAX_VALUE || (len && !val))
        return -1;
    return ops->put(key, val, len);
}

int empi_boot_get(int rank, const char *key, void *val, size_t maxlen, size_t *len)
{
    if (!ops || !key_ok(key) || rank < 0)
        return -1;
    size_t stored;
    /* Processes of other jobs carry one record, their tcp address (procs.h). */
    const void *bytes = rank < world_size        ? empi_kvs_lookup(rank, key, &stored)
                        : !strcmp(key, "tcp") ? empi_procs_record(rank, &stored)
                                              : NULL;
    if (!bytes && rank < world_size && ops->fetch && ops->fetch(rank, key) == 0)
        bytes = empi_kvs_lookup(rank, key, &stored);
    if (!bytes)
        return -1;
    /* Report the full size even when the caller's buffer is short, so it can retry. */
    if (len)
        *len = stored;
    if (stored > maxlen)
        return -1;
    if (stored)
        memcpy(val, bytes, stored);
    return 0;
}

static void (*fence_hook)(void);

void empi_boot_set_fence_hook(void (*hook)(void))
{
    fence_hook = hook;
}

void (*empi_boot_fence_hook(void))(void)
{
    return fence_hook;
}

int empi_boot_fence(void)
{
    return ops ? ops->fence() : -1;
}

void empi_boot_abort(int errorcode, const char *msg)
{
    if (ops)
        ops->abort(errorcode, msg ? msg : "");
    /* Not initialized (or the back end returned): there is no launcher to ask. */
    fprintf(stderr, "MPI_Abort(%d): %s\n", errorcode, msg ? msg : "");
    _exit(empi_boot_abort_status(errorcode));
}

int empi_boot_finalize(void)
{
    if (!ops)
        return -1;
    int rc = ops->finalize();
    empi_kvs_clear();
    empi_procs_finalize();
    ops = NULL;
    return rc;
}

int empi_boot_node_of(int rank)
{
    if (!ops || rank < 0)
        return -1;
    return rank < world_size ? ops->node_of(rank) : empi_procs_node(rank);
}
