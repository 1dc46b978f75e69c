/*
 * Algorithm registry and selection.
 *
 * Every algorithm is registered here by collective and NAME with its restrictions. A call picks
 * its algorithm in this order:
 *   1. EMPI_<COLL>_ALGORITHM=<name> forces one (e.g. EMPI_ALLREDUCE_ALGORITHM=ring);
 *   2. otherwise the first rule of the tuning table matching (collective, communicator size,
 *      ranks per node, message bytes, ranks per CPU) names one (built-in table, or EMPI_TUNING_FILE);
 *   3. a choice whose restriction the call does not meet (non-commutative op, size not a power of
 *      two, several nodes, nonblocking form of a blocking-only algorithm...) falls back to the
 *      collective's first registered algorithm that fits, which is always a safe general one.
 * A forced algorithm that has to fall back warns once per collective.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_algs.h"
#include "coll/shm/coll_shm.h"
#include "core/global.h"
#include "core/tunables.h"
#include "pt2pt/pt2pt.h"
#include "runtime/bootstrap.h"

/* First entry of each collective must be safe for every call (no restrictions). */
static const empi_coll_alg_t registry[] = {
    {EMPI_COLL_BARRIER, "dissemination", 0, empi_barrier_dissemination,
     "ceil(log2 p) rounds of zero-byte messages to rank+2^k"},
    {EMPI_COLL_BARRIER, "shm", EMPI_ALG_SINGLE_NODE, empi_barrier_shm,
     "flags in a node-wide shared segment", empi_barrier_shm_fast},
    {EMPI_COLL_BARRIER, "shm_release", EMPI_ALG_SINGLE_NODE, empi_barrier_shm_release,
     "flags in a node-wide shared segment, rank 0 waits for all and releases the others (it leaves first)",
     empi_barrier_shm_release_fast},

    {EMPI_COLL_BARRIER, "hier", EMPI_ALG_MULTI_NODE | EMPI_ALG_BLOCKING, empi_barrier_hier,
     "node barrier, barrier among node leaders, node barrier", empi_barrier_hier_fast},

    {EMPI_COLL_BCAST, "binomial", 0, empi_bcast_binomial, "binomial tree from the root"},
    {EMPI_COLL_BCAST, "scatter_allgather", 0, empi_bcast_scatter_allgather,
     "binomial scatter of the message then ring allgather (van de Geijn)"},
    {EMPI_COLL_BCAST, "chain", 0, empi_bcast_chain, "pipelined chain in segments"},
    {EMPI_COLL_BCAST, "shm", EMPI_ALG_SINGLE_NODE, empi_bcast_shm,
     "root copies into a node-wide shared buffer, the others copy out", empi_bcast_shm_fast},
    {EMPI_COLL_BCAST, "shm_cma", EMPI_ALG_SINGLE_NODE, empi_bcast_shm_cma,
     "every rank reads the buffer straight from the root's (CMA; else shm)"},

    {EMPI_COLL_BCAST, "hier", EMPI_ALG_MULTI_NODE | EMPI_ALG_BLOCKING, empi_bcast_hier,
     "root to its node leader, bcast among leaders, node bcast", empi_bcast_hier_fast},

    {EMPI_COLL_REDUCE, "binomial", 0, empi_reduce_binomial,
     "binomial tree (rooted at 0 then forwarded for non-commutative ops)"},
    {EMPI_COLL_REDUCE, "reduce_scatter_gather", EMPI_ALG_COMMUTATIVE, empi_reduce_rsag,
     "recursive-halving reduce-scatter then binomial gather (Rabenseifner)"},
    {EMPI_COLL_REDUCE, "shm", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_reduce_shm,
     "ranks reduce disjoint slices in a node-wide shared buffer", empi_reduce_shm_fast},
    {EMPI_COLL_REDUCE, "shm_cma", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_reduce_shm_cma,
     "each rank reduces its slice reading the others' buffers directly (CMA), the root reads the slices (else shm)",
     empi_reduce_shm_cma_fast},
    {EMPI_COLL_REDUCE, "shm_cma_root", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_reduce_shm_cma_root,
     "the root reads every rank's buffer directly (CMA) and folds them alone (else shm)",
     empi_reduce_shm_cma_root_fast},

    {EMPI_COLL_REDUCE, "hier", EMPI_ALG_MULTI_NODE | EMPI_ALG_BLOCKING | EMPI_ALG_COMMUTATIVE, empi_reduce_hier,
     "node reduce to leaders, reduce among leaders, forward to the root", empi_reduce_hier_fast},

    {EMPI_COLL_ALLREDUCE, "recursive_doubling", 0, empi_allreduce_recursive_doubling,
     "log2 p exchanges of the whole vector (order kept for non-commutative ops)"},
    {EMPI_COLL_ALLREDUCE, "reduce_bcast", 0, empi_allreduce_reduce_bcast, "binomial reduce then binomial bcast"},
    {EMPI_COLL_ALLREDUCE, "rabenseifner", EMPI_ALG_COMMUTATIVE, empi_allreduce_rabenseifner,
     "recursive-halving reduce-scatter then recursive-doubling allgather"},
    {EMPI_COLL_ALLREDUCE, "ring", EMPI_ALG_COMMUTATIVE, empi_allreduce_ring,
     "ring reduce-scatter then ring allgather, p-1 steps each"},
    {EMPI_COLL_ALLREDUCE, "shm", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_allreduce_shm,
     "copy in, reduce disjoint slices in parallel in a node-wide shared buffer, copy out",
     empi_allreduce_shm_fast},
    {EMPI_COLL_ALLREDUCE, "shm_cma", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_allreduce_shm_cma,
     "each rank reduces its slice reading the others' buffers directly (CMA), then reads the other "
     "slices (else shm)", empi_allreduce_shm_cma_fast},
    {EMPI_COLL_ALLREDUCE, "shm_cma_each", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE | EMPI_ALG_NOT_IN_PLACE,
     empi_allreduce_shm_cma_each,
     "every rank reads every other buffer directly (CMA) and folds the whole vector (else shm)",
     empi_allreduce_shm_cma_each_fast},

    {EMPI_COLL_ALLREDUCE, "hier", EMPI_ALG_MULTI_NODE | EMPI_ALG_BLOCKING | EMPI_ALG_COMMUTATIVE,
     empi_allreduce_hier, "node reduce to leaders, allreduce among leaders, node bcast", empi_allreduce_hier_fast},

    {EMPI_COLL_GATHER, "linear", 0, empi_gather_linear, "root receives from every rank"},
    {EMPI_COLL_GATHER, "binomial", 0, empi_gather_binomial, "binomial tree, subtrees forward packed blocks"},
    {EMPI_COLL_GATHER, "shm", EMPI_ALG_SINGLE_NODE, empi_gather_shm,
     "every rank copies its block into a node-wide shared buffer, the root copies them out", empi_gather_shm_fast},
    {EMPI_COLL_GATHER, "shm_cma", EMPI_ALG_SINGLE_NODE, empi_gather_shm_cma,
     "every rank writes its block straight into the root's buffer (CMA; else shm)"},
    {EMPI_COLL_GATHERV, "linear", 0, empi_gatherv_linear, "root receives from every rank"},
    {EMPI_COLL_GATHERV, "shm", EMPI_ALG_SINGLE_NODE, empi_gatherv_shm,
     "blocks up to 16 KiB through a node-wide shared buffer, 8-256 KiB read straight from the holder (CMA), "
     "larger ones as messages", empi_gatherv_shm_fast},
    {EMPI_COLL_SCATTER, "linear", 0, empi_scatter_linear, "root sends to every rank"},
    {EMPI_COLL_SCATTER, "binomial", 0, empi_scatter_binomial, "binomial tree, subtrees get packed blocks"},
    {EMPI_COLL_SCATTER, "shm", EMPI_ALG_SINGLE_NODE, empi_scatter_shm,
     "the root copies the blocks into a node-wide shared buffer, every rank copies its own out",
     empi_scatter_shm_fast},
    {EMPI_COLL_SCATTER, "shm_cma", EMPI_ALG_SINGLE_NODE, empi_scatter_shm_cma,
     "every rank reads its block straight from the root's send buffer (CMA; else shm)"},
    {EMPI_COLL_SCATTERV, "linear", 0, empi_scatterv_linear, "root sends to every rank"},
    {EMPI_COLL_SCATTERV, "shm", EMPI_ALG_SINGLE_NODE, empi_scatterv_shm,
     "blocks up to 2 KiB through a node-wide shared buffer, larger ones as messages", empi_scatterv_shm_fast},

    {EMPI_COLL_ALLGATHER, "ring", 0, empi_allgather_ring, "p-1 steps passing blocks around a ring"},
    {EMPI_COLL_ALLGATHER, "recursive_doubling", EMPI_ALG_POW2, empi_allgather_recursive_doubling,
     "log2 p exchanges of doubling size"},
    {EMPI_COLL_ALLGATHER, "bruck", 0, empi_allgather_bruck, "ceil(log2 p) steps, any p, final rotation"},
    {EMPI_COLL_ALLGATHER, "shm", EMPI_ALG_SINGLE_NODE, empi_allgather_shm,
     "every rank copies its block into a node-wide shared buffer, then all blocks out"},
    {EMPI_COLL_ALLGATHER, "shm_cma", EMPI_ALG_SINGLE_NODE, empi_allgather_shm_cma,
     "every rank reads every other block straight from its owner's buffer (CMA; else shm)"},
    {EMPI_COLL_ALLGATHERV, "ring", 0, empi_allgatherv_ring, "p-1 steps passing blocks around a ring"},
    {EMPI_COLL_ALLGATHERV, "shm", EMPI_ALG_SINGLE_NODE, empi_allgatherv_shm,
     "every rank copies its block into a node-wide shared buffer, then all blocks out"},
    {EMPI_COLL_ALLGATHERV, "shm_cma", EMPI_ALG_SINGLE_NODE, empi_allgatherv_shm_cma,
     "every rank reads every other block straight from its owner's buffer (CMA; else shm)"},

    {EMPI_COLL_ALLTOALL, "pairwise", 0, empi_alltoall_pairwise, "p-1 steps exchanging with rank+-k"},
    {EMPI_COLL_ALLTOALL, "linear", 0, empi_alltoall_linear, "all sends and receives posted at once"},
    {EMPI_COLL_ALLTOALL, "bruck", 0, empi_alltoall_bruck, "ceil(log2 p) steps of packed blocks (small messages)"},
    {EMPI_COLL_ALLTOALL, "shm", EMPI_ALG_SINGLE_NODE, empi_alltoall_shm,
     "every rank copies its blocks into a node-wide shared buffer, then out"},
    {EMPI_COLL_ALLTOALL, "shm_cma", EMPI_ALG_SINGLE_NODE, empi_alltoall_shm_cma,
     "every rank reads its block straight from every other rank's send buffer (CMA; else shm)"},
    {EMPI_COLL_ALLTOALLV, "pairwise", 0, empi_alltoallv_pairwise, "p-1 steps exchanging with rank+-k"},
    {EMPI_COLL_ALLTOALLV, "linear", 0, empi_alltoallv_linear, "all sends and receives posted at once"},
    {EMPI_COLL_ALLTOALLV, "shm", EMPI_ALG_SINGLE_NODE | EMPI_ALG_BLOCKING, empi_alltoallv_shm,
     "blocks through a node-wide shared buffer where they fit (with CMA up to 16 KiB), larger ones read "
     "from the sender's buffer (CMA) or in pieces through the shared buffer"},
    {EMPI_COLL_ALLTOALLW, "pairwise", 0, empi_alltoallw_pairwise, "p-1 steps exchanging with rank+-k"},
    {EMPI_COLL_ALLTOALLW, "linear", 0, empi_alltoallw_linear, "all sends and receives posted at once"},

    {EMPI_COLL_REDUCE_SCATTER, "reduce_scatterv", 0, empi_reduce_scatter_reduce_scatterv,
     "binomial reduce to rank 0 then scatterv"},
    {EMPI_COLL_REDUCE_SCATTER, "pairwise", EMPI_ALG_COMMUTATIVE, empi_reduce_scatter_pairwise,
     "p-1 steps: send each rank its block, reduce what arrives"},
    {EMPI_COLL_REDUCE_SCATTER, "shm", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_reduce_scatter_shm,
     "every rank copies its vector into a node-wide shared buffer and folds its own block from all"},
    {EMPI_COLL_REDUCE_SCATTER, "shm_cma", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_reduce_scatter_shm_cma,
     "every rank folds its block reading the others' vectors directly (CMA; else shm)"},
    {EMPI_COLL_REDUCE_SCATTER_BLOCK, "reduce_scatterv", 0, empi_reduce_scatter_reduce_scatterv,
     "binomial reduce to rank 0 then scatter"},
    {EMPI_COLL_REDUCE_SCATTER_BLOCK, "pairwise", EMPI_ALG_COMMUTATIVE, empi_reduce_scatter_pairwise,
     "p-1 steps: send each rank its block, reduce what arrives"},
    {EMPI_COLL_REDUCE_SCATTER_BLOCK, "shm", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_reduce_scatter_shm,
     "every rank copies its vector into a node-wide shared buffer and folds its own block from all"},
    {EMPI_COLL_REDUCE_SCATTER_BLOCK, "shm_cma", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE,
     empi_reduce_scatter_shm_cma,
     "every rank folds its block reading the others' vectors directly (CMA; else shm)"},

    {EMPI_COLL_SCAN, "recursive_doubling", 0, empi_scan_recursive_doubling,
     "log2 p exchanges, partial results kept in rank order"},
    {EMPI_COLL_SCAN, "linear", 0, empi_scan_linear, "chain: receive prefix from rank-1, send to rank+1",
     empi_scan_linear_fast},
    {EMPI_COLL_SCAN, "shm_cma", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_scan_shm_cma,
     "each rank folds the lower ranks' inputs read straight from their buffers (CMA; else linear)"},
    {EMPI_COLL_SCAN, "shm", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_scan_shm,
     "every rank copies its input into a node-wide shared buffer and folds the lower ranks' itself",
     empi_scan_shm_fast},
    {EMPI_COLL_EXSCAN, "recursive_doubling", 0, empi_exscan_recursive_doubling,
     "log2 p exchanges, partial results kept in rank order"},
    {EMPI_COLL_EXSCAN, "linear", 0, empi_exscan_linear, "chain: receive prefix from rank-1, send to rank+1",
     empi_exscan_linear_fast},
    {EMPI_COLL_EXSCAN, "shm_cma", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_exscan_shm_cma,
     "each rank folds the lower ranks' inputs read straight from their buffers (CMA; else linear)"},
    {EMPI_COLL_EXSCAN, "shm", EMPI_ALG_SINGLE_NODE | EMPI_ALG_OP_PER_PIECE, empi_exscan_shm,
     "every rank copies its input into a node-wide shared buffer and folds the lower ranks' itself",
     empi_exscan_shm_fast},
};

