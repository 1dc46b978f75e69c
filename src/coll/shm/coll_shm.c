/*
 * Shared-memory collectives for communicators whose ranks all live on one host.
 *
 * One segment per communicator, created at the first shared-memory collective (rank 0 creates
 * "/empi-<jobid>-coll-<context>", the others map it, it is unlinked as soon as everyone has).
 * Layout, all cache-line aligned:
 *   per rank: EMPI_SHM_LINES "post" lines, each {seq, 56 inline data bytes}, and a "done" line
 *             {seq};
 *   per parity and rank: a data slot of m->slot bytes (slot_size());
 *   per rank: m->medium_lines medium buffers of EMPI_SHM_MEDIUM bytes (16-64, from p).
 *
 * Every shared-memory operation takes one epoch e per piece of at most a slot (all ranks count
 * epochs identically: collectives are called in the same order). Piece e uses post line
 * L = e % EMPI_SHM_LINES and, when its data does not fit inline, medium buffer
 * e % m->medium_lines (up to EMPI_SHM_MEDIUM bytes) or the slots of parity P = e & 1.
 *   post[r][L].seq = 2e+1   rank r's input of piece e is in place (or: root's data, for bcast)
 *   post[r][L].seq = 2e+2   rank r has reduced its slice of piece e (large reductions)
 *   done[r]        = e      rank r has finished reading everything of piece e
 * Before writing piece e a rank waits until every done >= e - EMPI_SHM_LINES (inline data),
 * e - m->medium_lines (medium) or e - 2 (slots), so nobody overwrites data still being read;
 * small pieces (a stream of small broadcasts) may run EMPI_SHM_LINES ahead of the slowest reader.
 * Gather's, scatter's and bcast's mid-size pieces are "deep": each takes one of 8-64 positions in
 * its writer's slot e & 1, so the writers may run that many pieces ahead (empi_shm_deep_free in
 * coll_shm.h). Sequence values only grow, so a waiter that finds a later value in a reused line is
 * right to go on.
 *
 * Reductions keep the standard's order for any op: the accumulator starts with the highest rank's
 * data and folds lower ranks in on the left (acc = d_i op acc), so every rank computes the same
 * bits. Small pieces are reduced by every rank on its own (no second synchronization); large ones
 * are cut into p slices reduced in parallel, then copied out.
 *
 * This file: segment set-up and the piece driver. The algorithms' steps (explicit state machines
 * in empi_shm_op_t, polled as one schedule POLL step, so the nonblocking forms use them too) live
 * with their collectives: barrier/barrier_shm.c, bcast/bcast_shm.c, reduce/reduce_shm.c,
 * allreduce/allreduce_shm.c, gather/gather_shm.c, scatter/scatter_shm.c, allgather/allgather_shm.c,
 * alltoall/alltoall_shm.c.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll/shm/coll_shm.h"
#include "core/error.h"
#include "core/global.h"
#include "core/progress.h"
#include "core/shm_file.h"
#include "core/tunables.h"
#include "pt2pt/pt2pt.h"

/* ---------------------------------------------------------------- setup */

static int agree(empi_comm_t *comm, int ok)
{
    empi_coll_set_t set;
    empi_comm_set_all_of(comm, &set, empi_coll_next_tag(comm));
    int v = ok;
    if (empi_coll_set_allreduce_int(&set, &v, 1, EMPI_COLL_INT_AND) != MPI_SUCCESS)
        return 0;
    return v;
}

/*
 * Single-copy algorithms need every pair to read each other's memory, and every rank must choose
 * them alike: each process's CMA probe decides alone, and ptrace policy may refuse some pairs, so
 * every rank reads a known word from every other and all agree.
 */
static int cma_agree(empi_comm_t *comm, struct empi_coll_shm *m)
{
    static const uint64_t probe = 0x45746865724d5049ull;
    m->ctl[m->me].done.probe = (uint64_t)(uintptr_t)&probe;
    /* where CMA serves large messages only, it is slow: not for the single-copy algorithms */
    int ok = agree(comm, m->p < 2 || empi_pt2pt_can_read(m->world[(m->me + 1) % m->p]));
    for (int r = 0; ok && r < m->p; r++) {
        uint64_t v = 0;
        if (r != m->me && (empi_pt2pt_read(m->world[r], &v, (const void *)(uintptr_t)m->ctl[r].done.probe,
                                           sizeof v) != 0 || v != probe))
            ok = 0;
    }
    return agree(comm, ok);
}

