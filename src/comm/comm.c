/*
 * Communicator objects: MPI_COMM_WORLD and MPI_COMM_SELF are static objects built at MPI_Init,
 * the rest come from a pool. A communicator is immutable after creation except for its name,
 * error handler, hints and attributes; it is reference counted so pending requests can keep it
 * alive past MPI_Comm_free.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/intercomm.h"
#include "core/attr.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"

empi_comm_t empi_comm_world, empi_comm_self;

static empi_pool_t comm_pool = EMPI_POOL_INITIALIZER(empi_comm_t, "comm");
static empi_comm_t *live; /* pooled communicators, for empi_comm_with_member (under the lock) */
static int attrs_finalized;

empi_comm_t *empi_comm_get(MPI_Comm h)
{
    empi_comm_t *c;
    if (h == MPI_COMM_WORLD)
        c = &empi_comm_world;
    else if (h == MPI_COMM_SELF)
        c = &empi_comm_self;
    else if (empi_handle_is_predefined(h))
        return NULL;
    else
        c = (empi_comm_t *)h;
    return c->obj.magic == EMPI_MAGIC_COMM ? c : NULL;
}

int empi_comm_check(MPI_Comm h, const char *fname, empi_comm_t **out)
{
    *out = empi_comm_get(h);
    if (EMPI_LIKELY(*out != NULL))
        return MPI_SUCCESS;
    if (h == MPI_COMM_NULL)
        return empi_err_noobj(MPI_ERR_COMM, "%s: the communicator is MPI_COMM_NULL", fname);
    if (!empi_is_initialized() && (h == MPI_COMM_WORLD || h == MPI_COMM_SELF))
        return empi_err_noobj(MPI_ERR_COMM, "%s: MPI is %s", fname,
                              empi_not_running_text());
    return empi_err_noobj(MPI_ERR_COMM, "%s: invalid communicator %p (freed or never created)", fname, (void *)h);
}

int empi_comm_tag_error(empi_comm_t *c, const char *fn, int tag, int wildcard_ok)
{
    if (tag < 0)
        return empi_err_comm(c, MPI_ERR_TAG, "%s: tag %d is negative%s", fn, tag, wildcard_ok ? " and not MPI_ANY_TAG" : "");
    return empi_err_comm(c, MPI_ERR_TAG, "%s: tag %d is above MPI_TAG_UB (%d)", fn, tag, EMPI_TAG_UB);
}

int empi_comm_rank_of_world(const empi_comm_t *comm, int world_rank)
{
    if (comm == &empi_comm_world)
        return world_rank >= 0 && world_rank < comm->size ? world_rank : MPI_UNDEFINED;
    return empi_group_rank_of_world(comm->group, world_rank);
}

void empi_comm_retain(empi_comm_t *comm)
{
    if (empi_comm_is_predefined(comm))
        return;   /* as empi_comm_release: never freed before finalize */
    __atomic_add_fetch(&comm->obj.refcount, 1, __ATOMIC_RELAXED);
}

/* Everything a communicator holds, for both pooled and predefined ones. */
static void release_contents(empi_comm_t *c)
{
    if (c->coll_cache && c->coll_cache_free)
        c->coll_cache_free(c->coll_cache);
    c->coll_cache = NULL;
    empi_group_release(c->group);
    c->group = NULL;
    empi_group_release(c->remote_group);
    c->remote_group = NULL;
    if (c->local_comm)
        empi_comm_release(c->local_comm);
    c->local_comm = NULL;
    c->world_ranks = NULL;
    empi_errhandler_release(c->errhandler);
    c->errhandler = NULL;
    empi_info_release(c->info);
    c->info = NULL;
    if (c->topo && __atomic_sub_fetch(&c->topo->refcount, 1, __ATOMIC_ACQ_REL) == 0)
        free(c->topo);
    c->topo = NULL;
}

