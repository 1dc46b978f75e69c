/*
 * One-sided operations in their everyday form, straight through: a target whose memory is mapped
 * here, an open access epoch, and for puts and gets one contiguous datatype on both sides with equal
 * counts; for accumulate, get-accumulate and fetch-and-op one predefined datatype on every side and
 * a predefined arithmetic, logical or bitwise operation. The general path (rma_op.c,
 * rma_direct.c) resolves datatypes, images and element types for any combination the standard
 * allows, and that generality cost half the time of an 8-byte MPI_Accumulate with a flush (0.10
 * us against Open MPI's 0.05) and a fifth of an 8-byte MPI_Put. Anything else, every error
 * included, is declined here and takes the general path, which raises it.
 *
 * Accumulates follow the same protocol as the general path (docs/RMA.md): one element that takes
 * a hardware atomic gets one under the shared accumulate lock; everything else runs the reduction
 * kernel under the exclusive lock.
 */
#include "core/copy.h"
#include "core/global.h"
#include "rma/win.h"

/* The target's mapped bytes [disp * disp_unit + lb, + bytes), lb being the datatype's true lower
   bound, or NULL when the call is not common (outside the window included: the general path
   raises that). */
static char *direct_target(empi_win_t *w, int target, MPI_Aint disp, MPI_Aint lb, MPI_Count bytes)
{
    if (target < 0 || target >= w->size || w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return NULL;
    empi_win_peer_t *p = &w->peers[target];
    MPI_Aint off;
    if (p->path != EMPI_RMA_DIRECT || disp < 0 || __builtin_mul_overflow(disp, (MPI_Aint)p->disp_unit, &off) ||
        __builtin_add_overflow(off, lb, &off) || off < 0 || bytes > p->size || off > p->size - bytes ||
        empi_win_access_ok(w, target) != MPI_SUCCESS)
        return NULL;
    return p->base + off;
}

int empi_rma_put_get_fast(empi_win_t *w, int get, const void *obuf, MPI_Count count, MPI_Datatype h, int target,
                          MPI_Aint disp)
{
    empi_datatype_t *dt = empi_datatype_get(h);
    MPI_Aint bytes;
    if (count <= 0 || !dt || !dt->committed || !dt->is_contig || __builtin_mul_overflow(count, dt->size, &bytes))
        return EMPI_RMA_FAST_DECLINED;
    char *t = direct_target(w, target, disp, dt->true_lb, bytes);
    if (!t)
        return EMPI_RMA_FAST_DECLINED;
    char *o = (char *)obuf + dt->true_lb;
    empi_lock();
    empi_rma_am_poll();
    if (get)
        empi_rma_get_bytes(w, o, t, (size_t)bytes);
    else
        empi_rma_put_bytes(w, t, o, (size_t)bytes);
    empi_unlock();
    return MPI_SUCCESS;
}

int empi_rma_acc_fast(empi_win_t *w, const void *obuf, MPI_Count count, MPI_Datatype h, void *rbuf, int target,
                      MPI_Aint disp, MPI_Op mop)
{
    empi_datatype_t *dt = empi_datatype_get(h);
    empi_op_t *op = empi_op_get(mop);
    if (count <= 0 || !dt || !dt->predefined || !op)
        return EMPI_RMA_FAST_DECLINED;
    empi_op_kernel_t kernel = empi_op_kernel_of(op, dt);
    MPI_Aint bytes;
    char *t;
    if (!kernel || __builtin_mul_overflow(count, dt->size, &bytes) ||
        !(t = direct_target(w, target, disp, 0, bytes)))
        return EMPI_RMA_FAST_DECLINED;
    empi_win_peer_t *p = &w->peers[target];
    if (!p->atomics || !p->slot || p->net_amo)
        return EMPI_RMA_FAST_DECLINED;

    _Atomic uint32_t *lock = &p->slot->acc_lock;
    empi_lock();
    empi_rma_am_poll();
    if (count == 1 && dt->basic_count == 1 && empi_rma_atomic_ok(dt, t) && !empi_rma_acc_bulk(bytes, dt)) {
        empi_win_acc_shared_acquire(lock);
        empi_rma_apply(op, dt, obuf, t, rbuf, 1, 1);
        empi_win_acc_shared_release(lock);
    } else {
        empi_win_spin_acquire(lock);
        if (rbuf)
            empi_copy(rbuf, t, (size_t)bytes);
        kernel(obuf, t, count * dt->basic_count);
        empi_win_spin_release(lock);
    }
    empi_unlock();
    return MPI_SUCCESS;
}