#define NREG ((int)(sizeof registry / sizeof registry[0]))

static const empi_coll_alg_t *find_alg(int coll, const char *name)
{
    for (int i = 0; i < NREG; i++)
        if (registry[i].coll == coll && strcmp(registry[i].name, name) == 0)
            return &registry[i];
    return NULL;
}

static void restrictions_text(unsigned f, char *buf, size_t len)
{
    static const struct { unsigned bit; const char *text; } names[] = {
        {EMPI_ALG_COMMUTATIVE, "commutative op"}, {EMPI_ALG_POW2, "power-of-two size"},
        {EMPI_ALG_SINGLE_NODE, "single node"},     {EMPI_ALG_CONTIG, "contiguous types"},
        {EMPI_ALG_BLOCKING, "blocking only"},      {EMPI_ALG_COUNT_GE_P, "count >= size"},
        {EMPI_ALG_BUILTIN_OP, "predefined op"},  {EMPI_ALG_MULTI_NODE, "several nodes"},
        {EMPI_ALG_OP_PER_PIECE, "a predefined op, or a message of at most EMPI_COLL_USER_OP_PIECES data slots"},
        {EMPI_ALG_NO_SEGMENT, "a blocking collective on the communicator first (it sets up the shared segment)"},
        {EMPI_ALG_NOT_IN_PLACE, "not in place"},
    };
    buf[0] = 0;
    size_t used = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (f & names[i].bit)
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? ", " : "",
                                     names[i].text);
    if (!used)
        snprintf(buf, len, "none");
}

