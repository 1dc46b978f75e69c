/*
 * One-sided reads and writes across nodes. Where the transport that reaches other nodes can read
 * and write exposed memory without its owner taking part (libfabric's fi_read and fi_write:
 * transport mem_expose/mem_read/mem_write), every process exposes its window memory at creation
 * and the keys are exchanged once with the window's other set-up data; a get towards another node
 * then reads each run of the target datatype straight from the target's memory, and a put writes
 * each run, waiting until the data is there (delivery complete), so the put is finished on return.
 * Locks are granted before any operation is issued (win_lock.c), so writes respect them.
 * Accumulates towards a process alone on its node in the window may use the transport's atomics
 * (rma_net_atomic.c); other accumulates and locks stay on active messages (rma_am.c), whose
 * atomicity is the target's handler's; so do gets and puts over transports without such access
 * (tcp, udp) and over dynamic windows.
 */
#include <stdlib.h>
#include <string.h>

#include "core/tunables.h"
#include "runtime/bootstrap.h"
#include "rma/win.h"
#include "transport/transport.h"

empi_transport_t *empi_transport_for(int world_rank);

void empi_rma_net_record(empi_win_t *w, empi_rma_net_rec_t *mine)
{
    memset(mine, 0, sizeof *mine);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC || w->mysize <= 0 || strcmp(empi_tunables.rma_path, "am") == 0)
        return;
    empi_transport_t *tp = NULL;
    for (int t = 0; t < w->size && !tp; t++)
        if (!w->peers[t].on_node)
            tp = empi_transport_for(w->comm->world_ranks[t]);
    if (!tp || !tp->mem_expose || !tp->mem_read)
        return;
    w->net_handle = tp->mem_expose(w->base, (size_t)w->mysize, &mine->key, &mine->raddr);
    if (w->net_handle)
        w->net_tp = tp;
    mine->ok = w->net_handle != NULL;
    mine->amo = mine->ok && tp->mem_atomic && tp->has_atomic;
}

/*
 * Transport atomics are atomic with each other, not with the CPU atomics that processes on the
 * target's node apply straight to its memory: they serve only targets with no other process of the
 * window on their node. (The target's own accumulates run inside its MPI calls, as does the
 * progress that applies a provider's software atomics.) lone[t]: t is alone on its node.
 */
static unsigned char *lone_targets(empi_win_t *w)
{
    int maxnode = 0;
    for (int t = 0; t < w->size; t++) {
        int node = empi_boot_node_of(w->peers[t].world);
        maxnode = node > maxnode ? node : maxnode;
    }
    int *count = calloc((size_t)maxnode + 1, sizeof *count);
    unsigned char *lone = malloc((size_t)w->size);
    if (count && lone) {
        for (int t = 0; t < w->size; t++)
            count[empi_boot_node_of(w->peers[t].world)]++;
        for (int t = 0; t < w->size; t++)
            lone[t] = count[empi_boot_node_of(w->peers[t].world)] == 1;
    } else {
        free(lone);
        lone = NULL;
    }
    free(count);
    return lone;
}

void empi_rma_net_accept(empi_win_t *w, const empi_rma_net_rec_t *all)
{
    unsigned char *lone = lone_targets(w);
    for (int t = 0; t < w->size; t++) {
        empi_win_peer_t *p = &w->peers[t];
        if (p->on_node || !all[t].ok)
            continue;
        empi_transport_t *tp = empi_transport_for(p->world);
        if (!tp || !tp->mem_read)
            continue;
        p->net_read = 1;
        p->net_write = tp->mem_write != NULL;
        p->net_key = all[t].key;
        p->net_raddr = all[t].raddr;
        p->net_amo = lone && lone[t] && all[t].amo && tp->mem_atomic && tp->has_atomic;
    }
    /* Where the transport applies atomics outside our MPI calls, the remote origins' atomics on
       our memory are atomic only with others of theirs: our own accumulates take it too. */
    empi_win_peer_t *me = &w->peers[w->rank];
    if (lone && lone[w->rank] && all[w->rank].amo && w->net_tp && w->net_tp->atomic_self) {
        me->net_amo = 1;
        me->net_key = all[w->rank].key;
        me->net_raddr = all[w->rank].raddr;
    }
    free(lone);
}

void empi_rma_net_release(empi_win_t *w)
{
    if (w->net_handle)
        w->net_tp->mem_unexpose(w->net_handle, w->base, (size_t)w->mysize);
    w->net_handle = NULL;
}

typedef struct {
    empi_win_peer_t *p;
    empi_transport_t *tp;
    uint64_t at;   /* remote address of the target buffer's origin */
    char *local;   /* the packed stream: read into or written from */
    int write;
} net_ctx_t;

static int move_run(void *c, MPI_Aint disp, MPI_Count s, MPI_Count len)
{
    net_ctx_t *x = c;
    uint64_t at = x->at + (uint64_t)disp;
    int rc = x->write ? x->tp->mem_write(x->p->world, x->local + s, (size_t)len, at, x->p->net_key)
                      : x->tp->mem_read(x->p->world, x->local + s, (size_t)len, at, x->p->net_key);
    return rc == EMPI_OK ? 0 : MPI_ERR_OTHER;
}

static net_ctx_t context(empi_win_t *w, const empi_rma_op_t *op, int write)
{
    empi_win_peer_t *p = &w->peers[op->target];
    return (net_ctx_t){p, empi_transport_for(p->world), p->net_raddr + (uint64_t)op->offset, NULL, write};
}

int empi_rma_net_get(empi_win_t *w, empi_rma_op_t *op)
{
    net_ctx_t x = context(w, op, 0);
    void *tmp;
    if (!(x.local = empi_rma_sink((void *)op->obuf, op->odt, op->bytes, &tmp)))
        return MPI_ERR_NO_MEM;
    int rc = empi_dt_runs(op->tcount, op->tdt, move_run, &x);
    if (rc == MPI_SUCCESS && tmp)
        empi_dt_unpack((void *)op->obuf, op->ocount, op->odt, 0, tmp, op->bytes);
    free(tmp);
    if (rc == MPI_SUCCESS)
        op->done_here = 1;
    return rc;
}

int empi_rma_net_put(empi_win_t *w, empi_rma_op_t *op)
{
    net_ctx_t x = context(w, op, 1);
    void *tmp = NULL;
    x.local = (char *)empi_rma_stream(op->obuf, op->ocount, op->odt, op->bytes, &tmp);
    if (!x.local)
        return MPI_ERR_NO_MEM;
    int rc = empi_dt_runs(op->tcount, op->tdt, move_run, &x);
    free(tmp);
    if (rc == MPI_SUCCESS)
        op->done_here = 1;
    return rc;
}
