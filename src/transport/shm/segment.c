/* Creation, mapping and early unlinking of the node's shared segment. */
#include "transport/shm/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/global.h"
#include "core/shm_file.h"
#include "core/tunables.h"
#include "transport/shm/ring.h"

#define EMPI_SHM_MAGIC UINT64_C(0x454d50492d53484d) /* "EMPI-SHM" */
#define EMPI_SHM_PAGE 4096u

size_t empi_shm_ring_bytes(size_t ring_size, size_t budget, int local_size)
{
    size_t want = ring_size;
    if (local_size > 1 && budget / (size_t)(local_size - 1) < want)
        want = budget / (size_t)(local_size - 1);
    /* Round down so the budget holds; the floor wins over the budget for very wide nodes. */
    size_t bytes = EMPI_RING_MIN_BYTES;
    while (bytes * 2 <= want && bytes * 2 <= EMPI_RING_MAX_BYTES)
        bytes *= 2;
    return bytes;
}

static size_t coop_offset(int local_size)
{
    size_t raw = sizeof(empi_shm_header_t) + (size_t)local_size * sizeof(empi_shm_slot_t);
    return (raw + EMPI_CACHELINE - 1) / EMPI_CACHELINE * EMPI_CACHELINE;
}

static size_t header_bytes(int local_size)
{
    size_t raw = coop_offset(local_size) + (size_t)local_size * EMPI_CACHELINE;
    return (raw + EMPI_SHM_PAGE - 1) / EMPI_SHM_PAGE * EMPI_SHM_PAGE;
}

_Atomic uint64_t *empi_shm_segment_coop(const empi_shm_segment_t *seg, int l)
{
    return (_Atomic uint64_t *)((char *)seg->hdr + coop_offset(seg->local_size) + (size_t)l * EMPI_CACHELINE);
}

static size_t rings_bytes(int local_size, size_t ring_bytes)
{
    return ring_bytes ? (size_t)local_size * (size_t)(local_size - 1) * empi_ring_shared_bytes(ring_bytes) : 0;
}

static size_t pair_cells_bytes(size_t cell_stride, int cells)
{
    return cell_stride * (size_t)cells;
}

static size_t cells_offset(const empi_shm_segment_t *seg)
{
    return header_bytes(seg->local_size) + rings_bytes(seg->local_size, seg->ring_bytes) +
           rings_bytes(seg->local_size, seg->bulk_bytes);
}

static size_t segment_bytes(const empi_shm_segment_t *seg)
{
    size_t pairs = (size_t)seg->local_size * (size_t)(seg->local_size - 1) / 2;
    return cells_offset(seg) + pairs * pair_cells_bytes(seg->cell_stride, seg->cells);
}

static size_t pair_index(const empi_shm_segment_t *seg, int dst, int src)
{
    return (size_t)dst * (size_t)(seg->local_size - 1) + (size_t)(src < dst ? src : src - 1);
}

void *empi_shm_segment_ring(const empi_shm_segment_t *seg, int dst, int src)
{
    return (char *)seg->hdr + header_bytes(seg->local_size) +
           pair_index(seg, dst, src) * empi_ring_shared_bytes(seg->ring_bytes);
}

void *empi_shm_segment_cells(const empi_shm_segment_t *seg, int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    size_t pair = (size_t)hi * (size_t)(hi - 1) / 2 + (size_t)lo;
    return (char *)seg->hdr + cells_offset(seg) + pair * pair_cells_bytes(seg->cell_stride, seg->cells);
}

void *empi_shm_segment_bulk(const empi_shm_segment_t *seg, int dst, int src)
{
    return (char *)seg->hdr + header_bytes(seg->local_size) + rings_bytes(seg->local_size, seg->ring_bytes) +
           pair_index(seg, dst, src) * empi_ring_shared_bytes(seg->bulk_bytes);
}

