/*
 * Dynamic windows: MPI_Win_attach and MPI_Win_detach expose regions of a process's memory, and
 * displacements are addresses in the target. Each rank publishes its regions in its control block
 * of the node segment under a sequence lock (odd while it changes), so node peers check the range
 * of an operation without asking the target. An origin on another node keeps the target's table as
 * last fetched and fetches it again (one active-message round trip) only when an operation falls
 * outside it; the target's handler checks every operation once more against its live table.
 */
#include <sched.h>
#include <stdatomic.h>

#include "core/error.h"
#include "core/global.h"
#include "rma/win.h"

static empi_win_slot_t *my_slot(empi_win_t *w)
{
    return w->peers[w->rank].slot;
}

/* [addr, addr + len) lies in the union of the regions: an access may run from one region into
   an adjacent one. */
static int regions_contain(const struct empi_win_region *r, uint32_t n, uint64_t addr, uint64_t len)
{
    uint64_t end = addr + len;
    if (end < addr)
        return 0;
    if (len == 0) {
        for (uint32_t i = 0; i < n; i++)
            if (addr >= r[i].base && addr <= r[i].base + r[i].size)
                return 1;
        return 0;
    }
    while (addr < end) {
        uint32_t i = 0;
        while (i < n && !(addr >= r[i].base && addr - r[i].base < r[i].size))
            i++;
        if (i == n)
            return 0;
        addr = r[i].base + r[i].size;
    }
    return 1;
}

static int slot_contains(empi_win_slot_t *s, uint64_t addr, uint64_t len)
{
    for (;;) {
        uint32_t seq = atomic_load_explicit(&s->dyn_seq, memory_order_acquire);
        if (seq & 1) {
            sched_yield();
            continue;
        }
        uint32_t n = s->ndyn < EMPI_WIN_DYN_MAX ? s->ndyn : EMPI_WIN_DYN_MAX;
        int found = regions_contain(s->dyn, n, addr, len);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&s->dyn_seq, memory_order_relaxed) == seq)
            return found;
    }
}

int empi_win_dyn_contains(empi_win_t *w, int t, uint64_t addr, uint64_t len)
{
    empi_win_peer_t *p = &w->peers[t];
    if (p->slot)
        return slot_contains(p->slot, addr, len);
    /* the table is replaced when an answer arrives, and asking is a round trip over the transport:
       both under the lock (callers check ranges before taking it, for the direct paths' sake) */
    empi_lock();
    int found = p->dyn_known && regions_contain(p->dyn_known, p->ndyn_known, addr, len);
    if (!found)
        found = empi_rma_am_regions(w, t) != MPI_SUCCESS /* cannot ask: the target's handler still checks */
                || p->dyn_partial || regions_contain(p->dyn_known, p->ndyn_known, addr, len);
    empi_unlock();
    return found;
}

int empi_win_dyn_table(empi_win_t *w, const struct empi_win_region **regions)
{
    empi_win_slot_t *s = my_slot(w);
    *regions = s->dyn;
    return (int)s->ndyn;
}

int empi_win_dyn_local_contains(empi_win_t *w, uint64_t addr, uint64_t len)
{
    return slot_contains(my_slot(w), addr, len);
}

static void begin_change(empi_win_slot_t *s)
{
    atomic_fetch_add_explicit(&s->dyn_seq, 1, memory_order_acq_rel);
}

static void end_change(empi_win_slot_t *s)
{
    atomic_fetch_add_explicit(&s->dyn_seq, 1, memory_order_release);
}

EMPI_WEAK_ALIAS(Win_attach)
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_attach", &w));
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return empi_err_win(w, MPI_ERR_RMA_FLAVOR, "MPI_Win_attach: the window is not a dynamic window");
    if (size < 0)
        return empi_err_win(w, MPI_ERR_SIZE, "MPI_Win_attach: size %ld is negative", (long)size);
    if (!base && size > 0)
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_attach: base is NULL");
    empi_win_slot_t *s = my_slot(w);
    empi_lock();
    if (s->ndyn >= EMPI_WIN_DYN_MAX) {
        empi_unlock();
        return empi_err_win(w, MPI_ERR_RMA_ATTACH, "MPI_Win_attach: more than %d regions are attached",
                            EMPI_WIN_DYN_MAX);
    }
    begin_change(s);
    s->dyn[s->ndyn].base = (uint64_t)(uintptr_t)base;
    s->dyn[s->ndyn].size = (uint64_t)size;
    s->ndyn++;
    end_change(s);
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Win_detach)
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    empi_win_t *w;
    EMPI_CHECK(empi_win_check(win, "MPI_Win_detach", &w));
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return empi_err_win(w, MPI_ERR_RMA_FLAVOR, "MPI_Win_detach: the window is not a dynamic window");
    empi_win_slot_t *s = my_slot(w);
    empi_lock();
    uint32_t i = 0;
    while (i < s->ndyn && s->dyn[i].base != (uint64_t)(uintptr_t)base)
        i++;
    if (i == s->ndyn) {
        empi_unlock();
        return empi_err_win(w, MPI_ERR_ARG, "MPI_Win_detach: %p is not the base of an attached region", base);
    }
    begin_change(s);
    s->dyn[i] = s->dyn[s->ndyn - 1];
    s->ndyn--;
    end_change(s);
    empi_unlock();
    return MPI_SUCCESS;
}
