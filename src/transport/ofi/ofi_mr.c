/*
 * The memory-registration cache (contract in ofi_mr.h). A plain list: a process keeps a handful of
 * live registrations (bounce slabs, rendezvous buffers being read, windows), so a linear scan
 * costs less than any index would.
 */
#include "transport/ofi/ofi_mr.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

struct empi_ofi_mr {
    struct empi_ofi_mr *next;
    uintptr_t base;
    size_t len;
    uint64_t access;
    struct fid_mr *mr;
    int refs;
    uint64_t last_use;
};

static struct {
    struct fid_domain *domain;
    struct fid_ep *ep;
    uint64_t mr_mode;
    long idle_max;
    long idle;
    uint64_t clock, next_key;
    uint64_t registered, hits;
    empi_ofi_mr_t *list;
    uintptr_t page;
} C;

void empi_ofi_mr_setup(void *domain, void *ep, uint64_t mr_mode, long idle_max)
{
    C.domain = domain;
    C.ep = ep;
    C.mr_mode = mr_mode;
    if (idle_max < 0)
        idle_max = (mr_mode & (FI_MR_ALLOCATED | FI_MR_LOCAL)) ? 0 : 64;
    C.idle_max = idle_max;
    C.page = (uintptr_t)sysconf(_SC_PAGESIZE);
    C.next_key = 1;
}

static void destroy(empi_ofi_mr_t *e)
{
    fi_close(&e->mr->fid);
    free(e);
}

static void unlink_entry(empi_ofi_mr_t *e)
{
    for (empi_ofi_mr_t **p = &C.list; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            return;
        }
}

void empi_ofi_mr_teardown(void)
{
    while (C.list) {
        empi_ofi_mr_t *e = C.list;
        C.list = e->next;
        destroy(e);
    }
    C.idle = 0;
    C.domain = NULL;
    C.ep = NULL;
}

static empi_ofi_mr_t *find(uintptr_t lo, uintptr_t hi, uint64_t access)
{
    for (empi_ofi_mr_t *e = C.list; e; e = e->next)
        if (e->base <= lo && hi <= e->base + e->len && (e->access & access) == access)
            return e;
    return NULL;
}

static void evict_oldest_idle(void)
{
    empi_ofi_mr_t *old = NULL;
    for (empi_ofi_mr_t *e = C.list; e; e = e->next)
        if (!e->refs && (!old || e->last_use < old->last_use))
            old = e;
    if (old) {
        unlink_entry(old);
        destroy(old);
        C.idle--;
    }
}

static int bind_to_endpoint(struct fid_mr *mr)
{
    if (!(C.mr_mode & FI_MR_ENDPOINT))
        return 0;
    int rc = fi_mr_bind(mr, &C.ep->fid, 0);
    return rc ? rc : fi_mr_enable(mr);
}

int empi_ofi_mr_acquire(const void *addr, size_t len, uint64_t access, empi_ofi_mr_t **out)
{
    if (!C.domain)
        return -FI_EINVAL;
    uintptr_t lo = (uintptr_t)addr & ~(C.page - 1);
    uintptr_t hi = ((uintptr_t)addr + (len ? len : 1) + C.page - 1) & ~(C.page - 1);
    empi_ofi_mr_t *e = find(lo, hi, access);
    if (e) {
        if (!e->refs++)
            C.idle--;
        e->last_use = ++C.clock;
        C.hits++;
        *out = e;
        return 0;
    }
    e = calloc(1, sizeof *e);
    if (!e)
        return -FI_ENOMEM;
    e->base = lo;
    e->len = hi - lo;
    e->access = access;
    uint64_t key = (C.mr_mode & FI_MR_PROV_KEY) ? 0 : C.next_key++;
    int rc = fi_mr_reg(C.domain, (void *)lo, e->len, access, 0, key, 0, &e->mr, NULL);
    if (!rc && (rc = bind_to_endpoint(e->mr)) != 0)
        fi_close(&e->mr->fid);
    if (rc) {
        free(e);
        return rc;
    }
    e->refs = 1;
    e->last_use = ++C.clock;
    e->next = C.list;
    C.list = e;
    C.registered++;
    *out = e;
    return 0;
}

void empi_ofi_mr_release(empi_ofi_mr_t *e)
{
    if (!e || --e->refs > 0)
        return;
    C.idle++;
    while (C.idle > C.idle_max)
        evict_oldest_idle();
}

void empi_ofi_mr_invalidate(const void *addr, size_t len)
{
    uintptr_t lo = (uintptr_t)addr, hi = lo + len;
    empi_ofi_mr_t **p = &C.list;
    while (*p) {
        empi_ofi_mr_t *e = *p;
        if (!e->refs && e->base < hi && lo < e->base + e->len) {
            *p = e->next;
            destroy(e);
            C.idle--;
        } else {
            p = &e->next;
        }
    }
}

void *empi_ofi_mr_desc(const empi_ofi_mr_t *e)
{
    return e ? fi_mr_desc(e->mr) : NULL;
}

uint64_t empi_ofi_mr_key(const empi_ofi_mr_t *e)
{
    return fi_mr_key(e->mr);
}

uint64_t empi_ofi_mr_raddr(const empi_ofi_mr_t *e, const void *addr)
{
    return (C.mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)addr : (uint64_t)((uintptr_t)addr - e->base);
}

int empi_ofi_mr_local_needed(void)
{
    return (C.mr_mode & FI_MR_LOCAL) != 0;
}

void empi_ofi_mr_stats(uint64_t *registered, uint64_t *hits)
{
    *registered = C.registered;
    *hits = C.hits;
}