/* For empi-info: every algorithm of the registry with its restrictions and description. */
__attribute__((visibility("default"))) int
empi_info_coll_algorithms(void (*cb)(const char *coll, const char *alg, const char *restrictions, const char *desc))
{
    char text[160];
    for (int i = 0; i < NREG; i++) {
        restrictions_text(registry[i].restrict_flags, text, sizeof text);
        if (cb)
            cb(empi_coll_name(registry[i].coll), registry[i].name, text, registry[i].desc);
    }
    return NREG;
}

long long empi_coll_msg_bytes(const empi_coll_args_t *a)
{
    empi_comm_t *c = a->comm;
    switch (a->coll) {
    case EMPI_COLL_BCAST: case EMPI_COLL_REDUCE: case EMPI_COLL_ALLREDUCE: case EMPI_COLL_SCAN:
    case EMPI_COLL_EXSCAN: case EMPI_COLL_ALLTOALL: case EMPI_COLL_REDUCE_SCATTER_BLOCK:
        return (long long)(a->rcount * a->rdt->size);
    case EMPI_COLL_GATHER:
        return c->rank == a->root ? (long long)(a->rcount * a->rdt->size) : (long long)(a->scount * a->sdt->size);
    case EMPI_COLL_SCATTER:
        return c->rank == a->root ? (long long)(a->scount * a->sdt->size) : (long long)(a->rcount * a->rdt->size);
    case EMPI_COLL_ALLGATHER:
        return a->in_place ? (long long)(a->rcount * a->rdt->size) : (long long)(a->scount * a->sdt->size);
    case EMPI_COLL_ALLTOALLV:
        /* Between two ranks each knows both blocks that cross (the one it sends, the one it
           receives), so their larger one is the same number on both; with more, nobody knows. */
        if (c->size == 2 && !empi_comm_is_inter(c)) {
            int peer = 1 - c->rank;
            long long in = (long long)(a->rcounts[peer] * a->rdt->size);
            long long out = a->scounts ? (long long)(a->scounts[peer] * a->sdt->size) : in;   /* in place: the same */
            return out > in ? out : in;
        }
        return 0;
    case EMPI_COLL_REDUCE_SCATTER: case EMPI_COLL_ALLGATHERV: {
        /* every rank receives the same data: the same total everywhere */
        long long t = 0;
        for (int i = 0; i < c->size; i++)
            t += a->rcounts[i];
        t *= a->rdt->size;
        return a->coll == EMPI_COLL_ALLGATHERV ? t / c->size : t;
    }
    default:
        return 0;
    }
}

