/*
 * Window creation and destruction for every flavor:
 *   create    the user's memory; node peers reach it with CMA, others with active messages
 *   allocate  memory in the node segment, so node peers load and store into it directly (if the
 *             segment cannot be made, private memory reached like a created window's)
 *   shared    like allocate, every rank on one node, contiguous across ranks unless
 *             alloc_shared_noncontig; MPI_Win_shared_query hands out the mappings
 *   dynamic   no memory at creation; MPI_Win_attach exposes regions (win_dynamic.c)
 * Every window duplicates its communicator, so its fences, PSCW notices and active messages use a
 * context of their own.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/attr.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "core/tunables.h"
#include "rma/win.h"

typedef struct {
    int64_t size;
    int64_t disp_unit;
    int64_t align;   /* mpi_minimum_memory_alignment of the allocate flavors (0: none asked) */
    int32_t pid;
    int32_t pad_;
} size_rec_t;

static int gather(empi_win_t *w, const void *mine, size_t len, void *all)
{
    empi_coll_set_t set;
    empi_comm_set_all_of(w->comm, &set, EMPI_COMM_CREATE_TAG);
    return empi_coll_set_allgather(&set, mine, len, all);
}

static int node_of(const empi_win_t *w, int t)
{
    return empi_boot_node_of(w->comm->world_ranks[t]);
}

static int find_node_ranks(empi_win_t *w)
{
    w->node_ranks = malloc((size_t)w->size * sizeof(int));
    if (!w->node_ranks)
        return MPI_ERR_NO_MEM;
    int mine = node_of(w, w->rank);
    for (int t = 0; t < w->size; t++)
        if (node_of(w, t) == mine)
            w->node_ranks[w->nnode++] = t;
    return MPI_SUCCESS;
}

/* Memory of the allocate flavors: in the node segment when possible. Returns 1 if it is shared. */
static int place_memory(empi_win_t *w, const size_rec_t *recs, int contiguous, size_t *offs, int *rc)
{
    size_t *bytes = malloc((size_t)w->nnode * sizeof *bytes);
    if (!bytes) {
        *rc = MPI_ERR_NO_MEM;
        return 0;
    }
    int me = 0;
    size_t align = 0;   /* the strictest any rank of the node asked for: all lay the segment out alike */
    for (int i = 0; i < w->nnode; i++) {
        const size_rec_t *r = &recs[w->node_ranks[i]];
        bytes[i] = (size_t)r->size;
        align = (size_t)r->align > align ? (size_t)r->align : align;
        if (w->node_ranks[i] == w->rank)
            me = i;
    }
    int shared = empi_win_seg_create(w, bytes, contiguous, align, offs) == MPI_SUCCESS;
    free(bytes);
    *rc = MPI_SUCCESS;
    if (shared) {
        w->base = w->seg.data + offs[me];
        return 1;
    }
    if (w->flavor == MPI_WIN_FLAVOR_SHARED) {
        *rc = MPI_ERR_NO_MEM;
        return 0;
    }
    /* private fallback, reached like a created window: a segment of control blocks only */
    memset(offs, 0, (size_t)w->nnode * sizeof *offs);
    if ((*rc = empi_win_seg_create(w, offs, 0, 0, offs)) != MPI_SUCCESS)
        return 0;
    size_t mine = (size_t)recs[w->rank].align;
    if (posix_memalign(&w->base, mine > 64 ? mine : 64, w->mysize > 0 ? (size_t)w->mysize : 1) != 0)
        w->base = NULL;
    w->owns_private = w->base != NULL;
    *rc = empi_win_agree(w, w->base != NULL) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    return 0;
}

static void setup_peers(empi_win_t *w, const size_rec_t *recs, const uint64_t *bases, int shared, const size_t *offs)
{
    int force_am = strcmp(empi_tunables.rma_path, "am") == 0;
    int mynode = node_of(w, w->rank);
    for (int t = 0, i = 0; t < w->size; t++) {
        empi_win_peer_t *p = &w->peers[t];
        p->size = (MPI_Aint)recs[t].size;
        p->disp_unit = (int)recs[t].disp_unit;
        p->world = w->comm->world_ranks[t];
        p->pid = recs[t].pid;
        p->on_node = node_of(w, t) == mynode;
        p->atomics = (uint8_t)shared;
        p->base = (char *)(uintptr_t)bases[t];
        if (p->on_node) {
            p->slot = &w->seg.slots[i];
            if (shared)
                p->base = w->seg.data + offs[i];
            i++;
        }
        if (t == w->rank)
            p->path = EMPI_RMA_DIRECT;
        else if (force_am || !p->on_node)
            p->path = EMPI_RMA_AM;
        else
            p->path = shared ? EMPI_RMA_DIRECT : EMPI_RMA_CMA;
    }
    /* every rank polls if any rank reaches another by AM: we may be someone's AM target */
    int am_anywhere = force_am || w->nnode != w->size;
    if (am_anywhere)
        empi_rma_am_uses(w);
}

