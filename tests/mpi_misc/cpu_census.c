/* A scan whose algorithm the tuning table picks by ranks per CPU (driven by cpu_census.sh). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, sum = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Scan(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int ok = sum == rank * (rank + 1) / 2, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", all ? "scan ok" : "scan WRONG");
    MPI_Finalize();
    return all ? 0 : 1;
}
