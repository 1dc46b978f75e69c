/*
 * MPI_Comm_spawn_multiple with two commands (both this program) in two rounds:
 *   round 0: root 0, maxprocs {1, 2}, argv {"multi", "first"} and {"multi", "second", "b c"}, the
 *            second command with an empty (but real) info object
 *   round 1: root = last rank, maxprocs {2, 1}, MPI_ARGVS_NULL, each command with its own hints:
 *            the first runs in "/" (wdir), the second in /tmp (wdir) and is named without its
 *            directory, which its "path" hint gives
 * The children's MPI_COMM_WORLD holds the first command's processes first: a child's MPI_APPNUM is
 * its command's index, checked by the child and again by the parents from a gathered report, as
 * are argv. errcodes must have exactly 3 entries filled with MPI_SUCCESS (a 4th is a canary).
 * Messages both ways, a merge and MPI_Comm_disconnect complete each round.
 */
#include "dynamic_common.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NROUNDS 2
#define NCHILDREN 3
#define ERRCODE_UNSET (-7777)

typedef struct {
    int root_last;
    int maxprocs[2];
    int with_argv;
    char *argv[2][4];
} round_t;

static const round_t rounds[NROUNDS] = {
    {0, {1, 2}, 1, {{"multi", "first", NULL}, {"multi", "second", "b c", NULL}}},
    {1, {2, 1}, 0, {{NULL}, {NULL}}},
};

static const size_t sizes[] = {8, 65536};

/* The command (0 or 1) that child world rank `r` belongs to. */
static int expected_appnum(const round_t *rd, int r)
{
    return r < rd->maxprocs[0] ? 0 : 1;
}

static int nargs(const round_t *rd, int app)
{
    int n = 0;
    while (rd->with_argv && rd->argv[app][n])
        n++;
    return n;
}

enum { REP_APPNUM, REP_WSIZE, REP_WRANK, REP_ARGC, REP_CWD_OK, REP_LEN };

/* The working directory a child of round ri, command app, must have; NULL: the parent's. */
static const char *expected_cwd(int ri, int app)
{
    return ri == 1 ? (app == 0 ? "/" : "/tmp") : NULL;
}

