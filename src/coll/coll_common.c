/*
 * Building blocks several algorithms share: the binomial broadcast and the binomial reduction.
 *
 * Trees are on relative ranks v = (rank - root) mod p: v's parent is v with its lowest set bit
 * cleared, its children v + m for the powers of two m below that bit.
 */
#include "coll/coll_algs.h"

#define CHECKRC(x)                     \
    do {                               \
        int rc_ = (x);                 \
        if (rc_ != MPI_SUCCESS)        \
            return rc_;                \
    } while (0)

static int span_of(int v, int p)
{
    if (v)
        return v & -v;
    int m = 1;
    while (m < p)
        m <<= 1;
    return m;
}

int empi_build_bcast_binomial(empi_sched_t *s, void *buf, MPI_Count count, empi_datatype_t *dt, int root)
{
    int p = s->comm->size, rank = s->comm->rank;
    if (p == 1)
        return MPI_SUCCESS;
    int v = (rank - root + p) % p, span = span_of(v, p);
    if (v) {
        CHECKRC(empi_sched_recv(s, buf, count, dt, (v - span + root) % p));
        CHECKRC(empi_sched_fence(s));
    }
    for (int m = span >> 1; m > 0; m >>= 1)
        if (v + m < p)
            CHECKRC(empi_sched_send(s, buf, count, dt, (v + m + root) % p));
    return empi_sched_fence(s);
}

/*
 * Children's partial results are received all at once into their own buffers, then folded in
 * order: child v+1 covers relative ranks [v+1, v+2), v+2 covers [v+2, v+4)..., so cur = cur op
 * child keeps rank order. Non-commutative ops use the tree rooted at rank 0 (relative order is
 * then rank order) and the result is forwarded to the root.
 */
int empi_build_reduce_binomial(empi_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                               empi_datatype_t *dt, empi_op_t *op, int root)
{
    int p = s->comm->size, rank = s->comm->rank;
    if (count == 0)
        return MPI_SUCCESS;
    if (p == 1) {
        if (sbuf != rbuf)
            CHECKRC(empi_sched_copy(s, sbuf, count, dt, rbuf, count, dt));
        return empi_sched_fence(s);
    }
    int troot = op->commutative ? root : 0;
    int v = (rank - troot + p) % p, span = span_of(v, p);
    const void *cur = sbuf;
    int nchild = 0;
    void *bufs[32];
    for (int m = 1; m < span && v + m < p; m <<= 1) {
        bufs[nchild] = empi_sched_tmp_dt(s, count, dt);
        if (!bufs[nchild])
            return MPI_ERR_NO_MEM;
        CHECKRC(empi_sched_recv(s, bufs[nchild], count, dt, (v + m + troot) % p));
        nchild++;
    }
    CHECKRC(empi_sched_fence(s));
    for (int i = 0; i < nchild; i++) {
        CHECKRC(empi_sched_reduce(s, cur, bufs[i], count, dt, op));
        cur = bufs[i];
    }
    if (v) {
        CHECKRC(empi_sched_send(s, cur, count, dt, (v - span + troot) % p));
    } else if (rank == root) {
        if (cur != rbuf)
            CHECKRC(empi_sched_copy(s, cur, count, dt, rbuf, count, dt));
    } else {
        CHECKRC(empi_sched_send(s, cur, count, dt, root));
    }
    if (rank == root && troot != root)
        CHECKRC(empi_sched_recv(s, rbuf, count, dt, troot));
    return empi_sched_fence(s);
}

int empi_bytes_begin(empi_sched_t *s, empi_bytes_view_t *v, void *buf, MPI_Count count, empi_datatype_t *dt,
                     int fill)
{
    v->buf = buf;
    v->count = count;
    v->dt = dt;
    v->len = count * dt->size;
    v->packed = !dt->is_contig;
    if (!v->packed) {
        v->bytes = (char *)buf + dt->true_lb;
        return MPI_SUCCESS;
    }
    v->bytes = empi_sched_tmp(s, (size_t)v->len);
    if (!v->bytes)
        return MPI_ERR_NO_MEM;
    if (fill) {
        CHECKRC(empi_sched_copy(s, buf, count, dt, v->bytes, v->len, empi_byte_type));
        CHECKRC(empi_sched_fence(s));
    }
    return MPI_SUCCESS;
}

int empi_bytes_finish(empi_sched_t *s, empi_bytes_view_t *v)
{
    if (!v->packed)
        return MPI_SUCCESS;
    CHECKRC(empi_sched_copy(s, v->bytes, v->len, empi_byte_type, v->buf, v->count, v->dt));
    return empi_sched_fence(s);
}

int empi_build_fold_to_pow2(empi_sched_t *s, void *buf, void *tmp, MPI_Count n, empi_datatype_t *dt,
                            empi_op_t *op, int *newrank)
{
    int p = s->comm->size, rank = s->comm->rank, rem = p - empi_coll_pow2_floor(p);
    if (rank >= 2 * rem) {
        *newrank = rank - rem;
        return MPI_SUCCESS;
    }
    if (rank % 2 == 0) {
        EMPI_TRY(empi_sched_send(s, buf, n, dt, rank + 1));
        *newrank = -1;
    } else {
        EMPI_TRY(empi_sched_recv(s, tmp, n, dt, rank - 1));
        EMPI_TRY(empi_sched_fence(s));
        EMPI_TRY(empi_sched_reduce(s, tmp, buf, n, dt, op));
        *newrank = rank / 2;
    }
    return empi_sched_fence(s);
}

int empi_build_halving_reduce_scatter(empi_sched_t *s, char *buf, char *tmp, MPI_Count n, empi_datatype_t *dt,
                                      empi_op_t *op, int newrank, int rem, MPI_Count **disp_out, int *lo_out,
                                      int *hi_out)
{
    int p2 = empi_coll_pow2_floor(s->comm->size);
    /* block b of p2 covers elements [disp(b), disp(b+1)) */
    MPI_Count *disp = empi_sched_tmp(s, (size_t)(p2 + 1) * sizeof *disp);
    if (!disp)
        return MPI_ERR_NO_MEM;
    for (int b = 0; b <= p2; b++)
        disp[b] = n / p2 * b + (b < n % p2 ? b : n % p2);
    int lo = 0, hi = p2;
    for (int mask = p2 >> 1; mask > 0; mask >>= 1) {
        int dst = empi_coll_fold_peer(newrank ^ mask, rem), mid = (lo + hi) / 2;
        int klo = (newrank & mask) ? mid : lo, khi = (newrank & mask) ? hi : mid;
        int slo = (newrank & mask) ? lo : mid, shi = (newrank & mask) ? mid : hi;
        EMPI_TRY(empi_sched_recv(s, empi_coll_off(tmp, disp[klo], dt), disp[khi] - disp[klo], dt, dst));
        EMPI_TRY(empi_sched_send(s, empi_coll_off(buf, disp[slo], dt), disp[shi] - disp[slo], dt, dst));
        EMPI_TRY(empi_sched_fence(s));
        EMPI_TRY(empi_sched_reduce(s, empi_coll_off(tmp, disp[klo], dt), empi_coll_off(buf, disp[klo], dt),
                                   disp[khi] - disp[klo], dt, op));
        lo = klo;
        hi = khi;
    }
    *disp_out = disp;
    *lo_out = lo;
    *hi_out = hi;
    return empi_sched_fence(s);
}
