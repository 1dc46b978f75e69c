/*
 * Alltoallv on one node, shared memory: every rank posts in the segment, for each destination,
 * how its block travels. Block sizes differ from rank to rank, so no table rule could pick one
 * method for everybody; deciding per block lets each pair use what suits its own size while every
 * rank runs the same algorithm:
 *   - small blocks (any that fit, without CMA) are copied into the sender's slot with the post and
 *     copied out by the receiver;
 *   - larger ones, where every pair can read the other's memory (CMA), stay in the send buffer and
 *     the receiver reads them from there; the sender then waits for every reader before returning;
 *   - otherwise they follow in pieces of slot / p bytes, one epoch each, as alltoall's blocks do.
 *     How many pieces is only known once every rank has posted (each posts its largest such
 *     block), so epochs are added during the call: blocking calls only.
 * Non-contiguous types are packed and unpacked block by block. No MPI_IN_PLACE (then linear).
 * Cost: 1 sync (+1 when a block was read in place, +1 per piece); per small or pieced block 2
 * copies, per block read in place 1 read across processes.
 */
#include "coll/shm/coll_shm.h"
#include "core/copy.h"

/* With single-copy reads, blocks up to this size go through the slot with the post (above, a read
   is cheaper than two copies); without them, every block that fits. */
#define A2AV_SLOT_BLOCK (16 * 1024)
#define A2AV_IN_SLOT (1ull << 63)    /* in an entry's bytes: `where` is an offset in the slot */
#define A2AV_IN_PIECES (1ull << 62)  /* in an entry's bytes: the block follows in pieces */
#define A2AV_INLINE (1ull << 61)     /* in an entry's bytes: the block is `where` itself (<= 8 bytes) */
#define A2AV_BYTES(b) ((size_t)((b) & ~(A2AV_IN_SLOT | A2AV_IN_PIECES | A2AV_INLINE)))

/* A rank's post for one destination, in its medium buffer of the first epoch; entry p holds its
   largest pieced block. */
typedef struct {
    uint64_t where;   /* offset in the sender's slot, or address in its memory */
    uint64_t bytes;
} a2av_entry_t;

#define A2AV_MAX_RANKS ((int)(EMPI_SHM_MEDIUM / sizeof(a2av_entry_t)) - 1)

/* Where each block starts as contiguous bytes, fixed when the schedule is built. */
typedef struct {
    const char **sblk;
    size_t *sbytes;
    char **rblk;
    size_t *rroom;
    /* this run's state; posts are copied here as they are read, since a rank done with the
       call may post its next collective's in the same memory while others are still here */
    uint64_t *sent, *got;   /* bytes and way, per destination / per source (cut to our room) */
    size_t rtotal;       /* bytes of all receive blocks: large totals are written past the caches */
    int exposed;         /* a block was left in the send buffer: wait for its reader */
    uint64_t first;      /* epoch of the posts */
    uint64_t pieces;     /* epochs of pieces after it */
} a2av_plan_t;

static a2av_entry_t *entries(struct empi_coll_shm *m, int r, uint64_t e)
{
    return (a2av_entry_t *)empi_shm_medium(m, e, r);
}

static size_t piece_bytes(const struct empi_coll_shm *m)
{
    return (m->slot / (size_t)m->p) & ~(size_t)63;
}

/* Post every block's way; sets pl->exposed. */
static void post_blocks(struct empi_coll_shm *m, a2av_plan_t *pl, uint64_t e)
{
    a2av_entry_t *mine = entries(m, m->me, e);
    char *slot = empi_shm_slot(m, (int)(e & 1), m->me);
    size_t used = 0, largest = 0;
    /* without single-copy reads, whatever fits the slot goes now rather than in a later piece */
    size_t slot_block = m->cma ? A2AV_SLOT_BLOCK : m->slot;
    pl->exposed = 0;
    for (int d = 0; d < m->p; d++) {
        size_t n = pl->sbytes[d];
        if (d == m->me || n == 0) {
            mine[d] = (a2av_entry_t){0, n};
        } else if (n <= sizeof mine[d].where) {   /* one cache line less for the reader */
            memcpy(&mine[d].where, pl->sblk[d], n);
            mine[d].bytes = n | A2AV_INLINE;
        } else if (n <= slot_block && n <= m->slot - used) {
            empi_copy(slot + used, pl->sblk[d], n);
            mine[d] = (a2av_entry_t){used, n | A2AV_IN_SLOT};
            used = (used + n + 63) & ~(size_t)63;
        } else if (m->cma) {
            mine[d] = (a2av_entry_t){(uint64_t)(uintptr_t)pl->sblk[d], n};
            pl->exposed = 1;
        } else {
            mine[d] = (a2av_entry_t){0, n | A2AV_IN_PIECES};
            largest = n > largest ? n : largest;
        }
    }
    mine[m->p] = (a2av_entry_t){0, largest};
    for (int d = 0; d < m->p; d++)
        pl->sent[d] = mine[d].bytes;
}