static void parent_round(const char *exe, int ri)
{
    const round_t *rd = &rounds[ri];
    char what[64];
    snprintf(what, sizeof what, "parent round %d", ri);
    int size = empi_size(), rank = empi_rank(), root = rd->root_last ? size - 1 : 0;

    char dir[PATH_MAX], base[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", exe);
    snprintf(base, sizeof base, "%s", exe);
    char *cmds[2] = {(char *)exe, ri == 1 ? basename(base) : (char *)exe};
    char **argvs[2] = {(char **)rd->argv[0], (char **)rd->argv[1]};
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    if (ri == 0)
        CHECK_MPI(MPI_Info_create(&infos[1]));
    for (int app = 0; ri == 1 && app < 2; app++) {
        CHECK_MPI(MPI_Info_create(&infos[app]));
        CHECK_MPI(MPI_Info_set(infos[app], "wdir", expected_cwd(ri, app)));
    }
    if (ri == 1)
        CHECK_MPI(MPI_Info_set(infos[1], "path", dirname(dir)));
    int errcodes[NCHILDREN + 1];
    for (int i = 0; i <= NCHILDREN; i++)
        errcodes[i] = ERRCODE_UNSET;
    MPI_Comm inter = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_spawn_multiple(2, cmds, rd->with_argv ? argvs : MPI_ARGVS_NULL, rd->maxprocs, infos, root,
                                      MPI_COMM_WORLD, &inter, errcodes));
    for (int app = 0; app < 2; app++)
        if (infos[app] != MPI_INFO_NULL)
            CHECK_MPI(MPI_Info_free(&infos[app]));
    for (int i = 0; i < NCHILDREN; i++)
        CHECK(errcodes[i] == MPI_SUCCESS, "%s: errcodes[%d] = %d, expected MPI_SUCCESS", what, i, errcodes[i]);
    CHECK(errcodes[NCHILDREN] == ERRCODE_UNSET, "%s: errcodes has more than %d entries written", what, NCHILDREN);
    dyn_errors_return(inter);

    int lsize, lrank, rsize;
    dyn_inter_shape(inter, &lsize, &lrank, &rsize);
    CHECK(rsize == NCHILDREN, "%s: remote size %d, expected %d", what, rsize, NCHILDREN);
    CHECK(lsize == size && lrank == rank, "%s: local size/rank %d/%d", what, lsize, lrank);
    CHECK_MPI(MPI_Bcast(&ri, 1, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));

    dyn_exchange(inter, 0, sizes, 2, 200, what);
    dyn_check_merge(inter, 0, 0, what);

    int rep[NCHILDREN * REP_LEN];
    for (int i = 0; i < NCHILDREN * REP_LEN; i++)
        rep[i] = -1;
    CHECK_MPI(MPI_Gather(NULL, 0, MPI_INT, rep, REP_LEN, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    if (lrank == 0) {
        for (int c = 0; c < NCHILDREN; c++) {
            const int *p = &rep[c * REP_LEN];
            int app = expected_appnum(rd, c);
            CHECK(p[REP_APPNUM] == app && p[REP_WSIZE] == NCHILDREN && p[REP_WRANK] == c &&
                      p[REP_ARGC] == 1 + nargs(rd, app) && p[REP_CWD_OK] == 1,
                  "%s: child %d reports appnum %d, world size %d, world rank %d, argc %d, cwd right %d; "
                  "expected %d, %d, %d, %d, 1",
                  what, c, p[REP_APPNUM], p[REP_WSIZE], p[REP_WRANK], p[REP_ARGC], p[REP_CWD_OK], app, NCHILDREN,
                  c, 1 + nargs(rd, app));
        }
    }
    dyn_disconnect(&inter, what);
}

static void child_main(MPI_Comm parent, int argc, char **argv)
{
    dyn_errors_return(parent);
    int ri = -1;
    CHECK_MPI(MPI_Bcast(&ri, 1, MPI_INT, 0, parent));
    CHECK(ri >= 0 && ri < NROUNDS, "child: round %d from the parents", ri);
    const round_t *rd = &rounds[ri];
    int wsize = -1, wrank = -1;
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    char what[64];
    snprintf(what, sizeof what, "child %d of round %d", wrank, ri);
    CHECK(wsize == NCHILDREN, "%s: MPI_COMM_WORLD size %d, expected %d", what, wsize, NCHILDREN);

    int *appnum = NULL, flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
    CHECK(flag, "%s: MPI_APPNUM attribute not set", what);
    int app = expected_appnum(rd, wrank);
    CHECK(*appnum == app, "%s: MPI_APPNUM %d, expected %d", what, *appnum, app);

    int n = nargs(rd, app);
    for (int i = 0; i < n && i + 1 < argc; i++)
        CHECK(strcmp(argv[i + 1], rd->argv[app][i]) == 0, "%s: argv[%d] is \"%s\", expected \"%s\"", what, i + 1,
              argv[i + 1], rd->argv[app][i]);
    CHECK(argc == 1 + n, "%s: argc %d, expected %d", what, argc, 1 + n);

    dyn_exchange(parent, 1, sizes, 2, 200, what);
    dyn_check_merge(parent, 1, 1, what);

    char cwd[PATH_MAX], want[PATH_MAX];
    const char *wdir = expected_cwd(ri, app);
    int cwd_ok = !wdir || (getcwd(cwd, sizeof cwd) && realpath(wdir, want) && strcmp(cwd, want) == 0);
    CHECK(cwd_ok, "%s: runs in %s, expected %s (its command's wdir hint)", what, cwd, wdir);
    int rep[REP_LEN] = {*appnum, wsize, wrank, argc, cwd_ok};
    CHECK_MPI(MPI_Gather(rep, REP_LEN, MPI_INT, NULL, 0, MPI_INT, 0, parent));
    dyn_disconnect(&parent, what);
}

int main(int argc, char **argv)
{
    if (dyn_start_child(&argc, &argv, child_main))
        return 0;
    char exe[PATH_MAX];
    CHECK(realpath(argv[0], exe), "realpath of %s", argv[0]);
    for (int ri = 0; ri < NROUNDS; ri++)
        parent_round(exe, ri);
    TEST_PASS();
    CHECK_MPI(MPI_Finalize());
    return 0;
}