/* A user op's cost per call is unknown (an interpreter's, a sleep): a shared-memory reduction would
   call it (p-1) times per slot-sized piece. The slot size is computed locally so that every rank,
   with the same environment, decides the same before the segment exists. */
static int too_many_pieces(const empi_coll_args_t *a)
{
    long long limit = (long long)empi_tunables.coll_user_op_pieces *
                      (long long)empi_coll_shm_slot_wanted(a->comm->size);
    return empi_coll_msg_bytes(a) > limit;
}

unsigned empi_coll_alg_violates(const empi_coll_alg_t *alg, const empi_coll_args_t *a, int blocking)
{
    unsigned f = alg->restrict_flags, bad = 0;
    if ((f & EMPI_ALG_COMMUTATIVE) && a->op && !a->op->commutative)
        bad |= EMPI_ALG_COMMUTATIVE;
    if ((f & EMPI_ALG_BUILTIN_OP) && a->op && !a->op->predefined)
        bad |= EMPI_ALG_BUILTIN_OP;
    if ((f & EMPI_ALG_OP_PER_PIECE) && a->op && !a->op->predefined && too_many_pieces(a))
        bad |= EMPI_ALG_OP_PER_PIECE;
    if (f & EMPI_ALG_MULTI_NODE) {
        empi_coll_comm_t *cc = empi_coll_comm(a->comm);
        if (!cc || cc->single_node || cc->max_ppn < 2 || cc->hier_failed || (!blocking && !cc->hier))
            bad |= EMPI_ALG_MULTI_NODE;
    }
    if ((f & EMPI_ALG_NOT_IN_PLACE) && a->in_place)
        bad |= EMPI_ALG_NOT_IN_PLACE;
    if ((f & EMPI_ALG_POW2) && !empi_coll_is_pow2(a->comm->size))
        bad |= EMPI_ALG_POW2;
    if (f & EMPI_ALG_SINGLE_NODE) {
        empi_coll_comm_t *cc = empi_coll_comm(a->comm);
        if (!cc || !cc->single_node || cc->shm_failed)
            bad |= EMPI_ALG_SINGLE_NODE;
        /* the segment is set up collectively inside the first blocking call that wants it;
           nonblocking calls (which must not block) use it only once it exists */
        else if (!blocking && !cc->shm)
            bad |= EMPI_ALG_NO_SEGMENT;
    }
    if ((f & EMPI_ALG_CONTIG) && ((a->rdt && !a->rdt->is_contig) || (a->sdt && !a->sdt->is_contig)))
        bad |= EMPI_ALG_CONTIG;
    if ((f & EMPI_ALG_BLOCKING) && !blocking)
        bad |= EMPI_ALG_BLOCKING;
    if ((f & EMPI_ALG_COUNT_GE_P) && a->rcount < a->comm->size)
        bad |= EMPI_ALG_COUNT_GE_P;
    return bad;
}

