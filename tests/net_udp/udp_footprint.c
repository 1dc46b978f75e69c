/*
 * Per-process footprint for docs/NETWORK-UDP.md (not a test): after every rank has exchanged
 * messages with every other (MPI_Alltoall of 64 KiB blocks, so every pair has carried traffic),
 * rank 0 prints the largest resident set growth since before MPI_Init, the largest peak resident
 * set and the most open file descriptors over all ranks.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n))
            v = atol(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

static long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    long n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n - 1; /* the directory stream itself */
}

int main(int argc, char **argv)
{
    long rss0 = status_kib("VmRSS:"), fds0 = open_fds();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t block = 64 * 1024;
    char *out = malloc(block * (size_t)size), *in = malloc(block * (size_t)size);
    memset(out, rank, block * (size_t)size);
    for (int i = 0; i < 3; i++)
        MPI_Alltoall(out, (int)block, MPI_BYTE, in, (int)block, MPI_BYTE, MPI_COMM_WORLD);
    free(out);
    free(in);
    long mine[3] = {status_kib("VmRSS:") - rss0, status_kib("VmHWM:"), open_fds() - fds0}, most[3];
    MPI_Reduce(mine, most, 3, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d: RSS growth %ld KiB, peak RSS %ld KiB, descriptors opened by MPI %ld\n", size,
               most[0], most[1], most[2]);
    MPI_Finalize();
    return 0;
}
