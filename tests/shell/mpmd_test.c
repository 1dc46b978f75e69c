/* MPI program for the MPMD and universe-size launcher tests (mpmd.sh, nested.sh); standard
 * MPI only. Every rank prints one line:
 *   rank R size S appnum A universe U sum S2 prog P var V args ARGS...
 * where A and U are the MPI_APPNUM and MPI_UNIVERSE_SIZE attributes of MPI_COMM_WORLD ("-"
 * when absent), S2 the sum of the appnums over the world (one line shows that all the app
 * contexts joined a single MPI_COMM_WORLD), P the name the program was started under and V
 * the value of MPMD_VAR ("-" when unset). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int world_attr(int key)
{
    int *value, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &value, &flag);
    return flag ? *value : -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int appnum = world_attr(MPI_APPNUM), universe = world_attr(MPI_UNIVERSE_SIZE), sum = 0;
    MPI_Allreduce(&appnum, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    char line[1024];
    int len = snprintf(line, sizeof line, "rank %d size %d appnum ", rank, size);
    len += appnum < 0 ? snprintf(line + len, sizeof line - (size_t)len, "-")
                      : snprintf(line + len, sizeof line - (size_t)len, "%d", appnum);
    len += universe < 0 ? snprintf(line + len, sizeof line - (size_t)len, " universe -")
                        : snprintf(line + len, sizeof line - (size_t)len, " universe %d", universe);
    const char *slash = strrchr(argv[0], '/'), *var = getenv("MPMD_VAR");
    len += snprintf(line + len, sizeof line - (size_t)len, " sum %d prog %s var %s args", sum,
                    slash ? slash + 1 : argv[0], var ? var : "-");
    for (int i = 1; i < argc && (size_t)len < sizeof line - 1; i++)
        len += snprintf(line + len, sizeof line - (size_t)len, " %s", argv[i]);
    printf("%s\n", line);
    MPI_Finalize();
    return 0;
}
