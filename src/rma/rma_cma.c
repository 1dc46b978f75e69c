/*
 * Operations on private memory of a process on this node (the CMA path: windows made with
 * MPI_Win_create or attached to a dynamic window): process_vm_writev/readv move the bytes with
 * one iovec per run of the target datatype. Accumulates read the runs into a local image under
 * the target's accumulate lock, reduce there (rma_direct.c) and write the runs back.
 *
 * When the kernel refuses (ptrace policy), the peer switches to active messages for good:
 * EMPI_RMA_CMA_REFUSED tells the caller to retry the operation that way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "rma/win.h"

#define IOV_BATCH 512

typedef struct {
    struct iovec *riov;
    size_t n, cap;
    uint64_t tbase;      /* target buffer origin in the peer */
    MPI_Aint lo;         /* lowest displacement (image offset 0) */
} iov_list_t;

static int add_run(void *c, MPI_Aint disp, MPI_Count s, MPI_Count len)
{
    (void)s;
    iov_list_t *l = c;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        struct iovec *g = realloc(l->riov, cap * sizeof *g);
        if (!g)
            return MPI_ERR_NO_MEM;
        l->riov = g;
        l->cap = cap;
    }
    l->riov[l->n++] = (struct iovec){(void *)(uintptr_t)(l->tbase + (uint64_t)disp), (size_t)len};
    return 0;
}

/* Drop the first n bytes of an iovec array (entries consumed, the next one shortened). */
static void iov_advance(struct iovec **v, size_t *count, size_t n)
{
    while (n > 0 && *count > 0) {
        size_t take = n < (*v)->iov_len ? n : (*v)->iov_len;
        (*v)->iov_base = (char *)(*v)->iov_base + take;
        (*v)->iov_len -= take;
        n -= take;
        if ((*v)->iov_len == 0) {
            (*v)++;
            (*count)--;
        }
    }
}

/* Move the runs to/from the local buffer `local` (runs packed back to back, or at their image
   offsets when `image` is set). Returns 0, -1 on a bad address, EMPI_RMA_CMA_REFUSED. */
static int transfer(pid_t pid, int write, char *local, const iov_list_t *l, int image)
{
    struct iovec liov[IOV_BATCH];
    size_t at = 0;
    for (size_t i = 0; i < l->n; i += IOV_BATCH) {
        size_t k = l->n - i < IOV_BATCH ? l->n - i : IOV_BATCH, want = 0;
        for (size_t j = 0; j < k; j++) {
            const struct iovec *r = &l->riov[i + j];
            char *dst = image ? local + ((uint64_t)(uintptr_t)r->iov_base - l->tbase - (uint64_t)l->lo) : local + at;
            liov[j] = (struct iovec){dst, r->iov_len};
            at += r->iov_len;
            want += r->iov_len;
        }
        /* One call moves at most MAX_RW_COUNT (2 GiB - 4 KiB): go on from where it stopped. A bad
           address stops a call short too, and the next one then fails. */
        struct iovec riov[IOV_BATCH], *lv = liov, *rv = riov;
        memcpy(riov, &l->riov[i], k * sizeof *riov);
        size_t lk = k, rk = k;
        while (want > 0) {
            ssize_t n;
            do {
                n = write ? process_vm_writev(pid, lv, lk, rv, rk, 0) : process_vm_readv(pid, lv, lk, rv, rk, 0);
            } while (n < 0 && errno == EINTR);
            if (n < 0 && (errno == EPERM || errno == ENOSYS || errno == ESRCH))
                return EMPI_RMA_CMA_REFUSED;
            if (n <= 0)
                return -1;
            want -= (size_t)n;
            iov_advance(&lv, &lk, (size_t)n);
            iov_advance(&rv, &rk, (size_t)n);
        }
    }
    return 0;
}

int empi_rma_cma_rw(pid_t pid, int write, void *local, uint64_t remote, size_t len)
{
    iov_list_t l = {&(struct iovec){(void *)(uintptr_t)remote, len}, 1, 1, remote, 0};
    return transfer(pid, write, local, &l, 0);
}

static int cma_acc(empi_win_t *w, empi_rma_op_t *op, iov_list_t *l)
{
    empi_win_peer_t *p = &w->peers[op->target];
    const empi_datatype_t *tdt = op->tdt;
    MPI_Aint lo, span = empi_dt_span(op->tcount, tdt, &lo);
    l->lo = lo;
    char *img = malloc(span > 0 ? (size_t)span : 1);
    if (!img)
        return MPI_ERR_NO_MEM;
    empi_win_spin_acquire(&p->slot->acc_lock);
    int rc = transfer(p->pid, 0, img, l, 1);
    if (rc == 0) {
        rc = empi_rma_acc_image(op, img - lo);
        if (rc == MPI_SUCCESS && op->op->handle != MPI_NO_OP)
            rc = transfer(p->pid, 1, img, l, 1);
    }
    empi_win_spin_release(&p->slot->acc_lock);
    free(img);
    return rc;
}

static int cma_cas(empi_win_t *w, empi_rma_op_t *op, uint64_t tbase)
{
    empi_win_peer_t *p = &w->peers[op->target];
    size_t es = (size_t)op->elem->size;
    char cur[64];
    uint64_t at = tbase + (uint64_t)op->tdt->true_lb;
    empi_win_spin_acquire(&p->slot->acc_lock);
    int rc = empi_rma_cma_rw(p->pid, 0, cur, at, es);
    if (rc == 0) {
        memcpy(op->rbuf, cur, es);
        if (memcmp(cur, op->cbuf, es) == 0)
            rc = empi_rma_cma_rw(p->pid, 1, (void *)op->obuf, at, es);
    }
    empi_win_spin_release(&p->slot->acc_lock);
    return rc;
}

int empi_rma_cma(empi_win_t *w, empi_rma_op_t *op)
{
    empi_win_peer_t *p = &w->peers[op->target];
    uint64_t tbase = (uint64_t)(uintptr_t)p->base + (uint64_t)op->offset;
    if (op->kind == EMPI_RMA_CAS) {
        int rc = cma_cas(w, op, tbase);
        return rc < 0 ? MPI_ERR_RMA_RANGE : rc;
    }
    iov_list_t l = {NULL, 0, 0, tbase, 0};
    int rc = empi_dt_runs(op->tcount, op->tdt, add_run, &l);
    void *tmp = NULL;
    if (rc == 0) {
        switch (op->kind) {
        case EMPI_RMA_PUT: {
            const void *stream = empi_rma_stream(op->obuf, op->ocount, op->odt, op->bytes, &tmp);
            rc = stream ? transfer(p->pid, 1, (char *)stream, &l, 0) : MPI_ERR_NO_MEM;
            break;
        }
        case EMPI_RMA_GET: {
            char *buf = empi_rma_sink((void *)op->obuf, op->odt, op->bytes, &tmp);
            rc = buf ? transfer(p->pid, 0, buf, &l, 0) : MPI_ERR_NO_MEM;
            if (rc == 0 && tmp)
                empi_dt_unpack((void *)op->obuf, op->ocount, op->odt, 0, tmp, op->bytes);
            break;
        }
        default:
            rc = cma_acc(w, op, &l);
            break;
        }
    }
    free(tmp);
    free(l.riov);
    return rc < 0 ? MPI_ERR_RMA_RANGE : rc;
}
