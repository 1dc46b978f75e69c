/*
 * Exscan, recursive doubling: the scan's exchange pattern, the own contribution left out of the
 * result (rank 0's receive buffer is untouched, as the standard leaves it undefined).
 * Cost: ceil(log2 p) (alpha + n beta + 2 n gamma).
 */
#include "coll/coll_algs.h"

int empi_scan_rd_build(empi_sched_t *s, const empi_coll_args_t *a, int exclusive);

EMPI_ALG(empi_exscan_recursive_doubling)
{
    return empi_scan_rd_build(s, a, 1);
}
