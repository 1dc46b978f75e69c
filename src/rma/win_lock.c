/*
 * Passive-target synchronization: MPI_Win_lock/unlock and lock_all/unlock_all.
 *
 * Every rank's memory has one reader/writer lock word in the node segment. A node peer takes it
 * with an atomic on the word itself; a peer reached by active messages asks the target, whose
 * handler takes the same word for it (rma_am.c), so both kinds of lockers exclude each other.
 * Locks are acquired eagerly (the standard allows lazy acquisition, but an uncontended
 * compare-and-swap is cheaper than any bookkeeping that would defer it).
 *
 * A writer that finds the word taken raises EMPI_WIN_LOCK_WAITING, and readers arriving then hold
 * back, so that overlapping readers cannot keep it out forever (7 ranks cycling lock_all held one
 * exclusive lock out for over 60 s). Only for EMPI_WIN_READER_PATIENCE_NS, though: a reader that
 * must get in for the holders to progress (they wait in a barrier for it, say) then takes its
 * share anyway.
 */
#include <sched.h>
#include <stdatomic.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "rma/win.h"

int empi_win_lock_try(_Atomic uint64_t *word, int exclusive, int defer)
{
    uint64_t cur = atomic_load_explicit(word, memory_order_relaxed);
    if (exclusive) {
        /* taking it clears the waiting flag; other waiting writers raise it again */
        if ((cur & ~EMPI_WIN_LOCK_WAITING) == 0 &&
            atomic_compare_exchange_strong_explicit(word, &cur, EMPI_WIN_LOCK_WRITER, memory_order_acquire,
                                                    memory_order_relaxed))
            return 1;
        if (!(cur & EMPI_WIN_LOCK_WAITING))
            atomic_fetch_or_explicit(word, EMPI_WIN_LOCK_WAITING, memory_order_relaxed);
        return 0;
    }
    uint64_t keep_out = EMPI_WIN_LOCK_WRITER | (defer ? EMPI_WIN_LOCK_WAITING : 0);
    while (!(cur & keep_out))
        if (atomic_compare_exchange_weak_explicit(word, &cur, cur + 1, memory_order_acquire, memory_order_relaxed))
            return 1;
    return 0;
}

void empi_win_lock_release(_Atomic uint64_t *word, int exclusive)
{
    if (exclusive)   /* a writer may have raised the waiting flag meanwhile: keep it */
        atomic_fetch_and_explicit(word, ~EMPI_WIN_LOCK_WRITER, memory_order_release);
    else
        atomic_fetch_sub_explicit(word, 1, memory_order_release);
}

/* One try of a local locker; a reader defers to a waiting writer for EMPI_WIN_READER_PATIENCE_NS
   from its first failed try (*since, 0 before it). */
static int lock_try_fair(_Atomic uint64_t *word, int exclusive, uint64_t *since)
{
    int defer = exclusive || !*since || empi_now_ns() - *since < EMPI_WIN_READER_PATIENCE_NS;
    if (empi_win_lock_try(word, exclusive, defer))
        return 1;
    if (!*since)
        *since = empi_now_ns();
    return 0;
}

/*
 * The accumulate lock word: bit 0 is the lock, held for element updates with plain loads and
 * stores (held briefly, so a plain spin with pauses); bit 1 says a process waits for it, so that
 * no new shared holder comes in meanwhile (a stream of fetch-and-ops would otherwise keep a bulk
 * update out indefinitely); the bits above count, in steps of four, the processes applying
 * hardware atomics to the same memory, which hold it shared so that a bulk update excludes them.
 */
#define ACC_HELD 1u
#define ACC_WAITED 2u
#define ACC_SHARED 4u

static void acc_pause(unsigned *spins)
{
    if (++*spins % 1024 == 0)
        sched_yield();   /* the holder may be descheduled on an oversubscribed host */
    else
        __builtin_ia32_pause();
}

