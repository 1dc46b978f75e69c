/* Node-aware hierarchy (coll_hier.c) as the hierarchical algorithms see it. */
#ifndef EMPI_COLL_HIER_H
#define EMPI_COLL_HIER_H

#include "coll/coll_algs.h"
#include "pt2pt/pt2pt.h"

struct empi_coll_hier {
    empi_comm_t *node;        /* my node's ranks, in comm order */
    empi_comm_t *leaders;     /* leaders of all nodes, in comm order (NULL if not a leader) */
    int *node_of;             /* comm rank -> node index (nodes numbered by lowest rank) */
    int *leader_of_node;      /* node index -> comm rank of its leader */
    int nnodes;
};

/* The hierarchy applies to this call (several hosts, more than one rank on some, commutative
   op): builds it on first use (collective) and returns 1 with *h set. */
int empi_hier_ready(const empi_coll_args_t *a, struct empi_coll_hier **h);

#endif