static int build(empi_win_t *w, empi_comm_t *c, const empi_info_t *info)
{
    int rc = empi_comm_create_from(c, c->group, &w->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    w->rank = w->comm->rank;
    w->size = w->comm->size;
    if ((rc = empi_win_apply_info(w, info)) != MPI_SUCCESS || (rc = find_node_ranks(w)) != MPI_SUCCESS)
        return rc;
    w->peers = calloc((size_t)w->size, sizeof *w->peers);
    size_rec_t *recs = calloc((size_t)w->size, sizeof *recs);
    uint64_t *bases = calloc((size_t)w->size, sizeof *bases);
    size_t *offs = calloc((size_t)w->nnode, sizeof *offs);
    int ok = w->peers && recs && bases && offs;
    if (!empi_win_agree(w, ok)) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    int allocates = w->flavor == MPI_WIN_FLAVOR_ALLOCATE || w->flavor == MPI_WIN_FLAVOR_SHARED;
    size_rec_t me = {w->mysize, w->disp_unit, allocates ? (int64_t)empi_info_alignment(info, 0) : 0,
                     (int32_t)getpid(), 0};
    if ((rc = gather(w, &me, sizeof me, recs)) != MPI_SUCCESS)
        goto out;
    int shared = 0;
    if (w->flavor == MPI_WIN_FLAVOR_SHARED && w->nnode != w->size) {
        rc = MPI_ERR_RMA_SHARED;
        goto out;
    }
    if (allocates) {
        int contiguous = w->flavor == MPI_WIN_FLAVOR_SHARED &&
                         !empi_win_info_flag(w->info, "alloc_shared_noncontig");
        shared = place_memory(w, recs, contiguous, offs, &rc);
        if (rc != MPI_SUCCESS)
            goto out;
    } else if ((rc = empi_win_seg_create(w, offs, 0, 0, offs)) != MPI_SUCCESS) {
        goto out;   /* control blocks only (offs is all zeros: no data) */
    }
    empi_rma_am_register(w);   /* before anyone can learn the window exists */
    uint64_t mybase = (uint64_t)(uintptr_t)w->base;
    if ((rc = gather(w, &mybase, sizeof mybase, bases)) != MPI_SUCCESS)
        goto out;
    setup_peers(w, recs, bases, shared, offs);
    empi_rma_am_open(w);
    if (w->nnode != w->size) { /* every rank agrees: some peers are on other nodes */
        empi_rma_net_rec_t mine, *all = calloc((size_t)w->size, sizeof *all);
        if (empi_win_agree(w, all != NULL)) { /* else everyone keeps to active messages */
            empi_rma_net_record(w, &mine);
            if ((rc = gather(w, &mine, sizeof mine, all)) == MPI_SUCCESS)
                empi_rma_net_accept(w, all);
        }
        free(all);
    }
out:
    free(recs);
    free(bases);
    free(offs);
    return rc;
}

static void teardown(empi_win_t *w)
{
    empi_rma_am_unregister(w);
    empi_rma_net_release(w);
    empi_win_seg_destroy(w);
    if (w->owns_private)
        free(w->base);
    for (int t = 0; w->peers && t < w->size; t++)
        free(w->peers[t].dyn_known);
    free(w->peers);
    free(w->node_ranks);
    free(w->start_ranks);
    free(w->post_ranks);
    empi_info_release(w->info);
    if (w->comm)
        empi_comm_release(w->comm);
    empi_win_destroy(w);
}

static int create_common(const char *fname, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                         MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fname, &c));
    if (empi_comm_is_inter(c))
        return empi_err_comm(c, MPI_ERR_COMM, "%s: comm is an intercommunicator; windows are made over "
                                              "intracommunicators", fname);
    if (!win)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: win is NULL", fname);
    if (size < 0)
        return empi_err_comm(c, MPI_ERR_SIZE, "%s: size %ld is negative", fname, (long)size);
    if (disp_unit <= 0 || disp_unit > INT32_MAX)
        return empi_err_comm(c, MPI_ERR_DISP, "%s: disp_unit %ld is not positive", fname, (long)disp_unit);
    if (baseptr == NULL && flavor != MPI_WIN_FLAVOR_CREATE && flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: baseptr is NULL", fname);
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && base == NULL)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: base is NULL for a window of %ld bytes", fname, (long)size);
    empi_info_t *i = NULL;
    if (info != MPI_INFO_NULL && !(i = empi_info_get(info)))
        return empi_err_comm(c, MPI_ERR_INFO, "%s: invalid info %p", fname, (void *)info);
    empi_lock();
    empi_win_t *w = empi_win_alloc();
    if (!w) {
        empi_unlock();
        return empi_err_comm(c, MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    w->flavor = flavor;
    w->base = base;
    w->mysize = size;
    w->disp_unit = (int)disp_unit;
    int rc = build(w, c, i);
    if (rc != MPI_SUCCESS) {
        teardown(w);
        empi_unlock();
        if (rc == MPI_ERR_RMA_SHARED)
            return empi_err_comm(c, rc, "%s: the ranks of the communicator are not all on one node", fname);
        return empi_err_comm(c, rc, "%s: cannot create the window", fname);
    }
    if (baseptr)
        *(void **)baseptr = w->base;
    *win = w->handle;
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_create)
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create_common("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, NULL, win);
}

EMPI_WEAK_ALIAS(Win_create_c)
int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create_common("MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, NULL, win);
}

EMPI_WEAK_ALIAS(Win_allocate)
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return create_common("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm, baseptr,
                         win);
}