void empi_win_acc_shared_acquire(_Atomic uint32_t *word)
{
    unsigned spins = 0;
    for (;;) {
        if (!(atomic_fetch_add_explicit(word, ACC_SHARED, memory_order_acquire) & (ACC_HELD | ACC_WAITED)))
            return;
        atomic_fetch_sub_explicit(word, ACC_SHARED, memory_order_relaxed);
        while (atomic_load_explicit(word, memory_order_relaxed) & (ACC_HELD | ACC_WAITED))
            acc_pause(&spins);
    }
}

void empi_win_acc_shared_release(_Atomic uint32_t *word)
{
    atomic_fetch_sub_explicit(word, ACC_SHARED, memory_order_release);
}

/* Taking the lock clears the waiting flag; other waiters set it again on their next look. */
void empi_win_spin_acquire(_Atomic uint32_t *word)
{
    unsigned spins = 0;
    for (;;) {
        uint32_t v = atomic_load_explicit(word, memory_order_relaxed);
        if ((v & ~ACC_WAITED) == 0 &&
            atomic_compare_exchange_weak_explicit(word, &v, ACC_HELD, memory_order_acquire, memory_order_relaxed))
            return;
        if (!(v & ACC_WAITED))
            atomic_fetch_or_explicit(word, ACC_WAITED, memory_order_relaxed);
        acc_pause(&spins);
    }
}

/* Not a plain store of 0: a would-be shared holder may have counted itself in for a moment, and
   another process may have said it waits. */
void empi_win_spin_release(_Atomic uint32_t *word)
{
    atomic_fetch_sub_explicit(word, ACC_HELD, memory_order_release);
}

static int lock_target(empi_win_t *w, int t, int exclusive)
{
    empi_win_peer_t *p = &w->peers[t];
    if (p->path == EMPI_RMA_AM)
        return empi_rma_am_lock(w, t, exclusive);
    uint64_t since = 0;
    EMPI_PROGRESS_UNTIL(lock_try_fair(&p->slot->lock, exclusive, &since));
    return MPI_SUCCESS;
}

/*
 * Direct and CMA operations are complete already; the release store of the lock word orders them
 * before the next locker's acquire, so no full fence is needed here (a flush has one, for
 * store-then-load patterns inside an epoch).
 */
static int unlock_target(empi_win_t *w, int t, int exclusive)
{
    empi_win_peer_t *p = &w->peers[t];
    if (p->path == EMPI_RMA_AM) {
        int rc = empi_win_flush_peer(w, t);
        if (rc != MPI_SUCCESS)
            return rc;
        return empi_rma_am_unlock(w, t, exclusive);
    }
    empi_rma_am_poll();
    empi_win_lock_release(&p->slot->lock, exclusive);
    return MPI_SUCCESS;
}

/* NOCHECK: the user promises no conflicting lock exists; no_locks: that no lock is used at all.
   Either leaves the lock word alone, decided once per epoch (the hint may change inside one). */
static int skips_lock_word(const empi_win_t *w, int assert)
{
    return (assert & MPI_MODE_NOCHECK) || w->no_locks;
}