/* ---------------------------------------------------------------- configuration */

static int config_done;
static empi_tune_table_t table;
static const empi_coll_alg_t *forced[EMPI_COLL_COUNT];
static int forced_warned[EMPI_COLL_COUNT];
static unsigned select_gen = 1;   /* bumped when forcing changes: invalidates selection caches */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
        len += got;
        if (cap - len - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = 0;
    return buf;
}

/* The EMPI_<COLL>_ALGORITHM tunables, in the order of the collective enumeration. */
static const char *const *const forced_tunable[EMPI_COLL_COUNT] = {
    &empi_tunables.barrier_algorithm,        &empi_tunables.bcast_algorithm,
    &empi_tunables.reduce_algorithm,         &empi_tunables.allreduce_algorithm,
    &empi_tunables.gather_algorithm,         &empi_tunables.gatherv_algorithm,
    &empi_tunables.scatter_algorithm,        &empi_tunables.scatterv_algorithm,
    &empi_tunables.allgather_algorithm,      &empi_tunables.allgatherv_algorithm,
    &empi_tunables.alltoall_algorithm,       &empi_tunables.alltoallv_algorithm,
    &empi_tunables.alltoallw_algorithm,      &empi_tunables.reduce_scatter_algorithm,
    &empi_tunables.reduce_scatter_block_algorithm, &empi_tunables.scan_algorithm,
    &empi_tunables.exscan_algorithm,
};

