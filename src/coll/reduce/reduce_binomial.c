/*
 * Reduce, binomial tree: every rank folds its children's partial results (in rank order) into
 * its own and sends the result to its parent. Non-commutative ops run the tree rooted at rank 0,
 * where relative order is rank order, and forward the result to the root.
 * Cost: ceil(log2 p) * (alpha + n beta + n gamma).
 */
#include "coll/coll_algs.h"

EMPI_ALG(empi_reduce_binomial)
{
    const void *in = a->in_place ? a->rbuf : a->sbuf;
    return empi_build_reduce_binomial(s, in, a->rbuf, a->rcount, a->rdt, a->op, a->root);
}
