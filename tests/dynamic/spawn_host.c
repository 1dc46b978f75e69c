/*
 * MPI_Comm_spawn with the "host" info key: the children run on the named host, not on the parent's.
 *   spawn_host HOST      (parent; the multi-host suite passes another host's address)
 * The children report their processor names; the parent checks they all ran on one host other
 * than its own, and that a 1 MiB message crosses to each of them and back intact.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCHILD 2
#define BIG (1 << 20)

static void fail(const char *what)
{
    fprintf(stderr, "FAIL: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void child(MPI_Comm parent)
{
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(name, &len);
    MPI_Send(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 0, parent);
    unsigned char *buf = malloc(BIG);
    MPI_Recv(buf, BIG, MPI_BYTE, 0, 1, parent, MPI_STATUS_IGNORE);
    MPI_Send(buf, BIG, MPI_BYTE, 0, 2, parent);
    free(buf);
    MPI_Comm_disconnect(&parent);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        child(parent);
        MPI_Finalize();
        return 0;
    }
    if (argc < 2)
        fail("usage: spawn_host HOST");
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", argv[1]);
    MPI_Comm inter;
    int errs[NCHILD];
    MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, NCHILD, info, 0, MPI_COMM_WORLD, &inter, errs);
    MPI_Info_free(&info);
    if (rank == 0) {
        char mine[MPI_MAX_PROCESSOR_NAME] = {0}, theirs[NCHILD][MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_Get_processor_name(mine, &len);
        unsigned char *out = malloc(BIG), *back = malloc(BIG);
        for (int i = 0; i < BIG; i++)
            out[i] = (unsigned char)(i * 7 + 3);
        for (int c = 0; c < NCHILD; c++) {
            if (errs[c] != MPI_SUCCESS)
                fail("an errcode is not MPI_SUCCESS");
            MPI_Recv(theirs[c], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, c, 0, inter, MPI_STATUS_IGNORE);
            MPI_Send(out, BIG, MPI_BYTE, c, 1, inter);
            memset(back, 0, BIG);
            MPI_Recv(back, BIG, MPI_BYTE, c, 2, inter, MPI_STATUS_IGNORE);
            if (memcmp(out, back, BIG) != 0)
                fail("1 MiB came back altered");
        }
        printf("parent on %s, children on %s and %s\n", mine, theirs[0], theirs[1]);
        if (strcmp(theirs[0], theirs[1]) != 0)
            fail("the children ran on different hosts");
        if (strcmp(theirs[0], mine) == 0)
            fail("the children ran on the parent's host, not on the one named by \"host\"");
        free(out);
        free(back);
    }
    MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    if (rank == 0)
        printf("PASS\n");
    return 0;
}
