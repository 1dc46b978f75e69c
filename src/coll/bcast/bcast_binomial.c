/*
 * Bcast, binomial tree: the root sends to relative ranks 2^k, each receiver forwards down its
 * subtree. Best for small messages.
 * Cost: ceil(log2 p) * (alpha + n beta).
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_bcast_binomial)
{
    return empi_build_bcast_binomial(s, a->rbuf, a->rcount, a->rdt, a->root);
}
