/*
 * A spawned job that fails must take its parent job down (the parent is blocked in a receive that
 * can never complete). Parent mode: spawn two children, receive one int from each. Child mode:
 * child 0 sends its int and then waits forever; child 1 aborts before sending.
 * Run by spawn_crash.sh, which checks the job ends promptly and leaves nothing behind.
 *   spawn_crash MARK           (parent; MARK tags every process for the leftover check)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (parent == MPI_COMM_NULL) {
        if (argc < 2) {
            fprintf(stderr, "usage: spawn_crash MARK\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        const char *jobid = getenv("EMPI_JOBID");
        if (rank == 0)
            printf("jobid %s\n", jobid ? jobid : "none");
        fflush(stdout);
        char *child_argv[] = {"child", argv[1], NULL};
        MPI_Comm inter;
        MPI_Comm_spawn(argv[0], child_argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        for (int c = 0; c < 2; c++) {
            int v = -1;
            MPI_Recv(&v, 1, MPI_INT, c, 0, inter, MPI_STATUS_IGNORE);
            if (rank == 0)
                printf("got %d from child %d\n", v, c);
            fflush(stdout);
        }
        printf("FAIL: rank %d received from a child that aborted\n", rank);
        MPI_Finalize();
        return 1;
    }
    if (rank == 1)
        abort();
    int v = 42;
    MPI_Send(&v, 1, MPI_INT, 0, 0, parent);
    MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE); /* never matched */
    MPI_Finalize();
    return 0;
}
