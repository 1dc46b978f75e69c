/* Local communicator queries and settings, MPI_Comm_free, MPI_Comm_dup. */
#include <string.h>

#include "comm/comm.h"
#include "comm/dyn.h"
#include "comm/intercomm.h"
#include "core/attr.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "pt2pt/bsend.h"
#include "pt2pt/request.h"

EMPI_WEAK_ALIAS(Comm_size)
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_size", &c));
    if (EMPI_UNLIKELY(!size))
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_size: size is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_rank)
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_rank", &c));
    if (EMPI_UNLIKELY(!rank))
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_rank: rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_compare)
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    empi_comm_t *a, *b;
    EMPI_CHECK(empi_comm_check(comm1, "MPI_Comm_compare", &a));
    EMPI_CHECK(empi_comm_check(comm2, "MPI_Comm_compare", &b));
    if (!result)
        return empi_err_comm(a, MPI_ERR_ARG, "MPI_Comm_compare: result is NULL");
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (empi_comm_is_inter(a) != empi_comm_is_inter(b)) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int groups = empi_group_compare(a->group, b->group);
    if (empi_comm_is_inter(a)) {
        /* Both groups count: the weaker of the two comparisons wins (IDENT < SIMILAR < UNEQUAL). */
        int remote = empi_group_compare(a->remote_group, b->remote_group);
        groups = remote == MPI_UNEQUAL || groups == MPI_UNEQUAL ? MPI_UNEQUAL
                 : remote == MPI_SIMILAR || groups == MPI_SIMILAR ? MPI_SIMILAR : MPI_IDENT;
    }
    *result = groups == MPI_IDENT ? MPI_CONGRUENT : groups;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_set_name)
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_set_name", &c));
    if (!comm_name)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_set_name: comm_name is NULL");
    empi_lock();
    /* Longer names are truncated, which the standard allows. */
    strncpy(c->name, comm_name, sizeof c->name - 1);
    c->name[sizeof c->name - 1] = '\0';
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_get_name)
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    empi_comm_t *c;
    if (comm == MPI_COMM_NULL)
        return empi_name_of_null("MPI_Comm_get_name", "MPI_COMM_NULL", comm_name, resultlen);
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_get_name", &c));
    if (!comm_name || !resultlen)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_get_name: %s is NULL", comm_name ? "resultlen" : "comm_name");
    empi_lock();
    strcpy(comm_name, c->name);
    *resultlen = (int)strlen(c->name);
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_set_info)
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_set_info", &c));
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    empi_info_t *i = empi_info_get(info);
    if (!i)
        return empi_err_comm(c, MPI_ERR_INFO, "MPI_Comm_set_info: invalid info %p", (void *)info);
    /* The given hints update the communicator's; the others stay as they were (7.4.4). */
    empi_lock();
    empi_info_t *merged = empi_info_dup(c->info);
    int rc = merged ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int k = 0; rc == MPI_SUCCESS && k < i->nkeys; k++)
        rc = empi_info_set(merged, i->entries[k].key, i->entries[k].value);
    empi_info_t *old = c->info;
    if (rc == MPI_SUCCESS)
        c->info = merged;
    empi_unlock();
    empi_info_release(rc == MPI_SUCCESS ? old : merged);
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "MPI_Comm_set_info: out of memory");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_get_info)
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_get_info", &c));
    if (!info_used)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_get_info: info_used is NULL");
    empi_lock();
    empi_info_t *copy = empi_info_used(c->info);
    empi_unlock();
    if (!copy)
        return empi_err_comm(c, MPI_ERR_NO_MEM, "MPI_Comm_get_info: out of memory");
    *info_used = copy->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_free)
int PMPI_Comm_free(MPI_Comm *comm)
{
    if (!comm)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Comm_free: comm is NULL");
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(*comm, "MPI_Comm_free", &c));
    if (c == &empi_comm_world || c == &empi_comm_self)
        return empi_err_comm(c, MPI_ERR_COMM, "MPI_Comm_free: %s cannot be freed", c->name);
    empi_lock();
    /* Delete callbacks run first, and a failing one makes the whole call fail. */
    int rc = empi_attr_delete_all(EMPI_ATTR_COMM, c->handle, &c->attrs);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "MPI_Comm_free: an attribute delete callback returned error %d", rc);
    empi_bsend_detach_at_end(&c->bsend_buffer); /* as MPI_Comm_detach_buffer would */
    *comm = MPI_COMM_NULL;
    if (c == empi_dyn_parent)
        empi_dyn_parent = NULL; /* MPI_Comm_get_parent answers MPI_COMM_NULL from now on */
    empi_comm_release(c);
    return MPI_SUCCESS;
}

