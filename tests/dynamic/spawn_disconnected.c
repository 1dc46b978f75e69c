/*
 * MPI_Finalize is collective over connected processes only (MPI 4.1, 11.10.4): a parent whose
 * spawned job is disconnected finalizes without waiting for it. The child waits until the parent's
 * MPI_Finalize has returned (the parent then creates a file) and reports; if the parent's
 * MPI_Finalize waited for the child, the child gives up after 30 s and the test fails. The job
 * still ends only after the child did, and the child's report must come out.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter;
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        char path[256];
        snprintf(path, sizeof path, "/tmp/empi-spawn-disconnected-%d-%d", (int)getpid(), rank);
        char *child_argv[] = {path, NULL};
        MPI_Comm_spawn(argv[0], child_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE);
        MPI_Comm_disconnect(&inter);
        MPI_Finalize();
        FILE *f = fopen(path, "w");
        if (!f) {
            printf("FAIL: cannot create %s\n", path);
            return 1;
        }
        fclose(f);
        printf("parent %d finalized before its disconnected child ended\n", rank);
        return 0;
    }
    MPI_Comm_disconnect(&parent);
    const char *path = argv[1];
    int seen = 0;
    for (int i = 0; i < 3000 && !(seen = access(path, F_OK) == 0); i++)
        usleep(10000);
    unlink(path);
    printf(seen ? "PASS: the parent finalized while its disconnected child ran\n"
                : "FAIL: the parent's MPI_Finalize waited for its disconnected child\n");
    MPI_Finalize();
    return seen ? 0 : 1;
}