static int map_fd(empi_shm_segment_t *seg, int fd)
{
    void *p = mmap(NULL, seg->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -1;
    seg->hdr = p;
    return 0;
}

/*
 * tmpfs accepts a sparse file larger than its free space and later kills us with SIGBUS on first
 * touch (Docker gives /dev/shm 64 MiB), so check the room up front and say what to shrink.
 */
static int room_for(empi_shm_segment_t *seg)
{
    struct statvfs fs;
    if (statvfs("/dev/shm", &fs) != 0 || (uint64_t)fs.f_bavail * fs.f_frsize >= seg->bytes)
        return 1;
    if (seg->cells) {
        /* Cells are a speed-up, not a need: without them every packet goes through the rings. */
        seg->cells = 0;
        seg->cell_stride = 0;
        seg->bytes = segment_bytes(seg);
        return room_for(seg);
    }
    if (seg->bulk_bytes) {
        /* The bulk rings are a speed-up, not a need: without them large messages use the rings. */
        seg->bulk_bytes = 0;
        seg->bytes = segment_bytes(seg);
        return room_for(seg);
    }
    fprintf(stderr, "EtherMPI: /dev/shm has %llu bytes free but the shared segment needs %zu; lower "
                    "EMPI_SHM_RING_BUDGET or EMPI_SHM_RING_SIZE, or enlarge /dev/shm\n",
            (unsigned long long)fs.f_bavail * fs.f_frsize, seg->bytes);
    return 0;
}

/* Local rank 0: a fresh, zero-filled segment with the geometry written in. */
static int create_segment(empi_shm_segment_t *seg)
{
    if (!room_for(seg)) {
        errno = ENOSPC;
        return -1;
    }
    int fd = empi_shm_file_create(seg->name, seg->bytes);
    if (fd < 0)
        return -1;
    int rc = map_fd(seg, fd);
    close(fd);
    if (rc != 0)
        return -1;
    seg->hdr->ring_bytes = seg->ring_bytes;
    seg->hdr->bulk_bytes = seg->bulk_bytes;
    seg->hdr->cell_stride = seg->cell_stride;
    seg->hdr->cells = (uint64_t)seg->cells;
    seg->hdr->local_size = seg->local_size;
    seg->hdr->node_flags = seg->node_flags;
    seg->hdr->magic = EMPI_SHM_MAGIC;
    return 0;
}

static int open_segment(empi_shm_segment_t *seg)
{
    int fd = shm_open(seg->name, O_RDWR, 0600);
    if (fd < 0)
        return -1;
    /* The size comes from the file: only the creator knows whether the bulk rings and cells fitted. */
    struct stat st;
    int rc = -1;
    seg->bulk_bytes = 0;
    seg->cells = 0;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= segment_bytes(seg)) {
        seg->bytes = (size_t)st.st_size;
        rc = map_fd(seg, fd);
    }
    close(fd);
    if (rc != 0)
        return -1;
    seg->bulk_bytes = seg->hdr->bulk_bytes;
    seg->cell_stride = seg->hdr->cell_stride;
    seg->cells = (int)seg->hdr->cells;
    seg->node_flags = seg->hdr->node_flags;
    if (seg->hdr->magic != EMPI_SHM_MAGIC || seg->hdr->ring_bytes != seg->ring_bytes ||
        seg->hdr->local_size != seg->local_size || segment_bytes(seg) != seg->bytes) {
        errno = EINVAL;  /* ranks disagree on geometry: different EMPI_SHM_* settings */
        return -1;
    }
    return 0;
}

/* With EMPI_SHM_PREFAULT, write every page of our incoming rings now: they land in our memory and
   never fault later. Otherwise only each ring's first page, which the receiver polls from the start;
   the rest comes page by page as traffic reaches it, and only for the pairs that talk. */
static void touch_incoming(empi_shm_segment_t *seg, int me)
{
    char *first = empi_shm_segment_ring(seg, me, me == 0 ? 1 : 0);
    size_t ring = empi_ring_shared_bytes(seg->ring_bytes), bytes = (size_t)(seg->local_size - 1) * ring;
    size_t step = empi_tunables.shm_prefault ? EMPI_SHM_PAGE : ring;
    for (size_t off = 0; off < bytes; off += step)
        *(volatile char *)(first + off) = 0;
}

int empi_shm_segment_attach(empi_shm_segment_t *seg, const empi_boot_info_t *boot, size_t ring_bytes,
                            size_t bulk_bytes, size_t cell_stride, int cells, uint32_t node_flags)
{
    memset(seg, 0, sizeof *seg);
    seg->node_flags = node_flags;
    seg->local_size = boot->local_size;
    seg->ring_bytes = ring_bytes;
    seg->bulk_bytes = bulk_bytes;
    seg->cell_stride = cells ? cell_stride : 0;
    seg->cells = cell_stride ? cells : 0;
    seg->creator = boot->local_rank == 0;
    seg->bytes = segment_bytes(seg);
    /* Per host: in a test, several "hosts" (network namespaces) share one /dev/shm. */
    snprintf(seg->name, sizeof seg->name, "/empi-%s-n%d-shm", boot->jobid, boot->node_id);

    int rc = 0, fence_rc = 0;
    const char *failed = NULL;
    if (seg->creator && (rc = create_segment(seg)) != 0)
        failed = "create";
    fence_rc |= empi_boot_fence();
    if (!seg->creator && (rc = open_segment(seg)) != 0)
        failed = "open";
    if (rc == 0) {
        seg->hdr->slots[boot->local_rank].world_rank = boot->rank;
        seg->hdr->slots[boot->local_rank].pid = (int32_t)getpid();
        touch_incoming(seg, boot->local_rank);
    }
    int saved_errno = errno;
    fence_rc |= empi_boot_fence();
    if (seg->creator) {
        shm_unlink(seg->name);
        seg->unlinked = 1;
    }
    if (failed) {
        fprintf(stderr, "EtherMPI: rank %d: cannot %s shared segment %s (%zu bytes): %s\n", boot->rank,
                failed, seg->name, seg->bytes, strerror(saved_errno));
        empi_shm_segment_detach(seg);
        return -1;
    }
    if (fence_rc != 0) {
        empi_shm_segment_detach(seg);
        return -1;
    }
    /* A rank that failed to map leaves its slot zero: world rank 0 with pid 0 flags it. */
    for (int i = 0; i < seg->local_size; i++)
        if (seg->hdr->slots[i].pid == 0) {
            empi_shm_segment_detach(seg);
            return -1;
        }
    return 0;
}

void empi_shm_segment_detach(empi_shm_segment_t *seg)
{
    if (seg->hdr)
        munmap(seg->hdr, seg->bytes);
    seg->hdr = NULL;
    if (seg->creator && !seg->unlinked) {
        shm_unlink(seg->name);
        seg->unlinked = 1;
    }
}
