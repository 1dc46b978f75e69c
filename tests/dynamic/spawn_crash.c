/*
 * A spawned job that fails must take its parent job down (the parent is blocked in a receive that
 * can never complete). Parent mode: spawn two children, receive one int from each. Child mode:
 * child 0 sends its int and then waits forever; child 1 aborts before sending.
 * With "independent", the children instead send, disconnect and then fail (child 0 finalizes and
 * exits 3, child 1 aborts): disconnected jobs are independent (MPI 4.1, 11.10.4), so the parent
 * must go on and end normally.
 * With "orphan", one parent spawns from a helper thread two children that say hello and then wait
 * forever; the parent prints "ready" and waits too, and the script kills its mpiexec outright.
 * Run by spawn_crash.sh, which checks the job ends promptly and leaves nothing behind.
 *   spawn_crash MARK [independent|orphan]   (parent; MARK tags every process for the leftover check)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parent side of "independent": hear from both children, disconnect, outlive their failures. */
static int independent_parent(MPI_Comm inter, int rank)
{
    for (int c = 0; rank == 0 && c < 2; c++) {
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, c, 0, inter, MPI_STATUS_IGNORE);
        if (v != 42)
            printf("FAIL: got %d from child %d\n", v, c);
    }
    MPI_Comm_disconnect(&inter);
    /* long enough for the children's job to end and be reaped while we progress */
    for (int i = 0; i < 20; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        usleep(50000);
    }
    if (rank == 0)
        printf("parent went on after its disconnected children failed\n");
    MPI_Finalize();
    return 0;
}

static char **spawn_argv;
static MPI_Comm orphan_inter;

static void *spawn_from_thread(void *prog)
{
    MPI_Comm_spawn(prog, spawn_argv, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, &orphan_inter, MPI_ERRCODES_IGNORE);
    return NULL;
}

/* Parent side of "orphan": the spawn from a helper thread (which then ends), hello from each child,
   "ready", and a wait that only the killing ends. */
static int orphan_parent(char *prog, char *mark)
{
    char *child_argv[] = {"child", mark, "orphan", NULL};
    spawn_argv = child_argv;
    pthread_t t;
    pthread_create(&t, NULL, spawn_from_thread, prog);
    pthread_join(t, NULL);
    for (int c = 0; c < 2; c++) {
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, c, 0, orphan_inter, MPI_STATUS_IGNORE);
    }
    printf("ready\n");
    fflush(stdout);
    int never;
    MPI_Recv(&never, 1, MPI_INT, 0, 1, orphan_inter, MPI_STATUS_IGNORE);
    return 1;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
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
        if (argc > 2 && !strcmp(argv[2], "orphan"))
            return orphan_parent(argv[0], argv[1]);
        int independent = argc > 2 && !strcmp(argv[2], "independent");
        char *child_argv[] = {"child", argv[1], independent ? "independent" : NULL, NULL};
        MPI_Comm inter;
        MPI_Comm_spawn(argv[0], child_argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        if (independent)
            return independent_parent(inter, rank);
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
    int v = 42;
    if (argc > 3 && !strcmp(argv[3], "orphan")) {
        MPI_Send(&v, 1, MPI_INT, 0, 0, parent);
        MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE); /* never matched */
        return 1;
    }
    if (argc > 3 && !strcmp(argv[3], "independent")) {
        MPI_Send(&v, 1, MPI_INT, 0, 0, parent);
        MPI_Comm_disconnect(&parent);
        if (rank == 1)
            MPI_Abort(MPI_COMM_WORLD, 5);
        MPI_Finalize();
        return 3;
    }
    if (rank == 1)
        abort();
    MPI_Send(&v, 1, MPI_INT, 0, 0, parent);
    MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE); /* never matched */
    MPI_Finalize();
    return 0;
}
