/*
 * Active-target synchronization with MPI_Win_fence, the window barrier it rests on, and the
 * flush calls that complete operations without ending an epoch.
 *
 * Operations on DIRECT and CMA paths are complete when the call returns, so completing them only
 * takes a memory fence; AM operations are complete once the target answered a flush (rma_am.c).
 * A fence then needs a barrier: nobody leaves before every rank's operations are complete.
 */
#include <stdatomic.h>

#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "rma/win.h"

/* Node window: every rank bumps its arrive counter and waits for everyone else's to catch up. */
static int all_arrived(const empi_win_t *w, uint64_t n)
{
    for (int i = 0; i < w->nnode; i++)
        if (atomic_load_explicit(&w->seg.slots[i].arrive, memory_order_acquire) < n)
            return 0;
    return 1;
}

int empi_win_barrier(empi_win_t *w)
{
    if (w->nnode != w->size) {
        empi_coll_set_t set;
        empi_comm_set_all_of(w->comm, &set, EMPI_COMM_CREATE_TAG);
        int v = 0;
        return empi_coll_set_allreduce_int(&set, &v, 1, EMPI_COLL_INT_MAX);
    }
    uint64_t n = ++w->barriers;
    int me = 0;
    while (w->node_ranks[me] != w->rank)
        me++;
    atomic_store_explicit(&w->seg.slots[me].arrive, n, memory_order_release);
    EMPI_PROGRESS_UNTIL(all_arrived(w, n));
    return MPI_SUCCESS;
}

int empi_win_can_begin(empi_win_t *w)
{
    if (w->fence_open && w->fence_used)
        return 0;
    w->fence_open = 0;   /* a fence that opened no operations ended the fence epoch */
    return 1;
}

int empi_win_flush_peer(empi_win_t *w, int t)
{
    empi_win_peer_t *p = &w->peers[t];
    if (p->path == EMPI_RMA_AM && (p->sync & EMPI_WIN_SYNC_TOUCHED)) {
        p->sync &= (uint8_t)~EMPI_WIN_SYNC_TOUCHED;
        return empi_rma_am_flush(w, t);
    }
    empi_rma_am_poll();
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}

int empi_win_flush_all_peers(empi_win_t *w)
{
    int rc = MPI_SUCCESS;
    for (int t = 0; t < w->size; t++)
        if (w->peers[t].path == EMPI_RMA_AM && (w->peers[t].sync & EMPI_WIN_SYNC_TOUCHED)) {
            int r = empi_win_flush_peer(w, t);
            if (r != MPI_SUCCESS)
                rc = r;
        }
    atomic_thread_fence(memory_order_seq_cst);
    return rc;
}

EMPI_WEAK_ALIAS(Win_fence)
int PMPI_Win_fence(int assert, MPI_Win win)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_fence", &w));
    const int known = MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
    if (assert & ~known)
        return empi_err_win(w, MPI_ERR_ASSERT, "MPI_Win_fence: assert %#x has flags fence does not take", assert);
    if (w->nlocks || w->lock_all || w->start_ranks || w->posted)
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_fence: a lock or PSCW epoch is open on the window");
    if ((assert & MPI_MODE_NOPRECEDE) && w->fence_open && w->fence_used)
        return empi_err_win(w, MPI_ERR_RMA_SYNC,
                            "MPI_Win_fence: MPI_MODE_NOPRECEDE, but operations were issued since the last fence");
    empi_lock();
    int rc = empi_win_flush_all_peers(w);
    /* NOPRECEDE and NOSUCCEED together: no epoch ends or begins, nobody needs to wait. */
    if (rc == MPI_SUCCESS && !((assert & MPI_MODE_NOPRECEDE) && (assert & MPI_MODE_NOSUCCEED)))
        rc = empi_win_barrier(w);
    w->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    w->fence_used = 0;
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_fence: synchronization failed");
    return MPI_SUCCESS;
}

/* The passive-target flushes: the operation must be inside a lock epoch on that target. */
static int flush_common(const char *fname, int rank, MPI_Win win, int all)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, fname, &w));
    if (!all) {
        if (rank == MPI_PROC_NULL)
            return MPI_SUCCESS;
        if (rank < 0 || rank >= w->size)
            return empi_err_win(w, MPI_ERR_RANK, "%s: rank %d is not in the window's group of %d", fname, rank,
                                w->size);
    }
    empi_lock(); /* the epoch flags share a byte with ones another thread's flush clears */
    int open = all ? w->nlocks || w->lock_all
                   : (w->peers[rank].sync & (EMPI_WIN_SYNC_SHARED | EMPI_WIN_SYNC_EXCL | EMPI_WIN_SYNC_ALL)) != 0;
    int rc = !open ? MPI_ERR_RMA_SYNC : all ? empi_win_flush_all_peers(w) : empi_win_flush_peer(w, rank);
    empi_unlock();
    if (!open && all)
        return empi_err_win(w, rc, "%s: no passive-target epoch is open", fname);
    if (!open)
        return empi_err_win(w, rc, "%s: rank %d is not locked", fname, rank);
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "%s: completing the operations failed", fname);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_flush)
int PMPI_Win_flush(int rank, MPI_Win win)
{
    return flush_common("MPI_Win_flush", rank, win, 0);
}

EMPI_WEAK_ALIAS(Win_flush_all)
int PMPI_Win_flush_all(MPI_Win win)
{
    return flush_common("MPI_Win_flush_all", 0, win, 1);
}

/* Local completion: origin buffers may be reused. AM copies them into packets at issue, and gets
   land before their request completes, so it is the same as a full flush here. */
EMPI_WEAK_ALIAS(Win_flush_local)
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return flush_common("MPI_Win_flush_local", rank, win, 0);
}

EMPI_WEAK_ALIAS(Win_flush_local_all)
int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush_common("MPI_Win_flush_local_all", 0, win, 1);
}

/* The unified model: public and private copies are one; a full memory barrier orders them. With
   windows on the message path, operations aimed at this process land only when it polls: a loop
   of MPI_Win_sync waiting for a flag another process puts must see it. */
EMPI_WEAK_ALIAS(Win_sync)
int PMPI_Win_sync(MPI_Win win)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_sync", &w));
    empi_lock();
    empi_rma_am_poll();
    empi_unlock();
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}