static int check_rank(empi_win_t *w, const char *fname, int rank)
{
    if (rank < 0 || rank >= w->size)
        return empi_err_win(w, MPI_ERR_RANK, "%s: rank %d is not in the window's group of %d", fname, rank, w->size);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_lock)
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_lock", &w));
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return empi_err_win(w, MPI_ERR_LOCKTYPE, "MPI_Win_lock: lock_type %d is neither shared nor exclusive",
                            lock_type);
    if (assert & ~MPI_MODE_NOCHECK)
        return empi_err_win(w, MPI_ERR_ASSERT, "MPI_Win_lock: assert %#x has flags lock does not take", assert);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    EMPI_CHECK(check_rank(w, "MPI_Win_lock", rank));
    empi_win_peer_t *p = &w->peers[rank];
    if (p->sync & (EMPI_WIN_SYNC_SHARED | EMPI_WIN_SYNC_EXCL))
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_lock: rank %d is already locked by this process", rank);
    if (w->lock_all || w->start_ranks || !empi_win_can_begin(w))
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_lock: another access epoch is open on the window");
    int excl = lock_type == MPI_LOCK_EXCLUSIVE;
    int nocheck = skips_lock_word(w, assert);
    empi_lock();
    int rc = nocheck ? MPI_SUCCESS : lock_target(w, rank, excl);
    if (rc == MPI_SUCCESS) {
        p->sync |= (uint8_t)(excl ? EMPI_WIN_SYNC_EXCL : EMPI_WIN_SYNC_SHARED);
        if (nocheck)
            p->sync |= EMPI_WIN_SYNC_NOCHECK;
        w->nlocks++;
    }
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_lock: acquiring the lock of rank %d failed", rank);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_unlock)
int PMPI_Win_unlock(int rank, MPI_Win win)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_unlock", &w));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    EMPI_CHECK(check_rank(w, "MPI_Win_unlock", rank));
    empi_win_peer_t *p = &w->peers[rank];
    if (!(p->sync & (EMPI_WIN_SYNC_SHARED | EMPI_WIN_SYNC_EXCL)))
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_unlock: rank %d is not locked by MPI_Win_lock", rank);
    empi_lock();
    int rc;
    if (p->sync & EMPI_WIN_SYNC_NOCHECK)
        rc = empi_win_flush_peer(w, rank);
    else
        rc = unlock_target(w, rank, (p->sync & EMPI_WIN_SYNC_EXCL) != 0);
    p->sync &= (uint8_t)~(EMPI_WIN_SYNC_SHARED | EMPI_WIN_SYNC_EXCL | EMPI_WIN_SYNC_NOCHECK);
    w->nlocks--;
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_unlock: completing the epoch on rank %d failed", rank);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_lock_all)
int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_lock_all", &w));
    if (assert & ~MPI_MODE_NOCHECK)
        return empi_err_win(w, MPI_ERR_ASSERT, "MPI_Win_lock_all: assert %#x has flags lock_all does not take",
                            assert);
    if (w->lock_all || w->nlocks || w->start_ranks || !empi_win_can_begin(w))
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_lock_all: another access epoch is open on the window");
    empi_lock();
    int rc = MPI_SUCCESS;
    int nocheck = skips_lock_word(w, assert);
    int t;
    for (t = 0; t < w->size; t++) {
        if (!nocheck && (rc = lock_target(w, t, 0)) != MPI_SUCCESS)
            break;
        w->peers[t].sync |= (uint8_t)(EMPI_WIN_SYNC_ALL | (nocheck ? EMPI_WIN_SYNC_NOCHECK : 0));
    }
    if (rc == MPI_SUCCESS) {
        w->lock_all = 1;
    } else { /* no epoch: give back the locks already taken */
        while (t-- > 0) {
            unlock_target(w, t, 0);
            w->peers[t].sync &= (uint8_t)~EMPI_WIN_SYNC_ALL;
        }
    }
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_lock_all: acquiring the locks failed");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_unlock_all)
int PMPI_Win_unlock_all(MPI_Win win)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_unlock_all", &w));
    if (!w->lock_all)
        return empi_err_win(w, MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all: the window is not locked by MPI_Win_lock_all");
    empi_lock();
    int rc = MPI_SUCCESS;
    for (int t = 0; t < w->size; t++) {
        empi_win_peer_t *p = &w->peers[t];
        if (!(p->sync & EMPI_WIN_SYNC_ALL))
            continue;
        int r = (p->sync & EMPI_WIN_SYNC_NOCHECK) ? empi_win_flush_peer(w, t) : unlock_target(w, t, 0);
        if (r != MPI_SUCCESS)
            rc = r;
        p->sync &= (uint8_t)~(EMPI_WIN_SYNC_ALL | EMPI_WIN_SYNC_NOCHECK);
    }
    w->lock_all = 0;
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_win(w, rc, "MPI_Win_unlock_all: completing the epoch failed");
    return MPI_SUCCESS;
}