static void configure(void)
{
    config_done = 1;
    char err[200];
    const char *path = empi_tunables.tuning_file;
    int loaded = 0;
    if (path && *path) {
        char *text = read_file(path);
        if (!text) {
            if (empi_g.boot.rank == 0)
                fprintf(stderr, "EtherMPI warning: EMPI_TUNING_FILE=%s cannot be read; using the built-in table\n",
                        path);
        } else {
            int line = empi_tune_parse(text, &table, err, sizeof err);
            if (line) {
                if (empi_g.boot.rank == 0)
                    fprintf(stderr, "EtherMPI warning: %s line %d: %s; using the built-in table\n", path, line, err);
                empi_tune_free(&table);
            } else {
                loaded = 1;
            }
            free(text);
        }
    }
    if (!loaded && empi_tune_parse(empi_tune_default_text, &table, err, sizeof err))
        empi_tune_free(&table);
    for (int c = 0; c < EMPI_COLL_COUNT; c++) {
        char var[64];
        snprintf(var, sizeof var, "EMPI_%s_ALGORITHM", empi_coll_name(c));
        for (char *p = var; *p; p++)
            *p = (char)toupper((unsigned char)*p);
        const char *v = *forced_tunable[c];
        if (!v || !*v || strcmp(v, "auto") == 0)
            continue;
        forced[c] = find_alg(c, v);
        if (!forced[c] && empi_g.boot.rank == 0) {
            fprintf(stderr, "EtherMPI warning: %s=%s names no %s algorithm; known:", var, v, empi_coll_name(c));
            for (int i = 0; i < NREG; i++)
                if (registry[i].coll == c)
                    fprintf(stderr, " %s", registry[i].name);
            fprintf(stderr, "\n");
        }
    }
}

