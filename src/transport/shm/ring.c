/* Setup of the SPSC packet ring; the data path is inline in ring.h. */
#include "transport/shm/ring.h"

#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

size_t empi_ring_round_size(size_t bytes)
{
    size_t size = EMPI_RING_MIN_BYTES;
    while (size < bytes && size < EMPI_RING_MAX_BYTES)
        size <<= 1;
    return size;
}

/* Asked once: every ring of the process takes the answer, and CPUID exits to the hypervisor in a
   virtual machine. */
static int cpu_has_prefetchw(void)
{
#if defined(__x86_64__) || defined(__i386__)
    static int known = -1;
    if (known < 0) {
        unsigned a, b, c, d;
        known = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & bit_PRFCHW);
    }
    return known;
#else
    return 1;
#endif
}

int empi_ring_tx_init(empi_ring_tx_t *tx, void *shared, size_t ring_bytes)
{
    empi_ring_ctrl_t *ctrl = shared;
    uint64_t ncells = ring_bytes / EMPI_RING_CELL;
    tx->cells = (unsigned char *)shared + EMPI_RING_CTRL_BYTES;
    tx->mask = ncells - 1;
    tx->tail = 0;
    tx->head_cache = 0;
    tx->head = &ctrl->head;
    tx->payload_first = calloc((ncells + 63) / 64, sizeof(uint64_t));
    tx->take_ahead = cpu_has_prefetchw();
    return tx->payload_first ? 0 : -1;
}

void empi_ring_tx_fini(empi_ring_tx_t *tx)
{
    free(tx->payload_first);
    tx->payload_first = NULL;
}

void empi_ring_rx_init(empi_ring_rx_t *rx, void *shared, size_t ring_bytes)
{
    empi_ring_ctrl_t *ctrl = shared;
    uint64_t ncells = ring_bytes / EMPI_RING_CELL;
    rx->cells = (unsigned char *)shared + EMPI_RING_CTRL_BYTES;
    rx->mask = ncells - 1;
    rx->head = 0;
    rx->published = 0;
    rx->publish_every = ncells / 4;
    rx->head_pub = &ctrl->head;
}
