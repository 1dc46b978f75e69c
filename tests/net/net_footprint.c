/*
 * Per-process footprint after every rank has talked to every other (an alltoall of 64 KiB per
 * pair): open descriptors, sockets among them, and resident memory. Rank 0 prints min/avg/max
 * over the ranks. Used for the table in docs/NETWORK.md (run it over tcp, udp, hybrid).
 */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void count_fds(double *fds, double *sockets)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    char path[300], target[300];
    *fds = *sockets = 0;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        *fds += 1;
        if (n > 0 && !strncmp(target, "socket:", 7))
            *sockets += 1;
    }
    if (d)
        closedir(d);
    *fds -= 1; /* the directory stream itself */
}

static double rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = atof(line + 6);
    if (f)
        fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t per = 65536;
    char *sbuf = calloc((size_t)size, per), *rbuf = calloc((size_t)size, per);
    MPI_Alltoall(sbuf, (int)per, MPI_BYTE, rbuf, (int)per, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double v[3];
    count_fds(&v[0], &v[1]);
    v[2] = rss_kib();
    double mn[3], mx[3], sum[3];
    MPI_Reduce(v, mn, 3, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(v, mx, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(v, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        const char *name[3] = {"fds", "sockets", "rss_kib"};
        printf("ranks %d", size);
        for (int i = 0; i < 3; i++)
            printf("  %s %.0f/%.1f/%.0f", name[i], mn[i], sum[i] / size, mx[i]);
        printf("  (min/avg/max)\n");
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