/* What a dup carries over once it exists: the hints given (none of the old communicator's: MPI 4.0
   on, hints are not propagated, 7.4.4), the topology, the attributes through their copy callbacks. */
static int dup_attach(empi_comm_t *c, empi_comm_t *d, empi_info_t *hints)
{
    if (hints && !(d->info = empi_info_dup(hints)))
        return MPI_ERR_NO_MEM;
    empi_comm_share_topo(d, c);
    return empi_attr_copy_all(EMPI_ATTR_COMM, c->handle, c->attrs, d->handle, &d->attrs);
}

static int dup_failed(empi_comm_t *c, const char *fname, int rc)
{
    return empi_err_comm(c, rc, "%s: %s", fname,
                         rc == MPI_ERR_NO_MEM ? "out of memory"
                                              : "an attribute copy callback failed (or the context agreement did)");
}

/* The hints argument of the *_with_info forms (NULL for the others and for MPI_INFO_NULL). */
static int dup_hints(empi_comm_t *c, MPI_Info info, int use_info, const char *fname, empi_info_t **hints)
{
    *hints = NULL;
    if (use_info && info != MPI_INFO_NULL && !(*hints = empi_info_get(info)))
        return empi_err_comm(c, MPI_ERR_INFO, "%s: invalid info %p", fname, (void *)info);
    return MPI_SUCCESS;
}

/* Dup: same group, fresh context agreed before returning. */
static int dup_comm(MPI_Comm comm, MPI_Info info, int use_info, MPI_Comm *newcomm, const char *fname)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fname, &c));
    if (!newcomm)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: newcomm is NULL", fname);
    empi_info_t *hints;
    EMPI_CHECK(dup_hints(c, info, use_info, fname, &hints));
    empi_lock();
    empi_comm_t *d = NULL;
    int rc = empi_comm_create_from(c, c->group, &d);
    if (rc == MPI_SUCCESS && (rc = dup_attach(c, d, hints)) != MPI_SUCCESS)
        empi_comm_release(d);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return dup_failed(c, fname, rc);
    *newcomm = d->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_dup)
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return dup_comm(comm, MPI_INFO_NULL, 0, newcomm, "MPI_Comm_dup");
}

EMPI_WEAK_ALIAS(Comm_dup_with_info)
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return dup_comm(comm, info, 1, newcomm, "MPI_Comm_dup_with_info");
}

EMPI_WEAK_ALIAS(Comm_toint)
int PMPI_Comm_toint(MPI_Comm comm)
{
    return empi_handle_toint(comm);
}

EMPI_WEAK_ALIAS(Comm_fromint)
MPI_Comm PMPI_Comm_fromint(int comm)
{
    return (MPI_Comm)empi_handle_fromint(comm);
}

/*
 * MPI_Comm_idup: the new communicator is made at once and gets its context ids when the agreement,
 * run without blocking (comm_idup.c), completes the request.
 */
static int idup_comm(MPI_Comm comm, MPI_Info info, int use_info, MPI_Comm *newcomm, MPI_Request *request,
                     const char *fname)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fname, &c));
    if (!request)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: request is NULL", fname);
    if (!newcomm)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: newcomm is NULL", fname);
    empi_info_t *hints;
    EMPI_CHECK(dup_hints(c, info, use_info, fname, &hints));
    empi_lock();
    empi_request_t *req = empi_request_new(EMPI_REQ_COLL, c);
    empi_comm_t *d = NULL;
    int rc = req ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    /* no traffic reaches the new contexts until every member has agreed on them */
    if (rc == MPI_SUCCESS)
        rc = empi_comm_is_inter(c)
                 ? empi_intercomm_build(c->group, c->remote_group, EMPI_CONTEXT_PENDING, c->errhandler, &d)
                 : empi_comm_build(c, c->group, EMPI_CONTEXT_PENDING, &d);
    /* Whatever fails here after the communicator exists, the agreement runs (the other members
       are in it, and the parent's collective sequence must stay in step) and the request reports
       the failure. */
    int attach_rc = MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        attach_rc = dup_attach(c, d, hints);
        rc = empi_comm_idup_start(c, d, req, attach_rc);
        if (rc != MPI_SUCCESS)
            empi_comm_release(d);
    }
    if (rc != MPI_SUCCESS && req)
        empi_request_release(req);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return dup_failed(c, fname, rc);
    *newcomm = attach_rc == MPI_SUCCESS ? d->handle : MPI_COMM_NULL;
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_idup)
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup_comm(comm, MPI_INFO_NULL, 0, newcomm, request, "MPI_Comm_idup");
}

EMPI_WEAK_ALIAS(Comm_idup_with_info)
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup_comm(comm, info, 1, newcomm, request, "MPI_Comm_idup_with_info");
}
