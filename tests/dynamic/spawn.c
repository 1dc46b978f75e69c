/*
 * MPI_Comm_spawn of copies of this program (a child knows itself by MPI_Comm_get_parent), three
 * times in a row in one run:
 *   round 0: MPI_COMM_WORLD spawns 3 children, root 0, argv {"child", "a b", ":", "x"} (":" is
 *            an argument like any other, not mpiexec's separator of programs)
 *   round 1: MPI_COMM_WORLD spawns 3 children, root = last rank, argv with shell metacharacters
 *            and an empty string (both must arrive unchanged: no shell in between)
 *   round 2: world rank 0 alone spawns 2 children over MPI_COMM_SELF with MPI_ARGV_NULL while the
 *            other parents wait in a barrier
 * Each round checks errcodes, the intercommunicator's shape, the children's MPI_COMM_WORLD, argv
 * and MPI_APPNUM, messages of 8 B, 64 KiB and 4 MiB both ways between every parent and every child,
 * MPI_Intercomm_merge (children high) with an allreduce and a bcast on the result, collectives on
 * the intercommunicator, and MPI_Comm_disconnect on both sides.
 */
#include "dynamic_common.h"

#include <stdio.h>
#include <string.h>

#define NROUNDS 3
#define MAX_CHILDREN 3
#define ERRCODE_UNSET (-7777)

typedef struct {
    int self;      /* spawn over MPI_COMM_SELF from world rank 0 only */
    int root_last; /* root is the last rank of the spawning communicator (else rank 0) */
    int nchildren;
    char *argv[6]; /* NULL-terminated; argv[0] == NULL means MPI_ARGV_NULL */
} round_t;

static const round_t rounds[NROUNDS] = {
    {0, 0, 3, {"child", "a b", ":", "x", NULL}},
    {0, 1, 3, {"child", "round 2", "*$HOME;'\"`|<>&(", "", "--x=y z", NULL}},
    {1, 0, 2, {NULL}},
};

static const size_t sizes[] = {8, 65536, 4u << 20};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int nargs(const round_t *rd)
{
    int n = 0;
    while (rd->argv[n])
        n++;
    return n;
}

/* Sent by the parents' rank 0 to the children over the intercommunicator, first thing. */
enum { INFO_ROUND, INFO_NCHILDREN, INFO_PARENTS, INFO_LEN };

/* Reported by every child to the parents' rank 0 after the checks (an intercomm MPI_Gather). */
enum { REP_APPNUM, REP_WSIZE, REP_WRANK, REP_ARGC, REP_LEN };