EMPI_WEAK_ALIAS(Win_allocate_c)
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                        MPI_Win *win)
{
    return create_common("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm,
                         baseptr, win);
}

EMPI_WEAK_ALIAS(Win_allocate_shared)
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                             MPI_Win *win)
{
    return create_common("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, comm,
                         baseptr, win);
}

EMPI_WEAK_ALIAS(Win_allocate_shared_c)
int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                               MPI_Win *win)
{
    return create_common("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, comm,
                         baseptr, win);
}

EMPI_WEAK_ALIAS(Win_create_dynamic)
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create_common("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, NULL, win);
}

/* Where rank t's memory is mapped here, if it is: shared windows, allocated ones on this node, and
   this process's own memory in any flavor but dynamic. Any flavor may be asked (MPI 4.1): memory
   not mapped here gives size 0 and a NULL base. */
static int shared_query(const char *fname, MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                        void *baseptr)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, fname, &w));
    if (!size || !disp_unit || !baseptr)
        return empi_err_win(w, MPI_ERR_ARG, "%s: %s is NULL", fname, !size ? "size" : !disp_unit ? "disp_unit" : "baseptr");
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
        return empi_err_win(w, MPI_ERR_RANK, "%s: rank %d is not in the window's group of %d", fname, rank, w->size);
    if (rank == MPI_PROC_NULL) {   /* the lowest rank with memory */
        rank = 0;
        while (rank < w->size - 1 && w->peers[rank].size == 0)
            rank++;
    }
    const empi_win_peer_t *p = &w->peers[rank];
    int mapped = w->flavor != MPI_WIN_FLAVOR_DYNAMIC && ((p->atomics && p->on_node) || rank == w->rank);
    *size = mapped ? p->size : 0;
    *disp_unit = p->disp_unit;
    *(void **)baseptr = mapped ? p->base : NULL;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_shared_query)
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_Aint du = 0;
    int rc = shared_query("MPI_Win_shared_query", win, rank, size, disp_unit ? &du : NULL, baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = (int)du;
    return rc;
}

EMPI_WEAK_ALIAS(Win_shared_query_c)
int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{
    return shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, baseptr);
}

EMPI_WEAK_ALIAS(Win_free)
int PMPI_Win_free(MPI_Win *win)
{
    if (!win)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Win_free: win is NULL");
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(*win, "MPI_Win_free", &w));
    if (w->nlocks || w->lock_all || w->start_ranks || w->posted)
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_free: an access or exposure epoch is still open");
    empi_lock();
    int rc = empi_attr_delete_all(EMPI_ATTR_WIN, w->handle, &w->attrs);
    if (rc != MPI_SUCCESS) {
        empi_unlock();
        return empi_err_win(w, rc, "MPI_Win_free: an attribute delete callback returned error %d", rc);
    }
    /* Everyone's operations are complete before anyone's memory goes away. */
    empi_win_flush_all_peers(w);
    rc = empi_win_barrier(w);
    teardown(w);
    empi_unlock();
    *win = MPI_WIN_NULL;
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Win_free: the closing barrier failed");
    return MPI_SUCCESS;
}
