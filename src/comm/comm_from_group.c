/*
 * Communicators without a parent: MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups
 * (MPI-4 sessions). Members find each other through empi_comm_boot, a hidden communicator over
 * all processes that exists whenever MPI is up in either model, on its own context; concurrent
 * creations are told apart by their string tags, hashed into the message tag.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/intercomm.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"

empi_comm_t empi_comm_boot;

int empi_comm_boot_init(void)
{
    empi_comm_attrs_init();
    int n = empi_g.boot.size;
    int *ranks = malloc((size_t)n * sizeof *ranks);
    if (!ranks)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    empi_group_t *world = empi_group_new(n, ranks);
    free(ranks);
    if (!world)
        return MPI_ERR_NO_MEM;
    memset(&empi_comm_boot, 0, sizeof empi_comm_boot);
    empi_comm_boot.obj.refcount = 1;   /* never a valid handle: no magic */
    empi_comm_boot.context_id = EMPI_BOOT_CONTEXT;
    empi_comm_boot.group = world;
    empi_comm_boot.rank = world->rank;
    empi_comm_boot.size = n;
    empi_comm_boot.world_ranks = world->world_ranks;
    empi_comm_boot.errhandler = &empi_errhandler_return;
    return MPI_SUCCESS;
}

void empi_comm_boot_finalize(void)
{
    empi_group_release(empi_comm_boot.group);
    memset(&empi_comm_boot, 0, sizeof empi_comm_boot);
}

/* FNV-1a folded to 30 bits: any stringtag maps to a tag no collective sequence number reaches. */
int empi_comm_stringtag_tag(const char *stringtag)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)stringtag; *p; p++)
        h = (h ^ *p) * 16777619u;
    return (int)(0x40000000u | (h & 0x3ffeffffu));
}

/* ---- MPI_Intercomm_create_from_groups ---- */

/* The set over `group` on the hidden communicator, leader first; ranks[] must hold group->size. */
static void group_set(const empi_group_t *group, int leader, int tag, int *ranks, empi_coll_set_t *set)
{
    int n = group->size;
    for (int i = 0; i < n; i++)
        ranks[i] = group->world_ranks[(leader + i) % n];
    *set = (empi_coll_set_t){&empi_comm_boot, tag, n, (group->rank - leader + n) % n, ranks};
}

/* The error handler argument of the *_from_group(s) calls: MPI_ERRHANDLER_NULL means fatal. */
static int errhandler_arg(MPI_Errhandler h, empi_errhandler_t **eh)
{
    *eh = h == MPI_ERRHANDLER_NULL ? &empi_errhandler_fatal : empi_errhandler_get(h);
    return *eh && ((*eh)->kind == EMPI_EH_KIND_ANY || (*eh)->kind == EMPI_EH_KIND_COMM);
}

/* Once the errhandler argument is known good, the call's errors go to it (MPI 4.1 7.4.2: it is also
   invoked if the function itself fails), with MPI_COMM_NULL for the communicator. */