int empi_shm_read(struct empi_coll_shm *m, int r, void *local, const void *remote, size_t len)
{
    return empi_pt2pt_read(m->world[r], local, remote, len) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

int empi_shm_write(struct empi_coll_shm *m, int r, const void *local, void *remote, size_t len)
{
    return empi_pt2pt_write(m->world[r], local, remote, len) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

char *empi_shm_scratch(struct empi_coll_shm *m)
{
    if (!m->scratch)
        m->scratch = malloc(EMPI_SHM_CMA_CHUNK);
    return m->scratch;
}

int empi_shm_slice_buf(struct empi_coll_shm *m, uint64_t e, size_t len, char **buf)
{
    if (!empi_shm_all_reached(m, e - 1))
        return 0;
    *buf = NULL;
    if (len > m->slice_len) {
        char *b = realloc(m->slice, len);
        if (!b)
            return 1;
        m->slice = b;
        m->slice_len = len;
    }
    *buf = m->slice;
    return 1;
}

size_t empi_coll_shm_slot_wanted(int p)
{
    size_t want = empi_tunables.coll_shm_buffer / (2 * (size_t)p), slot = EMPI_SHM_SLOT_MIN;
    while (slot * 2 <= want && slot < EMPI_SHM_SLOT_MAX)
        slot *= 2;
    return slot;
}

unsigned empi_coll_shm_medium_lines(int p)
{
    unsigned n = EMPI_SHM_MEDIUM_LINES_MAX;
    while (n > EMPI_SHM_MEDIUM_LINES_MIN && (size_t)p * n * EMPI_SHM_MEDIUM > EMPI_SHM_MEDIUM_BUDGET)
        n /= 2;
    return n;
}

/* Two slots per rank within EMPI_COLL_SHM_BUFFER; the smallest any rank asks for, so that every
   rank maps the same layout even if their environments differ. */
static size_t slot_size(empi_comm_t *comm)
{
    int v = (int)empi_coll_shm_slot_wanted(comm->size);
    empi_coll_set_t set;
    empi_comm_set_all_of(comm, &set, empi_coll_next_tag(comm));
    if (empi_coll_set_allreduce_int(&set, &v, 1, EMPI_COLL_INT_MIN) != MPI_SUCCESS)
        return 0;
    return (size_t)v;
}

struct empi_coll_shm *empi_coll_shm_get(empi_comm_t *comm)
{
    empi_coll_comm_t *cc = empi_coll_comm(comm);
    if (!cc || !cc->single_node || cc->shm_failed)
        return NULL;
    if (cc->shm)
        return cc->shm;
    int p = comm->size;
    size_t slot = slot_size(comm);
    if (!slot) {
        cc->shm_failed = 1;
        return NULL;
    }
    size_t slots = 2 * (size_t)p * slot;
    unsigned mlines = empi_coll_shm_medium_lines(p);
    size_t len = (size_t)p * sizeof(shm_rank_t) + slots + (size_t)p * mlines * EMPI_SHM_MEDIUM;
    char name[96];
    snprintf(name, sizeof name, "/empi-%s-coll-%u-%d", empi_g.boot.jobid, (unsigned)comm->context_id,
             comm->world_ranks[0]);
    void *base = MAP_FAILED;
    int ok = 1;
    if (comm->rank == 0) {
        /* A full /dev/shm fails here, and everyone then uses point-to-point algorithms. */
        int fd = empi_shm_file_create(name, len);
        if (fd < 0)
            ok = 0;
        if (ok && (base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
            ok = 0;
        if (fd >= 0)
            close(fd);
    }
    ok = agree(comm, ok);   /* rank 0 created it (or everyone gives up) */
    if (ok && comm->rank != 0) {
        int fd = shm_open(name, O_RDWR, 0600);
        if (fd < 0 || (base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
            ok = 0;
        if (fd >= 0)
            close(fd);
    }
    int all = agree(comm, ok);   /* everyone mapped it: the name can go */
    if (comm->rank == 0 && (ok || all == 0))
        shm_unlink(name);
    if (!all) {
        if (base != MAP_FAILED)
            munmap(base, len);
        cc->shm_failed = 1;
        return NULL;
    }
    struct empi_coll_shm *m = calloc(1, sizeof *m);
    if (!m) {   /* cannot tell the others any more: keep the mapping, fail hard */
        empi_fatal(MPI_ERR_NO_MEM, "out of memory setting up shared-memory collectives");
    }
    m->base = base;
    m->len = len;
    m->p = p;
    m->slot = slot;
    m->me = comm->rank;
    m->ctl = base;
    m->slots = (char *)base + (size_t)p * sizeof(shm_rank_t);
    m->medium = m->slots + slots;
    m->medium_lines = mlines;
    m->epoch = 1;
    m->synced = 0;
    m->last_barrier_tag = -2;
    m->world = comm->world_ranks;
    m->cma = cma_agree(comm, m);
    m->crowded = cc->ranks_per_cpu > 1;
    cc->shm = m;
    return m;
}

void empi_coll_shm_free(struct empi_coll_shm *m)
{
    if (!m)
        return;
    munmap(m->base, m->len);
    free(m->scratch);
    free(m->slice);
    free(m);
}

/* ---------------------------------------------------------------- primitives */

/* ---------------------------------------------------------------- driver */

static void take_epochs(empi_shm_op_t *o)
{
    MPI_Count npieces = o->count ? (o->count + o->piece - 1) / o->piece : 1;
    o->e = o->m->epoch;
    o->m->epoch += (uint64_t)npieces;
    o->phase = 0;
    o->done_elems = 0;
}

/* a persistent start is a new collective call: fresh epochs */
static void restart_op(empi_sched_t *s)
{
    take_epochs(s->state);
}

static int drive(empi_shm_op_t *o)
{
    struct empi_coll_shm *m = o->m;
    for (;;) {
        if (o->phase == 0 && m->completed + 1 < o->e)
            return 0;   /* an earlier shared-memory collective (nonblocking) has not finished here */
        o->parity = (int)(o->e & 1);
        o->cnt = o->count - o->done_elems < o->piece ? o->count - o->done_elems : o->piece;
        o->len = (size_t)o->cnt * o->esize;
        o->off0 = (size_t)o->done_elems * o->esize;
        int phase = o->phase;
        int r = o->step(o);
        if (r != 0 || o->phase != phase)
            empi_progress_moved();   /* no packet says so (the deadlock watch, core/progress.c) */
        if (r <= 0)
            return r;
        o->done_elems += o->cnt;
        o->phase = 0;
        if (o->done_elems >= o->count)
            return 1;
        o->e++;
    }
}

static int poll_op(empi_sched_t *s, void *arg)
{
    (void)s;
    return drive(arg);
}

int empi_shm_build(empi_sched_t *s, const empi_shm_op_t *tmpl)
{
    _Static_assert(sizeof(empi_shm_op_t) <= sizeof s->state_inline, "empi_shm_op_t fits the schedule");
    empi_shm_op_t *o = (empi_shm_op_t *)s->state_inline;
    *o = *tmpl;
    s->state = o;
    s->restart = restart_op;
    if (!s->persistent)   /* persistent: epochs are taken at each start */
        take_epochs(o);
    EMPI_TRY(empi_sched_poll_ordered(s, poll_op, o, o->m, &o->e));
    return empi_sched_fence(s);
}

int empi_shm_run_direct(empi_shm_op_t *o)
{
    take_epochs(o);
    int idle = 0;
    for (;;) {
        int r = drive(o);
        if (r)
            return r < 0 ? -r : MPI_SUCCESS;
        if (empi_progress_poll() == 0)
            empi_progress_yield(&idle);
        else
            idle = 0;
    }
}
