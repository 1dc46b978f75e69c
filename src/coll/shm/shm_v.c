/*
 * The root's side of a blocking gatherv or scatterv in shared memory (gather/gatherv_shm.c,
 * scatter/scatterv_shm.c): the point-to-point messages of the large blocks are posted first, so
 * that they move while the root waits for the small ones in the segment.
 */
#include <stdlib.h>

#include "coll/shm/coll_shm.h"

int empi_shm_v_root(const empi_coll_args_t *a, empi_shm_op_t *o, MPI_Count (*bytes)(const empi_coll_args_t *, int),
                    int (*start)(const empi_coll_args_t *, int, empi_request_t **))
{
    enum { FEW = 16 };
    empi_request_t *few[FEW], **reqs = few;
    int n = 0, p = a->comm->size;
    for (int i = 0; i < p; i++)
        n += i != a->root && empi_shm_v_big(bytes(a, i));
    if (n > FEW && !(reqs = malloc((size_t)n * sizeof *reqs)))
        return MPI_ERR_NO_MEM;
    int started = 0, err = MPI_SUCCESS;
    for (int i = 0; i < p && err == MPI_SUCCESS; i++)
        if (i != a->root && empi_shm_v_big(bytes(a, i)) && (err = start(a, i, &reqs[started])) == MPI_SUCCESS)
            started++;
    /* the epoch is run even after a failed start, so that the others' epochs stay in step */
    int rc = empi_shm_run_direct(o);
    int waited = empi_waitall_release(started, reqs);
    if (reqs != few)
        free(reqs);
    return err != MPI_SUCCESS ? err : rc != MPI_SUCCESS ? rc : waited;
}
