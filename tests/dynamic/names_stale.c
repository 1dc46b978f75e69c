/*
 * The name service against what other processes leave behind:
 * - a name published by a process that died without finalizing (a forked copy that exits) is
 *   gone for MPI_Lookup_name (MPI_ERR_NAME) and free for MPI_Publish_name; it used to be held
 *   until someone removed the file by hand, and lookups returned the dead port;
 * - the default directory (under TMPDIR) is used only when it is this user's alone: one that
 *   anybody may write in is refused with MPI_ERR_SERVICE (others could plant port names there).
 * Runs with one process; TMPDIR points at a private directory of the test's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "empi_test.h"

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    char tmp[] = "/tmp/empi-names-test-XXXXXX", dir[128];
    CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
    setenv("TMPDIR", tmp, 1);
    snprintf(dir, sizeof dir, "%s/empi-names-%u", tmp, (unsigned)getuid());
    char service[64], port[MPI_MAX_PORT_NAME], got[MPI_MAX_PORT_NAME];
    snprintf(service, sizeof service, "empi-test-stale-%d", (int)getpid());
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));

    /* a directory anybody may write in */
    CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0777) == 0, "mkdir %s", dir);
    CHECK_ERR(MPI_Publish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
    CHECK(chmod(dir, 0700) == 0, "chmod");

    /* a publisher that dies without withdrawing its name */
    pid_t child = fork();
    CHECK(child >= 0, "fork");
    if (child == 0)
        _exit(MPI_Publish_name(service, MPI_INFO_NULL, "empi:dead-port") == MPI_SUCCESS ? 0 : 3);
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the child did not publish (status %#x)", status);
    CHECK_ERR(MPI_Lookup_name(service, MPI_INFO_NULL, got), MPI_ERR_NAME);
    CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, got));
    CHECK(strcmp(got, port) == 0, "lookup gave \"%s\", published \"%s\"", got, port);
    CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Close_port(port));
    rmdir(dir);
    rmdir(tmp);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
