/*
 * Error classes of dynamic process management under MPI_ERRORS_RETURN (on MPI_COMM_WORLD and on
 * MPI_COMM_SELF, which carries the errors of the port and name calls):
 *   - spawning a command that does not exist (a missing path over MPI_COMM_WORLD, a name not on
 *     PATH over MPI_COMM_SELF): MPI_ERR_SPAWN on every rank, every errcodes entry set to an error,
 *     in bounded time
 *   - maxprocs 0 and -1 at the root (the other ranks pass 1; only the root's value counts): an error
 *     on every rank, MPI_ERR_ARG or MPI_ERR_SPAWN (printed)
 *   - MPI_Lookup_name of a name never published or already unpublished: MPI_ERR_NAME
 *   - MPI_Unpublish_name of a name never published or already unpublished: MPI_ERR_SERVICE
 *   - service names of 300 and 1000 bytes publish, look up and unpublish
 *   - MPI_Comm_connect to a malformed port name and to a closed port: MPI_ERR_PORT, bounded time
 *   - MPI_Close_port of a string that is no port: MPI_ERR_PORT or MPI_ERR_ARG (printed)
 * and a correct spawn after all of that still works.
 */
#include "dynamic_common.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ERRCODE_UNSET (-7777)
/* A failing call must come back well before the test's 60 s timeout. */
#define MAX_SECONDS 20.0

static const char *class_name(int cls)
{
    switch (cls) {
    case MPI_ERR_ARG:
        return "MPI_ERR_ARG";
    case MPI_ERR_SPAWN:
        return "MPI_ERR_SPAWN";
    case MPI_ERR_PORT:
        return "MPI_ERR_PORT";
    case MPI_ERR_NAME:
        return "MPI_ERR_NAME";
    case MPI_ERR_SERVICE:
        return "MPI_ERR_SERVICE";
    case MPI_ERR_UNSUPPORTED_OPERATION:
        return "MPI_ERR_UNSUPPORTED_OPERATION";
    default:
        return "another class";
    }
}

static int error_class(int rc)
{
    int cls = -1;
    CHECK_MPI(MPI_Error_class(rc, &cls));
    return cls;
}

/* rc must be an error whose class is `a` or `b`; returns the class. */
static int expect_class_of(const char *what, int rc, int a, int b)
{
    CHECK(rc != MPI_SUCCESS, "%s succeeded, expected %s or %s", what, class_name(a), class_name(b));
    int cls = error_class(rc);
    CHECK(cls == a || cls == b, "%s: error class %d (%s), expected %s or %s", what, cls, class_name(cls), class_name(a),
          class_name(b));
    return cls;
}

static void check_elapsed(const char *what, double t0)
{
    double dt = MPI_Wtime() - t0;
    CHECK(dt < MAX_SECONDS, "%s took %.1f s (limit %.0f s)", what, dt, MAX_SECONDS);
}

/* Spawning a command that does not exist, over `comm`. */
static void spawn_missing(const char *cmd, MPI_Comm comm, const char *what)
{
    enum { N = 2 };
    int errcodes[N + 1];
    for (int i = 0; i <= N; i++)
        errcodes[i] = ERRCODE_UNSET;
    MPI_Comm inter = MPI_COMM_NULL;
    double t0 = MPI_Wtime();
    int rc = MPI_Comm_spawn(cmd, MPI_ARGV_NULL, N, MPI_INFO_NULL, 0, comm, &inter, errcodes);
    check_elapsed(what, t0);
    empi_check_err_class(__FILE__, __LINE__, what, rc, MPI_ERR_SPAWN);
    for (int i = 0; i < N; i++) {
        CHECK(errcodes[i] != ERRCODE_UNSET, "%s: errcodes[%d] was not written", what, i);
        CHECK(errcodes[i] != MPI_SUCCESS, "%s: errcodes[%d] is MPI_SUCCESS", what, i);
        int cls = -1;
        CHECK(MPI_Error_class(errcodes[i], &cls) == MPI_SUCCESS, "%s: errcodes[%d] = %d is not a valid error code",
              what, i, errcodes[i]);
    }
    CHECK(errcodes[N] == ERRCODE_UNSET, "%s: errcodes written past maxprocs", what);
    if (inter != MPI_COMM_NULL) {
        /* Nothing was started, so there is nothing to talk to; the standard says no more. */
        empi_note("note: %s returned a non-null intercommunicator", what);
    }
}