/* The bytes of r's block to us, cut to our room (noting the truncation). */
static size_t incoming(empi_shm_op_t *o, const a2av_plan_t *pl, int r, a2av_entry_t post)
{
    size_t n = A2AV_BYTES(post.bytes);
    if (n > pl->rroom[r]) {
        o->err = MPI_ERR_TRUNCATE;
        n = pl->rroom[r];
    }
    return n;
}

/* The posts' epoch: own block, small blocks, blocks read in place; learns how many pieces follow. */
static void take_posted(empi_shm_op_t *o, a2av_plan_t *pl)
{
    struct empi_coll_shm *m = o->m;
    uint64_t e = pl->first;
    size_t largest = 0;
    /* rank me reads me+1, me+2, ...: the readers spread over different senders */
    for (int k = 1; k < m->p; k++) {
        int r = (m->me + k) % m->p;
        a2av_entry_t *theirs = entries(m, r, e);
        a2av_entry_t post = theirs[m->me];
        largest = theirs[m->p].bytes > largest ? theirs[m->p].bytes : largest;
        size_t n = incoming(o, pl, r, post);
        pl->got[r] = (post.bytes - A2AV_BYTES(post.bytes)) | n;
        if (n == 0 || (post.bytes & A2AV_IN_PIECES))
            continue;
        if (post.bytes & A2AV_INLINE) {
            memcpy(pl->rblk[r], &theirs[m->me].where, n);
        } else if (post.bytes & A2AV_IN_SLOT) {
            empi_shm_copy_out(pl->rblk[r], empi_shm_slot(m, (int)(e & 1), r) + post.where, n, pl->rtotal);
        } else {
            int rc = empi_shm_read(m, r, pl->rblk[r], (const void *)(uintptr_t)post.where, n);
            if (rc != MPI_SUCCESS)
                o->err = rc;
        }
    }
    size_t q = piece_bytes(m), mine = entries(m, m->me, e)[m->p].bytes;
    largest = mine > largest ? mine : largest;
    pl->pieces = (largest + q - 1) / q;
    /* a blocking call: nothing took an epoch after ours, so every rank adds the same ones */
    if (pl->pieces)
        m->epoch = e + 1 + pl->pieces;
}

/* Piece k (from 0) of every pieced block: in at epoch e, out once all are in. */
static void put_piece(struct empi_coll_shm *m, const a2av_plan_t *pl, uint64_t k, uint64_t e)
{
    size_t q = piece_bytes(m);
    char *slot = empi_shm_slot(m, (int)(e & 1), m->me);
    for (int d = 0; d < m->p; d++) {
        size_t n = A2AV_BYTES(pl->sent[d]);
        if ((pl->sent[d] & A2AV_IN_PIECES) && n > k * q)
            empi_copy(slot + (size_t)d * q, pl->sblk[d] + k * q, n - k * q < q ? n - k * q : q);
    }
}

static void get_piece(empi_shm_op_t *o, const a2av_plan_t *pl, uint64_t k, uint64_t e)
{
    struct empi_coll_shm *m = o->m;
    size_t q = piece_bytes(m);
    for (int r = 0; r < m->p; r++) {
        if (r == m->me || !(pl->got[r] & A2AV_IN_PIECES))
            continue;
        size_t n = A2AV_BYTES(pl->got[r]);
        if (n > k * q)
            empi_shm_copy_out(pl->rblk[r] + k * q, empi_shm_slot(m, (int)(e & 1), r) + (size_t)m->me * q,
                              n - k * q < q ? n - k * q : q, pl->rtotal);
    }
}