static const empi_coll_alg_t *fallback(const empi_coll_args_t *a, int blocking)
{
    for (int i = 0; i < NREG; i++)
        if (registry[i].coll == a->coll && !empi_coll_alg_violates(&registry[i], a, blocking))
            return &registry[i];
    return NULL;
}

/* The tuning key's cma: whether the communicator is on one host where processes copy each other's
   memory. The shm transport decides CMA for the whole host, so every rank answers the same; a
   communicator spanning hosts answers 0 everywhere. */
static int node_copies_directly(const empi_comm_t *comm, const empi_coll_comm_t *cc)
{
    if (!cc || !cc->single_node || comm->size < 2)
        return 0;
    return empi_pt2pt_can_read(comm->world_ranks[(comm->rank + 1) % comm->size]);
}

const empi_coll_alg_t *empi_coll_choose(const empi_coll_args_t *a, int blocking)
{
    if (EMPI_UNLIKELY(empi_comm_is_inter(a->comm)))
        return empi_coll_inter_alg(a->coll);
    if (EMPI_UNLIKELY(!config_done))
        configure();
    empi_coll_comm_t *cc = empi_coll_comm(a->comm);
    const empi_coll_alg_t *alg = forced[a->coll];
    if (alg && !(cc && cc->hier_part)) {
        unsigned bad = empi_coll_alg_violates(alg, a, blocking);
        if (!bad)
            return alg;
        /* one warning, from one rank (on a communicator of one, world rank 0's) */
        if (!forced_warned[a->coll] && a->comm->rank == 0 && (a->comm->size > 1 || empi_g.boot.rank == 0)) {
            char text[160];
            restrictions_text(bad, text, sizeof text);
            const empi_coll_alg_t *fb = fallback(a, blocking);
            fprintf(stderr, "EtherMPI warning: forced %s algorithm '%s' needs %s; using '%s' where it does not apply\n",
                    empi_coll_name(a->coll), alg->name, text, fb ? fb->name : "?");
            forced_warned[a->coll] = 1;
        }
        return fallback(a, blocking);
    }
    long long bytes = empi_coll_msg_bytes(a);
    /* one-entry cache per collective and communicator; ops and types can change what applies, so
       only calls whose restrictions are all met reuse it */
    if (cc && cc->sel_alg[a->coll] && cc->sel_bytes[a->coll] == bytes && cc->sel_blocking[a->coll] == blocking &&
        cc->sel_gen[a->coll] == select_gen) {
        alg = cc->sel_alg[a->coll];
        if (!empi_coll_alg_violates(alg, a, blocking))
            return alg;
    }
    /* first matching rule whose algorithm applies to this call */
    alg = NULL;
    empi_tune_key_t key = {a->coll, a->comm->size, cc ? cc->max_ppn : 1, cc ? cc->ranks_per_cpu : 1, bytes,
                           node_copies_directly(a->comm, cc)};
    for (int i = empi_tune_match(&table, 0, &key); i >= 0 && !alg; i = empi_tune_match(&table, i + 1, &key)) {
        alg = find_alg(a->coll, table.rules[i].alg);
        if (alg && empi_coll_alg_violates(alg, a, blocking))
            alg = NULL;
    }
    if (!alg)
        alg = fallback(a, blocking);
    if (cc && alg) {
        if (EMPI_UNLIKELY(empi_tunables.debug >= 1) && a->comm->rank == 0 && cc->sel_alg[a->coll] != alg)
            fprintf(stderr, "EtherMPI: %s on %d ranks (%d per host, %d per CPU), %lld bytes: %s\n",
                    empi_coll_name(a->coll), a->comm->size, cc->max_ppn, cc->ranks_per_cpu, bytes, alg->name);
        cc->sel_alg[a->coll] = alg;
        cc->sel_bytes[a->coll] = bytes;
        cc->sel_blocking[a->coll] = blocking;
        cc->sel_gen[a->coll] = select_gen;
    }
    return alg;
}

