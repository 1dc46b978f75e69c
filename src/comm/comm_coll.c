/*
 * The few collectives communicator creation needs, over any subset of a parent communicator and
 * on its collective context, written directly on internal point-to-point so they do not depend on
 * the collective layer (which itself needs communicators to exist).
 *
 * Both are a binomial tree rooted at participant 0: gather or reduce up, broadcast down. log2(n)
 * rounds each way, any n including 1 and non-powers of two. Tree edges: participant i's parent is
 * i with its lowest set bit cleared; its children are i + m for each power of two m below that bit.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dyn.h"
#include "comm/intercomm.h"
#include "pt2pt/pt2pt.h"
#include "runtime/procs.h"

static int peer_rank(const empi_coll_set_t *set, int index)
{
    return set->ranks ? set->ranks[index] : index;
}

static int send_to(const empi_coll_set_t *set, int index, const void *buf, size_t len)
{
    return empi_send(buf, (MPI_Count)len, empi_byte_type, peer_rank(set, index), set->tag, set->comm,
                     EMPI_COLL_CONTEXT(set->comm));
}

static int recv_from(const empi_coll_set_t *set, int index, void *buf, size_t len)
{
    return empi_recv(buf, (MPI_Count)len, empi_byte_type, peer_rank(set, index), set->tag, set->comm,
                     EMPI_COLL_CONTEXT(set->comm), MPI_STATUS_IGNORE);
}

int empi_coll_tree_span(int i, int n)
{
    if (i != 0)
        return i & -i;
    int m = 1;
    while (m < n)
        m <<= 1;
    return m;
}

/* Root's buffer of `len` bytes to every participant. */
static int tree_bcast(const empi_coll_set_t *set, void *buf, size_t len)
{
    int me = set->me, n = set->n, span = empi_coll_tree_span(me, n), rc = MPI_SUCCESS;
    if (me != 0)
        rc = recv_from(set, me - span, buf, len);
    for (int m = span >> 1; m > 0 && rc == MPI_SUCCESS; m >>= 1)
        if (me + m < n)
            rc = send_to(set, me + m, buf, len);
    return rc;
}

static void combine(int *acc, const int *in, int count, empi_coll_int_op_t op)
{
    for (int i = 0; i < count; i++) {
        switch (op) {
        case EMPI_COLL_INT_MAX: acc[i] = in[i] > acc[i] ? in[i] : acc[i]; break;
        case EMPI_COLL_INT_MIN: acc[i] = in[i] < acc[i] ? in[i] : acc[i]; break;
        case EMPI_COLL_INT_SUM: acc[i] += in[i]; break;
        case EMPI_COLL_INT_AND: acc[i] = acc[i] && in[i]; break;
        }
    }
}

int empi_coll_set_allreduce_int(const empi_coll_set_t *set, int *vals, int count, empi_coll_int_op_t op)
{
    if (set->n == 1 || count == 0)
        return MPI_SUCCESS;
    size_t len = (size_t)count * sizeof(int);
    int *in = malloc(len);
    if (!in)
        return MPI_ERR_NO_MEM;
    int me = set->me, n = set->n, span = empi_coll_tree_span(me, n), rc = MPI_SUCCESS;
    /* Children in increasing distance, as they finish their own subtrees in that order. */
    for (int m = 1; m < span && rc == MPI_SUCCESS; m <<= 1)
        if (me + m < n) {
            rc = recv_from(set, me + m, in, len);
            combine(vals, in, count, op);
        }
    if (rc == MPI_SUCCESS && me != 0)
        rc = send_to(set, me - span, vals, len);
    free(in);
    if (rc == MPI_SUCCESS)
        rc = tree_bcast(set, vals, len);
    return rc;
}

int empi_coll_set_allgather(const empi_coll_set_t *set, const void *mine, size_t recsize, void *all)
{
    char *out = all;
    int me = set->me, n = set->n, span = empi_coll_tree_span(me, n), rc = MPI_SUCCESS;
    memcpy(out + (size_t)me * recsize, mine, recsize);
    if (n == 1)
        return MPI_SUCCESS;
    /* Participant i's subtree is the block [i, i + span(i)) ∩ [0, n): gather blocks upward. */
    for (int m = 1; m < span && rc == MPI_SUCCESS; m <<= 1)
        if (me + m < n) {
            int child = me + m, end = child + m < n ? child + m : n;
            rc = recv_from(set, child, out + (size_t)child * recsize, (size_t)(end - child) * recsize);
        }
    if (rc == MPI_SUCCESS && me != 0) {
        int end = me + span < n ? me + span : n;
        rc = send_to(set, me - span, out + (size_t)me * recsize, (size_t)(end - me) * recsize);
    }
    if (rc == MPI_SUCCESS)
        rc = tree_bcast(set, out, (size_t)n * recsize);
    return rc;
}

int empi_coll_set_bcast(const empi_coll_set_t *set, void *buf, size_t len)
{
    return set->n == 1 ? MPI_SUCCESS : tree_bcast(set, buf, len);
}

static int bridge_swap(const empi_coll_bridge_t *b, const void *mine, size_t mine_len, void *theirs,
                       size_t theirs_len)
{
    if (!b->comm)
        return empi_dyn_sock_swap(b->fd, mine, mine_len, theirs, theirs_len);
    return empi_sendrecv(mine, (MPI_Count)mine_len, empi_byte_type, b->peer, b->tag, theirs, (MPI_Count)theirs_len,
                         empi_byte_type, b->peer, b->tag, b->comm, EMPI_COLL_CONTEXT(b->comm), MPI_STATUS_IGNORE);
}

int empi_coll_bridge_exchange(const empi_coll_set_t *set, const empi_coll_bridge_t *bridge, const void *mine,
                              size_t mine_len, void *theirs, size_t theirs_len)
{
    int rc = MPI_SUCCESS;
    if (set->me == 0)
        rc = bridge_swap(bridge, mine, mine_len, theirs, theirs_len);
    /* Even on failure the leader takes part in the broadcast, so nobody waits forever. */
    int rc2 = empi_coll_set_bcast(set, theirs, theirs_len);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int empi_coll_bridge_allreduce_int(const empi_coll_set_t *set, const empi_coll_bridge_t *bridge, int *vals,
                                   int count, empi_coll_int_op_t op)
{
    int rc = empi_coll_set_allreduce_int(set, vals, count, op);
    if (rc != MPI_SUCCESS || !bridge || count == 0)
        return rc;
    size_t len = (size_t)count * sizeof(int);
    int *theirs = malloc(len);
    if (!theirs)
        return MPI_ERR_NO_MEM;
    rc = empi_coll_bridge_exchange(set, bridge, vals, len, theirs, len);
    if (rc == MPI_SUCCESS)
        combine(vals, theirs, count, op);
    free(theirs);
    return rc;
}

int empi_coll_bridge_exchange_procs(const empi_coll_set_t *set, const empi_coll_bridge_t *bridge, const int *mine,
                                    int nmine, int *theirs, int ntheirs)
{
    empi_proc_gid_t *g = malloc((size_t)(nmine + ntheirs + 1) * sizeof *g);
    if (!g)
        return MPI_ERR_NO_MEM;
    empi_procs_to_gids(mine, nmine, g);
    int rc = empi_coll_bridge_exchange(set, bridge, g, (size_t)nmine * sizeof *g, g + nmine,
                                       (size_t)ntheirs * sizeof *g);
    if (rc == MPI_SUCCESS && empi_procs_from_gids(g + nmine, ntheirs, theirs) != 0)
        rc = MPI_ERR_OTHER; /* a process of a job this one never connected to */
    free(g);
    return rc;
}