/* Phases: 0 post, 1 take the posts, then per piece 2 put and 3 get; o->e is the current epoch. */
static int step(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    a2av_plan_t *pl = o->plan;
    for (;;) {
        uint64_t e = o->e;
        switch (o->phase) {
        case 0:
            /* our slot (parity of e) and medium buffer were last read two epochs ago */
            if (!empi_shm_all_done(m, e, m->slot))
                return 0;
            pl->first = e;
            post_blocks(m, pl, e);
            empi_shm_post(m, e, 2 * e + 1);
            o->err = MPI_SUCCESS;
            empi_copy(pl->rblk[m->me], pl->sblk[m->me], incoming(o, pl, m->me, (a2av_entry_t){0, pl->sbytes[m->me]}));
            o->phase = 1;
            break;
        case 1:
            if (!empi_shm_all_posted(m, e, 2 * e + 1))
                return 0;
            take_posted(o, pl);
            empi_shm_set_done(m, e, 1);
            o->phase = 2;
            if (pl->pieces == 0)
                goto out;
            o->e++;
            break;
        case 2:
            if (!empi_shm_all_done(m, e, m->slot))
                return 0;
            put_piece(m, pl, e - pl->first - 1, e);
            empi_shm_post(m, e, 2 * e + 1);
            o->phase = 3;
            break;
        case 3:
            if (!empi_shm_all_posted(m, e, 2 * e + 1))
                return 0;
            get_piece(o, pl, e - pl->first - 1, e);
            empi_shm_set_done(m, e, 1);
            if (e - pl->first == pl->pieces)
                goto out;
            o->e++;
            o->phase = 2;
            break;
        default:
            goto out;
        }
    }
out:
    o->phase = 4;
    if (pl->exposed)
        return empi_shm_cma_finish(o);
    return o->err == MPI_SUCCESS ? 1 : -o->err;
}

/* Where each of the p blocks lies as contiguous bytes: in the user's buffer for a contiguous type,
   else in a packed copy laid out here (1 in *packed: the caller adds the copies). */
static int lay_out(empi_sched_t *s, const void *buf, const MPI_Count *counts, const MPI_Aint *displs,
                   const empi_datatype_t *dt, char **blk, size_t *bytes, int *packed)
{
    int p = s->comm->size;
    char *copy = NULL;
    *packed = !dt->is_contig;
    if (*packed && !(copy = empi_sched_tmp(s, (size_t)(empi_coll_sum(counts, p) * dt->size))))
        return MPI_ERR_NO_MEM;
    size_t off = 0;
    for (int i = 0; i < p; i++) {
        bytes[i] = (size_t)(counts[i] * dt->size);
        blk[i] = *packed ? copy + off : empi_coll_off(buf, displs[i], dt) + dt->true_lb;
        off += bytes[i];
    }
    return MPI_SUCCESS;
}

/* Pack (to_user 0) or unpack (1) every non-empty block between the user's buffer and its copy. */
static int copy_blocks(empi_sched_t *s, const void *buf, const MPI_Count *counts, const MPI_Aint *displs,
                       empi_datatype_t *dt, char **blk, const size_t *bytes, int to_user)
{
    for (int i = 0; i < s->comm->size; i++) {
        char *user = empi_coll_off(buf, displs[i], dt);
        if (bytes[i] == 0)
            continue;
        if (to_user)
            EMPI_TRY(empi_sched_copy(s, blk[i], (MPI_Count)bytes[i], empi_byte_type, user, counts[i], dt));
        else
            EMPI_TRY(empi_sched_copy(s, user, counts[i], dt, blk[i], (MPI_Count)bytes[i], empi_byte_type));
    }
    return empi_sched_fence(s);
}

EMPI_ALG(empi_alltoallv_shm)
{
    struct empi_coll_shm *m;
    int p = s->comm->size;
    if (a->in_place || p > A2AV_MAX_RANKS || !(m = empi_coll_shm_get(s->comm)) || piece_bytes(m) == 0)
        return empi_alltoallv_linear(s, a);
    a2av_plan_t *pl = empi_sched_tmp(s, sizeof *pl + (size_t)p * 2 * (sizeof(char *) + sizeof(size_t) + sizeof(uint64_t)));
    if (!pl)
        return MPI_ERR_NO_MEM;
    char **sblk = (char **)(pl + 1);
    pl->sblk = (const char **)sblk;
    pl->rblk = sblk + p;
    pl->sbytes = (size_t *)(pl->rblk + p);
    pl->rroom = pl->sbytes + p;
    pl->sent = (uint64_t *)(pl->rroom + p);
    pl->got = pl->sent + p;
    int spacked, rpacked;
    EMPI_TRY(lay_out(s, a->sbuf, a->scounts, a->sdispls, a->sdt, sblk, pl->sbytes, &spacked));
    EMPI_TRY(lay_out(s, a->rbuf, a->rcounts, a->rdispls, a->rdt, pl->rblk, pl->rroom, &rpacked));
    pl->rtotal = (size_t)(empi_coll_sum(a->rcounts, p) * a->rdt->size);
    if (spacked)
        EMPI_TRY(copy_blocks(s, a->sbuf, a->scounts, a->sdispls, a->sdt, sblk, pl->sbytes, 0));
    empi_shm_op_t o = {.step = step, .m = m, .count = 1, .piece = 1, .esize = 1, .plan = pl};
    EMPI_TRY(empi_shm_build(s, &o));
    if (rpacked)
        EMPI_TRY(copy_blocks(s, a->rbuf, a->rcounts, a->rdispls, a->rdt, pl->rblk, pl->rroom, 1));
    return MPI_SUCCESS;
}
