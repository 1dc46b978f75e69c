/*
 * An erroneous collective where rank 0 passes twice the count of the others: the rank that
 * receives rank 0's data gets MPI_ERR_TRUNCATE (with MPI_ERRORS_RETURN) and every other rank
 * finishes, for scan and exscan on their small-message path (no schedule) and on the schedule, with
 * the linear chain forced (CMakeLists).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, failures;

static void check(const char *what, int n, int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    int want = rank == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    if (cls != want) {
        fprintf(stderr, "rank %d: %s of %d ints: error class %d, expected %d\n", rank, what, n, cls, want);
        failures++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static const int counts[] = {8, 100};   /* 32 bytes: no schedule; 400 bytes: a schedule */
    for (int i = 0; i < 2; i++) {
        int n = counts[i], cnt = rank == 0 ? 2 * n : n;
        int *s = calloc((size_t)(2 * n), sizeof(int)), *r = calloc((size_t)(2 * n), sizeof(int));
        if (size >= 2) {
            check("MPI_Scan", n, MPI_Scan(s, r, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            check("MPI_Exscan", n, MPI_Exscan(s, r, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        }
        free(s);
        free(r);
    }
    /* the communicator still works afterwards */
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size) {
        fprintf(stderr, "rank %d: allreduce after the errors gave %d\n", rank, sum);
        failures++;
    }
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "FAILED (%d)\n" : "collective truncation: OK\n", total);
    MPI_Finalize();
    return total != 0;
}
