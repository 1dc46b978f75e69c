/*
 * Generalized active-target synchronization (post, start, complete, wait, test), as empty messages
 * on the window's private communicator:
 *   post      the target tells each origin of its group "you may access me" (tag POST)
 *   start     the origin receives that notice from each target of its group
 *   complete  the origin completes its operations, then tells each target "done" (tag DONE)
 *   wait/test the target receives a notice from each origin (receives posted by post)
 * Notices of successive epochs between one pair match in order (pt2pt is non-overtaking), so a
 * target may post again before an origin has started the previous epoch. MPI_MODE_NOCHECK skips
 * the post notices on both sides, as the standard allows.
 */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "pt2pt/pt2pt.h"
#include "rma/win.h"

enum { TAG_POST = 1, TAG_DONE = 2 };

static char notice;   /* zero-byte messages still need a buffer address */

/* Comm ranks of a group's members; MPI_ERR_RANK if one is not in the window. */
static int ranks_of(empi_win_t *w, empi_group_t *g, int **out)
{
    int *r = malloc((size_t)(g->size > 0 ? g->size : 1) * sizeof *r);
    if (!r)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < g->size; i++) {
        r[i] = empi_comm_rank_of_world(w->comm, g->world_ranks[i]);
        if (r[i] == MPI_UNDEFINED) {
            free(r);
            return MPI_ERR_GROUP;
        }
    }
    *out = r;
    return MPI_SUCCESS;
}

static int send_notice(empi_win_t *w, int to, int tag)
{
    return empi_send(&notice, 0, empi_byte_type, to, tag, w->comm, w->comm->context_id);
}

static int check_group(empi_win_t *w, const char *fname, MPI_Group group, empi_group_t **g)
{
    *g = empi_group_get(group);
    if (!*g)
        return empi_err_win(w, MPI_ERR_GROUP, "%s: invalid group %p", fname, (void *)group);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_post)
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    empi_win_t *w;
    empi_group_t *g;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_post", &w));
    EMPI_CHECK(check_group(w, "MPI_Win_post", group, &g));
    if (assert & ~(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT))
        return empi_err_win(w, MPI_ERR_ASSERT, "MPI_Win_post: assert %#x has flags post does not take", assert);
    if (w->posted || !empi_win_can_begin(w))
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_post: an exposure epoch is already open");
    empi_lock();
    int rc = ranks_of(w, g, &w->post_ranks);
    if (rc == MPI_SUCCESS) {
        w->npost = g->size;
        w->done_reqs = calloc((size_t)(g->size > 0 ? g->size : 1), sizeof *w->done_reqs);
        rc = w->done_reqs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < w->npost && rc == MPI_SUCCESS; i++)
        rc = empi_irecv(&notice, 0, empi_byte_type, w->post_ranks[i], TAG_DONE, w->comm, w->comm->context_id,
                        &w->done_reqs[i]);
    atomic_thread_fence(memory_order_seq_cst);   /* our own stores are visible before anyone accesses */
    for (int i = 0; i < w->npost && rc == MPI_SUCCESS && !(assert & MPI_MODE_NOCHECK); i++)
        rc = send_notice(w, w->post_ranks[i], TAG_POST);
    if (rc == MPI_SUCCESS)
        w->posted = 1;
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_post: %s", rc == MPI_ERR_GROUP ? "the group has processes outside the window"
                                                                            : "posting the exposure epoch failed");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_start)
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    empi_win_t *w;
    empi_group_t *g;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_start", &w));
    EMPI_CHECK(check_group(w, "MPI_Win_start", group, &g));
    if (assert & ~MPI_MODE_NOCHECK)
        return empi_err_win(w, MPI_ERR_ASSERT, "MPI_Win_start: assert %#x has flags start does not take", assert);
    if (w->start_ranks || w->nlocks || w->lock_all || !empi_win_can_begin(w))
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_start: another access epoch is open on the window");
    empi_lock();
    int *ranks = NULL;
    int rc = ranks_of(w, g, &ranks);
    for (int i = 0; i < g->size && rc == MPI_SUCCESS && !(assert & MPI_MODE_NOCHECK); i++)
        rc = empi_recv(&notice, 0, empi_byte_type, ranks[i], TAG_POST, w->comm, w->comm->context_id,
                       MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) {
        atomic_thread_fence(memory_order_seq_cst);
        w->start_ranks = ranks;
        w->nstart = g->size;
        for (int i = 0; i < g->size; i++)
            w->peers[ranks[i]].sync |= EMPI_WIN_SYNC_STARTED;
    } else {
        free(ranks);
    }
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_start: %s", rc == MPI_ERR_GROUP ? "the group has processes outside the window"
                                                                             : "starting the access epoch failed");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_complete)
int PMPI_Win_complete(MPI_Win win)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_complete", &w));
    if (!w->start_ranks)
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_complete: no access epoch was started");
    empi_lock();
    int rc = MPI_SUCCESS;
    for (int i = 0; i < w->nstart && rc == MPI_SUCCESS; i++)
        rc = empi_win_flush_peer(w, w->start_ranks[i]);
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < w->nstart && rc == MPI_SUCCESS; i++)
        rc = send_notice(w, w->start_ranks[i], TAG_DONE);
    for (int i = 0; i < w->nstart; i++)
        w->peers[w->start_ranks[i]].sync &= (uint8_t)~EMPI_WIN_SYNC_STARTED;
    free(w->start_ranks);
    w->start_ranks = NULL;
    w->nstart = 0;
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_complete: completing the access epoch failed");
    return MPI_SUCCESS;
}

static void end_exposure(empi_win_t *w)
{
    atomic_thread_fence(memory_order_seq_cst);
    free(w->done_reqs);
    free(w->post_ranks);
    w->done_reqs = NULL;
    w->post_ranks = NULL;
    w->npost = 0;
    w->posted = 0;
}

EMPI_WEAK_ALIAS(Win_wait)
int PMPI_Win_wait(MPI_Win win)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_wait", &w));
    if (!w->posted)
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_wait: no exposure epoch was posted");
    empi_lock();
    int rc = empi_waitall_release(w->npost, w->done_reqs);
    end_exposure(w);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_wait: waiting for the origins failed");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_test)
int PMPI_Win_test(MPI_Win win, int *flag)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_test", &w));
    if (!flag)
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_test: flag is NULL");
    if (!w->posted)
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_test: no exposure epoch was posted");
    empi_lock();
    int done = 1;
    for (int i = 0; i < w->npost && done; i++)
        done = empi_request_test(w->done_reqs[i]);
    *flag = done;
    int rc = MPI_SUCCESS;
    if (done) {
        rc = empi_waitall_release(w->npost, w->done_reqs);
        end_exposure(w);
    }
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_test: the origins' notices failed");
    return MPI_SUCCESS;
}
