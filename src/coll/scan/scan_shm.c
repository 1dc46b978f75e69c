/*
 * Scan and exscan, shared memory: every rank but the last copies its piece into its slot (inline
 * in its flag line up to 56 bytes) and raises its flag; each rank then folds the lower ranks'
 * pieces itself, rank me-1 down to 0 each combined on the left (acc = d_r op acc), which keeps rank
 * order for any op. No rank waits for another's result: when ranks outnumber cores a chain
 * (linear) passes the prefix along p-1 wake-ups one after the other, here each rank waits only
 * until the lower ranks have run once (4 ranks on 2 cores, calls separated by barriers: scan 4 B-1
 * KiB 0.5-0.8 of linear's time, exscan 0.4-0.7). Contiguous types.
 * Cost per piece: 1 copy in + 1 sync + r n gamma at rank r (the last: (p-1) n).
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

static int lower_posted(struct empi_coll_shm *m, uint64_t e)
{
    for (int r = 0; r < m->me; r++)
        if (!empi_shm_posted(m, r, e, 2 * e + 1))
            return 0;
    return 1;
}

static int step(empi_shm_op_t *o, int exclusive)
{
    struct empi_coll_shm *m = o->m;
    int me = m->me;
    if (o->phase == 0) {
        if (me < m->p - 1) {   /* nobody reads the last rank's piece */
            if (!empi_shm_all_done(m, o->e, o->len))
                return 0;
            empi_copy(empi_shm_data(m, o->e, me, o->len), o->sbuf + o->off0, o->len);
            empi_shm_post(m, o->e, 2 * o->e + 1);
        }
        o->phase = 1;
    }
    if (!lower_posted(m, o->e))
        return 0;
    int top = exclusive ? me - 1 : me;   /* highest rank folded in */
    char *acc = o->rbuf + o->off0;
    if (top >= 0) {
        if (exclusive)
            empi_copy(acc, empi_shm_data(m, o->e, top, o->len), o->len);
        else if (o->sbuf != o->rbuf)
            empi_copy(acc, o->sbuf + o->off0, o->len);
        for (int r = top - 1; r >= 0; r--) {
            int rc = empi_op_apply_data(o->op, empi_shm_data(m, o->e, r, o->len), acc, o->cnt, o->dt);
            if (rc != MPI_SUCCESS)
                return -rc;
        }
    }
    empi_shm_set_done(m, o->e, 0);
    return 1;
}

static int scan_step(empi_shm_op_t *o)
{
    return step(o, 0);
}

static int exscan_step(empi_shm_op_t *o)
{
    return step(o, 1);
}

static int op_for(empi_comm_t *comm, const empi_coll_args_t *a, int exclusive, empi_shm_op_t *o)
{
    if (comm->size < 2 || !empi_shm_reduce_op(comm, a, 1, o))
        return 0;
    o->step = exclusive ? exscan_step : scan_step;
    return 1;
}

static int build(empi_sched_t *s, const empi_coll_args_t *a, int exclusive)
{
    empi_shm_op_t o;
    if (!op_for(s->comm, a, exclusive, &o))
        return exclusive ? empi_exscan_linear(s, a) : empi_scan_linear(s, a);
    return empi_shm_build(s, &o);
}

static int run_fast(const empi_coll_args_t *a, int exclusive, int *rc)
{
    empi_shm_op_t o;
    if (!op_for(a->comm, a, exclusive, &o))
        return 0;
    *rc = empi_shm_run_direct(&o);
    return 1;
}

EMPI_ALG(empi_scan_shm)
{
    return build(s, a, 0);
}

EMPI_ALG(empi_exscan_shm)
{
    return build(s, a, 1);
}

int empi_scan_shm_fast(const empi_coll_args_t *a, int *rc)
{
    return run_fast(a, 0, rc);
}

int empi_exscan_shm_fast(const empi_coll_args_t *a, int *rc)
{
    return run_fast(a, 1, rc);
}
