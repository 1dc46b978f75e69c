/*
 * libfabric is opened with dlopen when a job first needs it, not linked: loading it loads every
 * provider's libraries, and some (PSM's libinfinipath) spend close to half a second in their
 * constructors, which every MPI program would otherwise pay at start-up, network or not.
 *
 * Most of libfabric's API is inline functions calling through the objects' operation tables; the
 * few real entry points the netmod uses are defined here under their own names and forward to the
 * loaded library. When it cannot be loaded they fail with -FI_ENOSYS (fi_getinfo), so the netmod
 * reports "no usable provider" instead of the program failing to start.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "transport/ofi/ofi_internal.h"

static struct {
    int tried;
    void *lib;
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
} L;

static int load(void)
{
    if (L.tried)
        return L.lib != NULL;
    L.tried = 1;
    L.lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!L.lib)
        return 0;
    *(void **)&L.getinfo = dlsym(L.lib, "fi_getinfo");
    *(void **)&L.freeinfo = dlsym(L.lib, "fi_freeinfo");
    *(void **)&L.dupinfo = dlsym(L.lib, "fi_dupinfo");
    *(void **)&L.fabric = dlsym(L.lib, "fi_fabric");
    *(void **)&L.strerror = dlsym(L.lib, "fi_strerror");
    if (!L.getinfo || !L.freeinfo || !L.dupinfo || !L.fabric || !L.strerror) {
        dlclose(L.lib);
        L.lib = NULL;
    }
    return L.lib != NULL;
}

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
               const struct fi_info *hints, struct fi_info **info)
{
    if (!load()) {
        *info = NULL;
        return -FI_ENOSYS;
    }
    return L.getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info *info)
{
    if (info && load())
        L.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    return load() ? L.dupinfo(info) : NULL;
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    return load() ? L.fabric(attr, fabric, context) : -FI_ENOSYS;
}

const char *fi_strerror(int errnum)
{
    return load() ? L.strerror(errnum) : "libfabric.so.1 could not be loaded";
}
