/*
 * Two groups become one intercommunicator: the roots swap descriptions of their groups over a
 * socket (the connection to a port, or the one MPI_Comm_join is given), every process registers
 * the other group's processes (runtime/procs.h), and both groups agree on fresh context ids through
 * the same socket. Then MPI_Open_port, MPI_Close_port, MPI_Comm_accept, MPI_Comm_connect and
 * MPI_Comm_join, which are that plus how the socket comes about.
 */
#include "comm/dyn.h"
#include "comm/intercomm.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "pt2pt/pt2pt.h"
#include "runtime/procs.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the root knows and the group must learn: the other side's size, or why there is none. */
typedef struct verdict {
    int32_t count; /* processes of the other group; 0 when rc says why not */
    int32_t rc;
} verdict_t;

/* The other group's descriptions, in their rank order, at every participant (set->me). */
static int learn_other_group(const empi_coll_set_t *set, int fd, int root_rc, const empi_proc_desc_t *ours,
                             empi_proc_desc_t **theirs, int *m)
{
    verdict_t v = {0, root_rc};
    if (set->me == 0 && root_rc == MPI_SUCCESS) {
        int32_t mine = set->n;
        if (empi_dyn_sock_swap(fd, &mine, sizeof mine, &v.count, sizeof v.count) != MPI_SUCCESS || v.count <= 0)
            v = (verdict_t){0, MPI_ERR_OTHER};
    }
    int rc = empi_coll_set_bcast(set, &v, sizeof v);
    if (rc == MPI_SUCCESS)
        rc = v.rc;
    if (rc != MPI_SUCCESS)
        return rc;
    *m = v.count;
    *theirs = malloc((size_t)v.count * sizeof **theirs);
    if (!*theirs)
        return MPI_ERR_NO_MEM; /* the root still swaps below: the other side must not hang */
    if (set->me == 0)
        rc = empi_dyn_sock_swap(fd, ours, (size_t)set->n * sizeof *ours, *theirs, (size_t)v.count * sizeof **theirs);
    int rc2 = empi_coll_set_bcast(set, *theirs, (size_t)v.count * sizeof **theirs);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/*
 * A process of another job died (its connection closed without the goodbye of MPI_Finalize). While
 * a communicator still connects us, the program would wait for it forever: end this job, naming
 * it. Once disconnected (or freed and idle), the two jobs are independent (MPI 4.1, 11.10.4).
 */
static void foreign_lost(int proc, const char *why)
{
    const empi_comm_t *c = empi_comm_with_member(proc);
    if (!c)
        return;
    char msg[512];
    snprintf(msg, sizeof msg,
             "rank %d: process %d of job %.32s, connected to this job through communicator %s, ended without "
             "MPI_Finalize (its tcp connection %s)",
             empi_comm_world.rank, empi_procs_rank(proc), empi_procs_jobid(proc),
             c->name[0] ? c->name : "(unnamed)", why);
    empi_fatal(MPI_ERR_OTHER, msg);
}

/* Indices here of the described processes, registering the new ones. */
static int register_group(const empi_proc_desc_t *d, int m, int *idx)
{
    empi_procs_set_lost_hook(foreign_lost);
    for (int i = 0; i < m; i++)
        if ((idx[i] = empi_procs_add(&d[i])) < 0)
            return MPI_ERR_NO_MEM;
    return empi_pt2pt_add_peers(empi_procs_total());
}

int empi_dyn_establish(empi_comm_t *c, int root, int fd, int root_rc, empi_comm_t **out)
{
    int n = c->size, me = (c->rank - root + n) % n;
    int *ranks = malloc((size_t)n * sizeof *ranks);
    empi_proc_desc_t *all = calloc((size_t)n, sizeof *all), *ordered = calloc((size_t)n, sizeof *ordered);
    empi_proc_desc_t *theirs = NULL;
    int *idx = NULL, m = 0;
    empi_group_t *remote = NULL;
    if (!ranks || !all || !ordered) {
        free(ranks);
        free(all);
        free(ordered);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n; i++)
        ranks[i] = (root + i) % n; /* participant 0 is the root */
    empi_coll_set_t set = {c, EMPI_COMM_CREATE_TAG, n, me, ranks};
    empi_coll_bridge_t bridge = {.comm = NULL, .fd = fd};
    empi_proc_desc_t mine;
    empi_lock();
    /* Everyone listens for the other group before anyone tells it where. */
    int rc = empi_pt2pt_add_peers(empi_procs_total());
    if (rc == MPI_SUCCESS && empi_procs_describe_self(&mine) != 0)
        rc = MPI_ERR_OTHER;
    int ok[1] = {rc == MPI_SUCCESS};
    int rc2 = empi_coll_set_allreduce_int(&set, ok, 1, EMPI_COLL_INT_AND);
    if (rc2 == MPI_SUCCESS && !ok[0] && rc == MPI_SUCCESS)
        rc = MPI_ERR_OTHER;
    rc = rc != MPI_SUCCESS ? rc : rc2;
    if (rc == MPI_SUCCESS)
        rc = empi_coll_set_allgather(&set, &mine, sizeof mine, all);
    for (int i = 0; i < n; i++)
        ordered[(root + i) % n] = all[i]; /* the other side numbers us by rank in c */
    /* A local failure still goes through the root's verdict, so the other side hears of it. */
    rc = learn_other_group(&set, fd, me == 0 && root_rc == MPI_SUCCESS ? rc : root_rc, ordered, &theirs, &m);
    if (rc == MPI_SUCCESS && !(idx = malloc((size_t)m * sizeof *idx)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = register_group(theirs, m, idx);
    if (rc == MPI_SUCCESS && !(remote = empi_group_new(m, idx)))
        rc = MPI_ERR_NO_MEM;
    uint32_t ctx;
    if (rc == MPI_SUCCESS)
        rc = empi_comm_agree_context_n(&set, &bridge, EMPI_INTERCOMM_CONTEXTS, &ctx);
    if (rc == MPI_SUCCESS)
        rc = empi_intercomm_build(c->group, remote, ctx, c->errhandler, out);
    empi_group_release(remote);
    empi_unlock();
    free(ranks);
    free(all);
    free(ordered);
    free(theirs);
    free(idx);
    return rc;
}

/* ---- the API ---- */

static int check_info(MPI_Info info, const char *fn)
{
    if (info != MPI_INFO_NULL && !empi_info_get(info))
        return empi_err_noobj(MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Open_port)
int PMPI_Open_port(MPI_Info info, char *port_name)
{
    EMPI_CHECK(check_info(info, "MPI_Open_port"));
    if (!port_name)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Open_port: port_name is NULL");
    empi_lock();
    int rc = empi_dyn_port_open(port_name);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Open_port: cannot listen for connections");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Close_port)
int PMPI_Close_port(const char *port_name)
{
    if (!port_name)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Close_port: port_name is NULL");
    empi_lock();
    int rc = empi_dyn_port_close(port_name);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Close_port: '%.64s' is not a port this process opened", port_name);
    return MPI_SUCCESS;
}

/* Accept and connect: arguments, the root's socket, then the common part. */
static int meet(const char *fn, int accepting, const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                MPI_Comm *newcomm)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fn, &c));
    if (empi_comm_is_inter(c))
        return empi_err_comm(c, MPI_ERR_COMM, "%s: comm is an intercommunicator", fn);
    if (!newcomm)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: newcomm is NULL", fn);
    if (root < 0 || root >= c->size)
        return empi_err_comm(c, MPI_ERR_ROOT, "%s: root %d is not a rank of comm (size %d)", fn, root, c->size);
    int fd = -1, root_rc = MPI_SUCCESS;
    if (c->rank == root) {
        /* Port name and info matter at the root only; a bad one still takes the group along. */
        if (!port_name)
            root_rc = MPI_ERR_PORT;
        else if (info != MPI_INFO_NULL && !empi_info_get(info))
            root_rc = MPI_ERR_INFO;
        else {
            empi_lock();
            root_rc = accepting ? empi_dyn_port_accept(port_name, 0, &fd) : empi_dyn_port_connect(port_name, &fd);
            empi_unlock();
        }
    }
    empi_comm_t *d = NULL;
    int rc = empi_dyn_establish(c, root, fd, root_rc, &d);
    if (fd >= 0)
        close(fd);
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "%s: %s", fn,
                             rc == MPI_ERR_PORT   ? "no port of that name could be reached"
                             : rc == MPI_ERR_INFO ? "info is not a valid info object"
                                                  : empi_comm_failure_text(rc));
    *newcomm = d->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_accept)
int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    return meet("MPI_Comm_accept", 1, port_name, info, root, comm, newcomm);
}

EMPI_WEAK_ALIAS(Comm_connect)
int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    return meet("MPI_Comm_connect", 0, port_name, info, root, comm, newcomm);
}

/*
 * Join: the two processes at either end of `fd` are each other's group of one. Both ends run the
 * same steps, which need no roles, and read exactly what the other wrote, so the socket is quiet
 * again afterwards as the standard asks.
 */
EMPI_WEAK_ALIAS(Comm_join)
int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    if (!intercomm)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Comm_join: intercomm is NULL");
    struct pollfd pfd = {.fd = fd, .events = 0};
    if (fd < 0 || poll(&pfd, 1, 0) < 0 || (pfd.revents & POLLNVAL))
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Comm_join: fd %d is not an open descriptor", fd);
    empi_comm_t *d = NULL;
    int rc = empi_dyn_establish(&empi_comm_self, 0, fd, MPI_SUCCESS, &d);
    if (rc != MPI_SUCCESS)
        return empi_err_comm(&empi_comm_self, rc, "MPI_Comm_join: %s", empi_comm_failure_text(rc));
    *intercomm = d->handle;
    return MPI_SUCCESS;
}
