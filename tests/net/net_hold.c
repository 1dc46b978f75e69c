/*
 * A job that stays busy across hosts until it is killed: every rank prints where it runs, then
 * all ranks exchange allreduces for up to `seconds` (argument, default 60). The multi-host suite
 * kills one host's ranks while it runs and checks how the job ends.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_processor_name(host, &len);
    double seconds = argc > 1 ? atof(argv[1]) : 60.0;
    printf("rank %d pid %d host %s ready\n", rank, (int)getpid(), host);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    long value = 1, sum = 0;
    while (MPI_Wtime() - start < seconds)
        MPI_Allreduce(&value, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