__attribute__((format(printf, 3, 4))) static int fail(empi_errhandler_t *eh, int errclass, const char *fmt, ...)
{
    char text[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    MPI_Comm none = MPI_COMM_NULL;
    return empi_err_handler(eh, EMPI_EH_KIND_COMM, &none, errclass, "%s", text);
}

EMPI_WEAK_ALIAS(Intercomm_create_from_groups)
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                      int remote_leader, const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create_from_groups";
    (void)info; /* no hints are understood */
    empi_group_t *lg = empi_group_get(local_group), *rg = empi_group_get(remote_group);
    empi_errhandler_t *eh;
    if (!empi_comm_boot.group)
        return empi_err_noobj(MPI_ERR_OTHER, "%s: MPI is not initialized (no session and no MPI_Init)", fn);
    if (!errhandler_arg(errhandler, &eh))
        return empi_err_noobj(MPI_ERR_ARG, "%s: invalid errhandler", fn);
    if (!lg || !rg)
        return fail(eh, MPI_ERR_GROUP, "%s: invalid %s", fn, lg ? "remote_group" : "local_group");
    if (lg->rank == MPI_UNDEFINED)
        return fail(eh, MPI_ERR_GROUP, "%s: the calling process is not in local_group", fn);
    if (rg->rank != MPI_UNDEFINED)
        return fail(eh, MPI_ERR_GROUP, "%s: the calling process is in remote_group too", fn);
    if (local_leader < 0 || local_leader >= lg->size || remote_leader < 0 || remote_leader >= rg->size)
        return fail(eh, MPI_ERR_RANK, "%s: %s %d is not a rank of its group", fn,
                    local_leader < 0 || local_leader >= lg->size ? "local_leader" : "remote_leader",
                    local_leader < 0 || local_leader >= lg->size ? local_leader : remote_leader);
    if (!stringtag || !newintercomm)
        return fail(eh, MPI_ERR_ARG, "%s: %s is NULL", fn, stringtag ? "newintercomm" : "stringtag");
    int *ranks = malloc((size_t)lg->size * sizeof *ranks);
    if (!ranks)
        return fail(eh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    empi_coll_set_t set;
    int tag = empi_comm_stringtag_tag(stringtag);
    group_set(lg, local_leader, tag, ranks, &set);
    empi_coll_bridge_t bridge = {&empi_comm_boot, rg->world_ranks[remote_leader], tag};
    empi_comm_t *d = NULL;
    uint32_t ctx;
    empi_lock();
    int rc = empi_comm_agree_context_n(&set, &bridge, EMPI_INTERCOMM_CONTEXTS, &ctx);
    if (rc == MPI_SUCCESS)
        rc = empi_intercomm_build(lg, rg, ctx, eh, &d);
    if (rc == MPI_SUCCESS)
        d->session = lg->session;
    empi_unlock();
    free(ranks);
    if (rc != MPI_SUCCESS)
        return fail(eh, rc, "%s: %s", fn, empi_comm_failure_text(rc));
    *newintercomm = d->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_create_from_group)
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_from_group";
    empi_group_t *g = empi_group_get(group);
    empi_errhandler_t *eh;
    if (!empi_comm_boot.group)
        return empi_err_noobj(MPI_ERR_OTHER, "%s: MPI is not initialized (no session and no MPI_Init)", fn);
    if (!errhandler_arg(errhandler, &eh))
        return empi_err_noobj(MPI_ERR_ARG, "%s: invalid errhandler", fn);
    if (!g)
        return fail(eh, MPI_ERR_GROUP, "%s: invalid group %p", fn, (void *)group);
    if (!stringtag || !newcomm)
        return fail(eh, MPI_ERR_ARG, "%s: %s is NULL", fn, stringtag ? "newcomm" : "stringtag");
    if (info != MPI_INFO_NULL && !empi_info_get(info))
        return fail(eh, MPI_ERR_INFO, "%s: invalid info %p", fn, (void *)info);
    if (g->rank == MPI_UNDEFINED) {
        /* Not a member (MPI_GROUP_EMPTY included): the standard gives MPI_COMM_NULL. */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int *ranks = malloc((size_t)g->size * sizeof *ranks);
    if (!ranks)
        return fail(eh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    empi_coll_set_t set;
    group_set(g, 0, empi_comm_stringtag_tag(stringtag), ranks, &set);
    empi_comm_t *d = NULL;
    uint32_t ctx;
    empi_lock();
    int rc = empi_comm_agree_context(&set, &ctx);
    if (rc == MPI_SUCCESS)
        rc = empi_comm_build_eh(g, ctx, eh, &d);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL)
        d->info = empi_info_dup(empi_info_get(info));
    if (rc == MPI_SUCCESS)
        d->session = g->session;
    empi_unlock();
    free(ranks);
    if (rc != MPI_SUCCESS)
        return fail(eh, rc, "%s: %s", fn, empi_comm_failure_text(rc));
    *newcomm = d->handle;
    return MPI_SUCCESS;
}

