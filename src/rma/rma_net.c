/*
 * One-sided reads across nodes. Where the transport that reaches other nodes can read exposed
 * memory without its owner taking part (libfabric's fi_read: transport mem_expose/mem_read), every
 * process exposes its window memory at creation and the keys are exchanged once with the window's
 * other set-up data; a get towards another node then reads each run of the target datatype
 * straight from the target's memory, needing nothing of the target's progress. Everything else
 * across nodes (puts, accumulates, locks) stays on active messages (rma_am.c), as do gets over
 * transports without such reads (tcp, udp) and over dynamic windows.
 */
#include <stdlib.h>
#include <string.h>

#include "core/tunables.h"
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
}

void empi_rma_net_accept(empi_win_t *w, const empi_rma_net_rec_t *all)
{
    for (int t = 0; t < w->size; t++) {
        empi_win_peer_t *p = &w->peers[t];
        if (p->on_node || !all[t].ok)
            continue;
        empi_transport_t *tp = empi_transport_for(p->world);
        if (!tp || !tp->mem_read)
            continue;
        p->net_read = 1;
        p->net_key = all[t].key;
        p->net_raddr = all[t].raddr;
    }
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
    char *dst;     /* the packed stream lands here */
} net_ctx_t;

static int read_run(void *c, MPI_Aint disp, MPI_Count s, MPI_Count len)
{
    net_ctx_t *x = c;
    return x->tp->mem_read(x->p->world, x->dst + s, (size_t)len, x->at + (uint64_t)disp, x->p->net_key) == EMPI_OK
               ? 0
               : MPI_ERR_OTHER;
}

int empi_rma_net_get(empi_win_t *w, empi_rma_op_t *op)
{
    empi_win_peer_t *p = &w->peers[op->target];
    net_ctx_t x = {p, empi_transport_for(p->world), p->net_raddr + (uint64_t)op->offset, NULL};
    void *tmp = NULL;
    if (op->odt->is_contig)
        x.dst = (char *)op->obuf + op->odt->true_lb;
    else if (!(x.dst = tmp = malloc((size_t)op->bytes)))
        return MPI_ERR_NO_MEM;
    int rc = empi_dt_runs(op->tcount, op->tdt, read_run, &x);
    if (rc == MPI_SUCCESS && tmp)
        empi_dt_unpack((void *)op->obuf, op->ocount, op->odt, 0, tmp, op->bytes);
    free(tmp);
    if (rc == MPI_SUCCESS)
        op->done_here = 1;
    return rc;
}