/* This program itself, so that maxprocs is the only thing wrong. */
static void spawn_bad_maxprocs(const char *exe, int maxprocs)
{
    char what[64];
    snprintf(what, sizeof what, "MPI_Comm_spawn with maxprocs %d at the root", maxprocs);
    MPI_Comm inter = MPI_COMM_NULL;
    int root_procs = empi_rank() == 0 ? maxprocs : 1;
    double t0 = MPI_Wtime();
    int rc =
        MPI_Comm_spawn(exe, MPI_ARGV_NULL, root_procs, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    check_elapsed(what, t0);
    int cls = expect_class_of(what, rc, MPI_ERR_ARG, MPI_ERR_SPAWN);
    empi_note("%s: %s", what, class_name(cls));
}

static void name_service(void)
{
    char service[128], port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME];
    snprintf(service, sizeof service, "empi-test-spawn-errors-%ld-%d", (long)getpid(), empi_rank());

    CHECK_ERR(MPI_Lookup_name(service, MPI_INFO_NULL, found), MPI_ERR_NAME);
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK_ERR(MPI_Unpublish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);

    /* Published and unpublished once: the name is gone again for both calls. */
    CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
    memset(found, 0, sizeof found);
    CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, found));
    CHECK(strcmp(found, port) == 0, "MPI_Lookup_name gave \"%s\", published \"%s\"", found, port);
    CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
    CHECK_ERR(MPI_Lookup_name(service, MPI_INFO_NULL, found), MPI_ERR_NAME);
    CHECK_ERR(MPI_Unpublish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);

    /* Long names (the standard sets no limit): two of 1000 bytes alike but for the last byte and
       one of 300; withdrawing one leaves the others found. */
    static char longs[3][1001];
    const int lens[3] = {1000, 1000, 300};
    for (int i = 0; i < 3; i++) {
        memset(longs[i], 'a' + i % 2, (size_t)lens[i]);
        longs[i][lens[i]] = '\0';
        memcpy(longs[i], service, strlen(service));
        CHECK_MPI(MPI_Publish_name(longs[i], MPI_INFO_NULL, port));
    }
    CHECK_MPI(MPI_Unpublish_name(longs[0], MPI_INFO_NULL, port));
    CHECK_ERR(MPI_Lookup_name(longs[0], MPI_INFO_NULL, found), MPI_ERR_NAME);
    for (int i = 1; i < 3; i++) {
        memset(found, 0, sizeof found);
        CHECK_MPI(MPI_Lookup_name(longs[i], MPI_INFO_NULL, found));
        CHECK(strcmp(found, port) == 0, "MPI_Lookup_name of a %d-byte name gave \"%s\"", lens[i], found);
        CHECK_MPI(MPI_Unpublish_name(longs[i], MPI_INFO_NULL, port));
    }
    CHECK_MPI(MPI_Close_port(port));
}

static void bad_ports(void)
{
    static const char bogus[] = "empi-test: this is not a port name";
    MPI_Comm inter = MPI_COMM_NULL;
    double t0 = MPI_Wtime();
    CHECK_ERR(MPI_Comm_connect(bogus, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT);
    check_elapsed("MPI_Comm_connect to a malformed port over MPI_COMM_SELF", t0);

    /* Collective over MPI_COMM_WORLD: the port is significant only at the root, but every rank must
     * see the failure. */
    t0 = MPI_Wtime();
    int rc = MPI_Comm_connect(empi_rank() == 0 ? bogus : "", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    check_elapsed("MPI_Comm_connect to a malformed port over MPI_COMM_WORLD", t0);
    if (empi_rank() == 0)
        empi_check_err_class(__FILE__, __LINE__, "MPI_Comm_connect(malformed port, MPI_COMM_WORLD)", rc, MPI_ERR_PORT);
    else
        CHECK(rc != MPI_SUCCESS, "MPI_Comm_connect to a malformed port over MPI_COMM_WORLD succeeded at a non-root");

    /* A port that existed but has been closed. */
    char port[MPI_MAX_PORT_NAME];
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Close_port(port));
    t0 = MPI_Wtime();
    CHECK_ERR(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT);
    check_elapsed("MPI_Comm_connect to a closed port", t0);

    int cls =
        expect_class_of("MPI_Close_port of a string that is no port", MPI_Close_port(bogus), MPI_ERR_PORT, MPI_ERR_ARG);
    empi_note("MPI_Close_port of a string that is no port: %s", class_name(cls));
}

/* After all the failures a correct spawn still works: 2 children, data both ways, disconnect. */
static const size_t sizes[] = {8, 65536};

static void spawn_good(const char *exe)
{
    int errcodes[2] = {ERRCODE_UNSET, ERRCODE_UNSET};
    MPI_Comm inter = MPI_COMM_NULL;
    char *argv[] = {"child", NULL};
    CHECK_MPI(MPI_Comm_spawn(exe, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errcodes));
    CHECK(errcodes[0] == MPI_SUCCESS && errcodes[1] == MPI_SUCCESS, "spawn after failures: errcodes %d %d", errcodes[0],
          errcodes[1]);
    dyn_errors_return(inter);
    int lsize, lrank, rsize;
    dyn_inter_shape(inter, &lsize, &lrank, &rsize);
    CHECK(rsize == 2, "spawn after failures: remote size %d", rsize);
    dyn_exchange(inter, 0, sizes, 2, 300, "parent after failures");
    dyn_disconnect(&inter, "parent after failures");
}

static void child_main(MPI_Comm parent, int argc, char **argv)
{
    CHECK(argc == 2 && strcmp(argv[1], "child") == 0, "child: unexpected arguments (argc %d)", argc);
    dyn_errors_return(parent);
    dyn_exchange(parent, 1, sizes, 2, 300, "child after failures");
    dyn_disconnect(&parent, "child after failures");
}

int main(int argc, char **argv)
{
    if (dyn_start_child(&argc, &argv, child_main))
        return 0;
    spawn_missing("/nonexistent-empi-test-dir/no-such-program", MPI_COMM_WORLD,
                  "MPI_Comm_spawn of a missing path over MPI_COMM_WORLD");
    spawn_missing("empi-test-no-such-program-on-path", MPI_COMM_SELF,
                  "MPI_Comm_spawn of a command not on PATH over MPI_COMM_SELF");
    spawn_bad_maxprocs(argv[0], 0);
    spawn_bad_maxprocs(argv[0], -1);
    name_service();
    bad_ports();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    spawn_good(argv[0]);
    TEST_PASS();
    CHECK_MPI(MPI_Finalize());
    return 0;
}
