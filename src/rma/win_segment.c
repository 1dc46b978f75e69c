/*
 * One shared segment per window and node: the control blocks of the window's ranks on this node
 * (lock words, accumulate lock, attached regions) followed by the memory of the allocate flavors.
 *
 * The lowest window rank of the node creates "/empi-<jobid>-win-<context>-<its world rank>", the
 * others map it, and the creator unlinks the name as soon as everyone has: from then on nothing
 * in /dev/shm can outlive the job, whatever way it ends (mpiexec also removes empi-<jobid>* names).
 * Creation is collective over the whole window (the agreement runs on its private communicator),
 * so a failure anywhere makes every rank fail the same way.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/global.h"
#include "core/shm_file.h"
#include "rma/win.h"

#define SEG_PAGE 4096u

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* Every rank of the window agrees on `ok` (logical AND). */
int empi_win_agree(empi_win_t *w, int ok)
{
    empi_coll_set_t set;
    empi_comm_set_all_of(w->comm, &set, EMPI_COMM_CREATE_TAG);
    int v = ok;
    if (empi_coll_set_allreduce_int(&set, &v, 1, EMPI_COLL_INT_AND) != MPI_SUCCESS)
        return 0;
    return v;
}

/* tmpfs takes a sparse file larger than its free space and SIGBUSes at first touch: check first. */
static int room_for(size_t bytes)
{
    struct statvfs fs;
    return statvfs("/dev/shm", &fs) != 0 || (uint64_t)fs.f_bavail * fs.f_frsize >= bytes;
}

/* mmap places a mapping on a page: a stricter alignment takes a larger reservation, trimmed. */
static void *map_aligned(int fd, size_t bytes, size_t align)
{
    if (align <= SEG_PAGE)
        return mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    char *r = mmap(NULL, bytes + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return MAP_FAILED;
    char *at = (char *)round_up((size_t)(uintptr_t)r, align);
    void *p = mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        munmap(r, bytes + align);
        return MAP_FAILED;
    }
    if (at > r)
        munmap(r, (size_t)(at - r));
    size_t tail = (size_t)(r + bytes + align - (at + bytes));
    if (tail)
        munmap(at + bytes, tail);
    return p;
}

static void *map_name(const char *name, size_t bytes, int create, size_t align)
{
    int fd;
    if (create) {
        fd = empi_shm_file_create(name, bytes);
    } else {
        fd = shm_open(name, O_RDWR, 0600);
    }
    if (fd < 0)
        return NULL;
    void *p = map_aligned(fd, bytes, align);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/*
 * data_bytes[i]: bytes of memory of node rank i (w->node_ranks[i]). contiguous: each rank's memory
 * starts right where the previous one's ends (Win_allocate_shared without alloc_shared_noncontig);
 * otherwise every rank's memory starts on its own page, or at a multiple of `align` when that is
 * larger (mpi_minimum_memory_alignment; contiguous memory aligns only where it starts). offs[i]
 * receives where node rank i's memory starts in seg.data (every rank computes the same layout from
 * the same sizes).
 */
int empi_win_seg_create(empi_win_t *w, const size_t *data_bytes, int contiguous, size_t align, size_t *offs)
{
    align = align > SEG_PAGE ? align : SEG_PAGE;
    size_t ctl = round_up((size_t)w->nnode * sizeof(empi_win_slot_t), align);
    size_t data = 0;
    for (int i = 0; i < w->nnode; i++) {
        offs[i] = contiguous ? data : round_up(data, align);
        data = offs[i] + data_bytes[i];
    }
    size_t bytes = ctl + round_up(data, SEG_PAGE);
    int leader = w->node_ranks[0] == w->rank;
    char name[96];
    snprintf(name, sizeof name, "/empi-%s-win-%u-%d", empi_g.boot.jobid, (unsigned)w->comm->context_id,
             w->comm->world_ranks[w->node_ranks[0]]);

    void *base = NULL;
    int ok = 1;
    if (leader)
        ok = room_for(bytes) && (base = map_name(name, bytes, 1, align)) != NULL;
    ok = empi_win_agree(w, ok);   /* every node's leader created its segment */
    if (ok && !leader)
        ok = (base = map_name(name, bytes, 0, align)) != NULL;
    int all = empi_win_agree(w, ok);   /* everyone mapped: the name can go */
    if (leader && ok)
        shm_unlink(name);
    if (!all) {
        if (base)
            munmap(base, bytes);
        return MPI_ERR_NO_MEM;
    }
    w->seg.base = base;
    w->seg.bytes = bytes;
    w->seg.slots = base;
    w->seg.data = (char *)base + ctl;
    return MPI_SUCCESS;
}

void empi_win_seg_destroy(empi_win_t *w)
{
    if (w->seg.base)
        munmap(w->seg.base, w->seg.bytes);
    memset(&w->seg, 0, sizeof w->seg);
}