static void parent_round(const char *exe, int ri, int wsize0)
{
    const round_t *rd = &rounds[ri];
    char what[64];
    snprintf(what, sizeof what, "parent round %d", ri);
    if (rd->self && empi_rank() != 0)
        return;
    MPI_Comm comm = rd->self ? MPI_COMM_SELF : MPI_COMM_WORLD;
    int csize, crank;
    CHECK_MPI(MPI_Comm_size(comm, &csize));
    CHECK_MPI(MPI_Comm_rank(comm, &crank));
    int root = rd->root_last ? csize - 1 : 0, nc = rd->nchildren;

    int errcodes[MAX_CHILDREN + 1];
    for (int i = 0; i <= MAX_CHILDREN; i++)
        errcodes[i] = ERRCODE_UNSET;
    MPI_Comm inter = MPI_COMM_NULL;
    char **argv = rd->argv[0] ? (char **)rd->argv : MPI_ARGV_NULL;
    CHECK_MPI(MPI_Comm_spawn(exe, argv, nc, MPI_INFO_NULL, root, comm, &inter, errcodes));
    for (int i = 0; i < nc; i++)
        CHECK(errcodes[i] == MPI_SUCCESS, "%s: errcodes[%d] = %d, expected MPI_SUCCESS", what, i, errcodes[i]);
    for (int i = nc; i <= MAX_CHILDREN; i++)
        CHECK(errcodes[i] == ERRCODE_UNSET, "%s: errcodes[%d] written past maxprocs %d", what, i, nc);
    dyn_errors_return(inter);

    int lsize, lrank, rsize;
    dyn_inter_shape(inter, &lsize, &lrank, &rsize);
    CHECK(rsize == nc, "%s: intercomm remote size %d, expected %d children", what, rsize, nc);
    CHECK(lsize == csize && lrank == crank, "%s: intercomm local size/rank %d/%d, spawning comm %d/%d", what, lsize,
          lrank, csize, crank);
    int wsize = 0;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    CHECK(wsize == wsize0, "%s: MPI_COMM_WORLD has %d ranks after the spawn, %d before", what, wsize, wsize0);

    int info[INFO_LEN] = {ri, nc, csize};
    CHECK_MPI(MPI_Bcast(info, INFO_LEN, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));

    dyn_check_remote_world_ranks(inter, -1, what);
    dyn_exchange(inter, 0, sizes, NSIZES, 100, what);
    dyn_check_merge(inter, 0, 0, what);
    dyn_check_inter_coll(inter, 0, what);

    int rep[MAX_CHILDREN * REP_LEN];
    for (int i = 0; i < MAX_CHILDREN * REP_LEN; i++)
        rep[i] = -1;
    CHECK_MPI(MPI_Gather(NULL, 0, MPI_INT, rep, REP_LEN, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    if (lrank == 0) {
        for (int c = 0; c < nc; c++) {
            const int *p = &rep[c * REP_LEN];
            CHECK(p[REP_APPNUM] == 0 && p[REP_WSIZE] == nc && p[REP_WRANK] == c && p[REP_ARGC] == 1 + nargs(rd),
                  "%s: child %d reports appnum %d, world size %d, world rank %d, argc %d; expected 0, %d, %d, %d", what,
                  c, p[REP_APPNUM], p[REP_WSIZE], p[REP_WRANK], p[REP_ARGC], nc, c, 1 + nargs(rd));
        }
    }
    dyn_disconnect(&inter, what);
}

static void child_main(MPI_Comm parent, int argc, char **argv)
{
    MPI_Comm again = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_get_parent(&again));
    CHECK(again == parent, "child: a second MPI_Comm_get_parent gave a different handle");
    char name[MPI_MAX_OBJECT_NAME] = "unset";
    int name_len = -1;
    CHECK_MPI(MPI_Comm_get_name(parent, name, &name_len));
    CHECK(!strcmp(name, "MPI_COMM_PARENT") && name_len == 15, "child: the parent communicator is named '%s' (%d)",
          name, name_len);
    dyn_errors_return(parent);
    int lsize, lrank, rsize;
    dyn_inter_shape(parent, &lsize, &lrank, &rsize);

    int info[INFO_LEN] = {-1, -1, -1};
    CHECK_MPI(MPI_Bcast(info, INFO_LEN, MPI_INT, 0, parent));
    int ri = info[INFO_ROUND];
    CHECK(ri >= 0 && ri < NROUNDS, "child: round %d from the parents", ri);
    const round_t *rd = &rounds[ri];
    char what[64];
    snprintf(what, sizeof what, "child %d of round %d", lrank, ri);

    int wsize = -1, wrank = -1;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    CHECK(wsize == info[INFO_NCHILDREN], "%s: MPI_COMM_WORLD size %d, expected %d", what, wsize, info[INFO_NCHILDREN]);
    CHECK(lsize == wsize && lrank == wrank, "%s: parent intercomm local size/rank %d/%d, world %d/%d", what, lsize,
          lrank, wsize, wrank);
    CHECK(rsize == info[INFO_PARENTS], "%s: parent intercomm remote size %d, expected %d", what, rsize,
          info[INFO_PARENTS]);

    int n = nargs(rd);
    for (int i = 0; i < n && i + 1 < argc; i++)
        CHECK(strcmp(argv[i + 1], rd->argv[i]) == 0, "%s: argv[%d] is \"%s\", expected \"%s\"", what, i + 1,
              argv[i + 1], rd->argv[i]);
    CHECK(argc == 1 + n, "%s: argc %d, expected %d", what, argc, 1 + n);

    int *appnum = NULL, flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    CHECK(flag, "%s: MPI_APPNUM attribute not set", what);
    CHECK(*appnum == 0, "%s: MPI_APPNUM %d, expected 0", what, *appnum);

    dyn_check_remote_world_ranks(parent, -1, what);
    dyn_exchange(parent, 1, sizes, NSIZES, 100, what);
    dyn_check_merge(parent, 1, 1, what);
    dyn_check_inter_coll(parent, 1, what);

    int rep[REP_LEN] = {*appnum, wsize, wrank, argc};
    CHECK_MPI(MPI_Gather(rep, REP_LEN, MPI_INT, NULL, 0, MPI_INT, 0, parent));
    dyn_disconnect(&parent, what);
    CHECK_MPI(MPI_Comm_get_parent(&again));
    CHECK(again == MPI_COMM_NULL, "%s: MPI_Comm_get_parent after MPI_Comm_disconnect is not MPI_COMM_NULL", what);
}

int main(int argc, char **argv)
{
    if (dyn_start_child(&argc, &argv, child_main))
        return 0;
    int wsize0 = empi_size();
    for (int ri = 0; ri < NROUNDS; ri++)
        parent_round(argv[0], ri, wsize0);
    TEST_PASS();
    CHECK_MPI(MPI_Finalize());
    return 0;
}