void empi_comm_release(empi_comm_t *comm)
{
    if (empi_comm_is_predefined(comm))
        return;
    if (__atomic_sub_fetch(&comm->obj.refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    empi_lock();
    if (comm->live_prev)
        comm->live_prev->live_next = comm->live_next;
    else
        live = comm->live_next;
    if (comm->live_next)
        comm->live_next->live_prev = comm->live_prev;
    release_contents(comm);
    empi_pool_free(&comm_pool, comm);
    empi_unlock();
}

void empi_comm_share_topo(empi_comm_t *dup, const empi_comm_t *comm)
{
    dup->topo = comm->topo;
    if (dup->topo)
        __atomic_add_fetch(&dup->topo->refcount, 1, __ATOMIC_RELAXED);
}

/* Fill a communicator over `group` (this process a member) with an agreed context id. */
static void setup(empi_comm_t *c, empi_group_t *group, uint32_t context_id, empi_errhandler_t *eh)
{
    c->obj.magic = EMPI_MAGIC_COMM;
    c->obj.refcount = 1;
    c->context_id = context_id;
    c->group = group;
    c->rank = group->rank;
    c->size = group->size;
    c->world_ranks = group->world_ranks;
    empi_errhandler_retain(eh);
    c->errhandler = eh;
}

int empi_comm_build(empi_comm_t *parent, empi_group_t *group, uint32_t context_id, empi_comm_t **out)
{
    empi_comm_t *c = empi_pool_alloc(&comm_pool);
    if (!c)
        return MPI_ERR_NO_MEM;
    empi_group_retain(group);
    /* A new communicator starts with its parent's error handler, as the standard says. */
    setup(c, group, context_id, parent->errhandler);
    c->handle = (MPI_Comm)c;
    empi_lock();
    c->live_next = live;
    if (live)
        live->live_prev = c;
    live = c;
    empi_unlock();
    *out = c;
    return MPI_SUCCESS;
}

static int group_has(const empi_group_t *g, int proc)
{
    for (int i = 0; g && i < g->size; i++)
        if (g->world_ranks[i] == proc)
            return 1;
    return 0;
}

const empi_comm_t *empi_comm_with_member(int proc)
{
    empi_lock();
    empi_comm_t *found = NULL;
    for (empi_comm_t *c = live; c && !found; c = c->live_next) {
        if (!group_has(c->group, proc) && !group_has(c->remote_group, proc))
            continue;
        if (c->disconnecting)
            c->member_lost = 1;
        else
            found = c;
    }
    empi_unlock();
    return found;
}

void empi_comm_set_all_of(empi_comm_t *comm, empi_coll_set_t *set, int tag)
{
    *set = (empi_coll_set_t){comm, tag, comm->size, comm->rank, NULL};
}

int empi_comm_create_from(empi_comm_t *parent, empi_group_t *group, empi_comm_t **out)
{
    if (empi_comm_is_inter(parent))
        return empi_intercomm_dup(parent, out);
    empi_coll_set_t set;
    empi_comm_set_all_of(parent, &set, EMPI_COMM_CREATE_TAG);
    uint32_t context_id;
    int rc = empi_comm_agree_context(&set, &context_id);
    if (rc != MPI_SUCCESS)
        return rc;
    return empi_comm_build(parent, group, context_id, out);
}

/* ---- init / finalize ---- */

/* The predefined attributes' values (MPI_TAG_UB, ...): the same for every communicator, those of
   sessions included, so set with the layers rather than with MPI_COMM_WORLD. */
void empi_comm_attrs_init(void)
{
    empi_world_attrs.tag_ub = EMPI_TAG_UB;
    empi_world_attrs.host = MPI_PROC_NULL;
    empi_world_attrs.io = MPI_ANY_SOURCE;   /* every process can do I/O */
    empi_world_attrs.wtime_is_global = 0;
    empi_world_attrs.appnum = empi_g.boot.appnum;
    empi_world_attrs.has_appnum = empi_g.boot.appnum >= 0;
    empi_world_attrs.universe_size = empi_g.boot.universe_size > 0 ? empi_g.boot.universe_size : empi_g.boot.size;
    empi_world_attrs.has_universe_size = 1;
}

int empi_comm_init(void)
{
    int me = empi_g.boot.rank;
    /* The world group is the hidden all-process communicator's, up since the layers started. */
    empi_group_t *world_group = empi_comm_boot.group;
    empi_group_retain(world_group);
    empi_group_t *self_group = empi_group_new(1, &me);
    if (!self_group)
        return MPI_ERR_NO_MEM;

    memset(&empi_comm_world, 0, sizeof empi_comm_world);
    setup(&empi_comm_world, world_group, 0, &empi_errhandler_fatal);
    empi_comm_world.handle = MPI_COMM_WORLD;
    strcpy(empi_comm_world.name, "MPI_COMM_WORLD");

    memset(&empi_comm_self, 0, sizeof empi_comm_self);
    setup(&empi_comm_self, self_group, 2, &empi_errhandler_fatal);
    empi_comm_self.handle = MPI_COMM_SELF;
    strcpy(empi_comm_self.name, "MPI_COMM_SELF");

    attrs_finalized = 0;
    return MPI_SUCCESS;
}

int empi_comm_finalize_attrs(void)
{
    if (attrs_finalized)
        return MPI_SUCCESS;
    attrs_finalized = 1;
    /* MPI_COMM_SELF first, as if freed at the very start of MPI_Finalize. */
    int rc = empi_attr_delete_all(EMPI_ATTR_COMM, MPI_COMM_SELF, &empi_comm_self.attrs);
    int rc_world = empi_attr_delete_all(EMPI_ATTR_COMM, MPI_COMM_WORLD, &empi_comm_world.attrs);
    return rc != MPI_SUCCESS ? rc : rc_world;
}

void empi_comm_finalize(void)
{
    empi_comm_finalize_attrs();
    release_contents(&empi_comm_world);
    release_contents(&empi_comm_self);
    /* After MPI_Finalize the predefined handles read as invalid. */
    empi_comm_world.obj.magic = EMPI_MAGIC_FREED;
    empi_comm_self.obj.magic = EMPI_MAGIC_FREED;
}