int empi_coll_build(empi_sched_t *s, const empi_coll_args_t *a, int blocking)
{
    const empi_coll_alg_t *alg = empi_coll_choose(a, blocking);
    if (!alg)
        return MPI_ERR_INTERN;
    return alg->build(s, a);
}

/* For tests and tools: the name of the algorithm a call with these arguments would use. */
const char *empi_coll_chosen_name(const empi_coll_args_t *a, int blocking)
{
    const empi_coll_alg_t *alg = empi_coll_choose(a, blocking);
    return alg ? alg->name : NULL;
}

/*
 * Force (alg = name) or unforce (alg = NULL or "auto") the algorithm of one collective from now
 * on, as EMPI_<COLL>_ALGORITHM does at startup. For tests and tuners; every rank of every
 * communicator that will run the collective must make the same call. 0, or -1 if unknown.
 */
__attribute__((visibility("default"))) int empi_info_coll_force(const char *coll, const char *alg)
{
    if (!config_done)
        configure();
    int c = coll ? empi_coll_kind_of(coll) : -1;
    if (c < 0)
        return -1;
    select_gen++;
    if (!alg || strcmp(alg, "auto") == 0) {
        forced[c] = NULL;
        return 0;
    }
    const empi_coll_alg_t *a = find_alg(c, alg);
    if (!a)
        return -1;
    forced[c] = a;
    forced_warned[c] = 1;   /* tests force on purpose: no warning for the fallback */
    return 0;
}

/* EMPI_COLL_FAKE_PPN=k: treat every k consecutive world ranks as one host (testing the hierarchy
   on one machine; shared memory then stays within each group). */
int empi_coll_node_of_world(int world_rank)
{
    long fake = empi_tunables.coll_fake_ppn > 0 ? empi_tunables.coll_fake_ppn : 0;
    return fake ? (int)(world_rank / fake) : empi_boot_node_of(world_rank);
}
