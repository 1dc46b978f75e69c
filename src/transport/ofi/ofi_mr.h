/*
 * Memory-registration cache of the libfabric netmod, also the API the RMA layer uses for windows
 * (fi_read/fi_write/fi_atomic need a registered target and, under FI_MR_LOCAL, a registered origin).
 *
 * A registration covers whole pages and is reference counted: acquiring a range inside a live
 * registration with the same or fewer access rights reuses it. Released registrations stay cached
 * (least recently used first out) up to EMPI_OFI_MR_CACHE entries; with providers that pin memory
 * (FI_MR_ALLOCATED, FI_MR_LOCAL) the default keeps none, because the cache cannot see memory being
 * freed and given back, and libfabric's own cache, which can, sits below us there.
 *
 * The provider's mr_mode bits are handled here once, so callers never look at them:
 *   FI_MR_PROV_KEY   the key comes from the provider (else we pick unique requested keys)
 *   FI_MR_VIRT_ADDR  remote addresses are virtual addresses (else offsets from the region start):
 *                    empi_ofi_mr_raddr gives what a peer must put in its fi_read/fi_write
 *   FI_MR_ENDPOINT   registrations are bound to our endpoint and enabled
 *   FI_MR_LOCAL      local buffers need a descriptor: empi_ofi_mr_local_desc
 *   FI_MR_ALLOCATED  only mapped memory (page rounding stays inside mapped pages)
 */
#ifndef EMPI_OFI_MR_H
#define EMPI_OFI_MR_H

#include <stddef.h>
#include <stdint.h>

typedef struct empi_ofi_mr empi_ofi_mr_t;

/* Access rights, as libfabric's FI_READ/FI_WRITE/FI_REMOTE_READ/... bits. */
int empi_ofi_mr_acquire(const void *addr, size_t len, uint64_t access, empi_ofi_mr_t **out);
void empi_ofi_mr_release(empi_ofi_mr_t *mr);

void *empi_ofi_mr_desc(const empi_ofi_mr_t *mr);
uint64_t empi_ofi_mr_key(const empi_ofi_mr_t *mr);
uint64_t empi_ofi_mr_raddr(const empi_ofi_mr_t *mr, const void *addr);

/* 1 if local buffers of data transfers need a descriptor (FI_MR_LOCAL). */
int empi_ofi_mr_local_needed(void);

/* Drop cached (unreferenced) registrations overlapping [addr, addr+len): call before memory the
   caller registered goes back to the system (a freed window). */
void empi_ofi_mr_invalidate(const void *addr, size_t len);

/* Set-up and teardown by the netmod. `domain` and `ep` are struct fid_domain / fid_ep. */
void empi_ofi_mr_setup(void *domain, void *ep, uint64_t mr_mode, long idle_max);
void empi_ofi_mr_teardown(void);

/* Counters for diagnostics and tests: registrations made, cache hits. */
void empi_ofi_mr_stats(uint64_t *registered, uint64_t *hits);

#endif
