/*
 * Collectives whose ranks describe the same type signature with different type maps, as the
 * standard allows (the root contiguous, the others a strided vector, and the reverse; count 0 of
 * int against count 10 of an empty type). Each runs as the first collective of a fresh
 * communicator, where the shared-memory segment is set up: a rank that takes a direct path for a
 * contiguous type and one that builds a schedule for a strided one must stay in step, in that
 * set-up and in every collective after it (checked with a gather and an allreduce that follow).
 */
#include <stdio.h>

#include "empi_test.h"

/* The collectives after the odd one: a pt2pt-based gather and an allreduce, checked. */
static void still_in_step(MPI_Comm comm, const char *what)
{
    int rank = empi_rank(), p = empi_size(), got[64], sum = -1;
    CHECK_MPI(MPI_Gather(&rank, 1, MPI_INT, got, 1, MPI_INT, p - 1, comm));
    for (int r = 0; rank == p - 1 && r < p; r++)
        CHECK(got[r] == r, "%s: gather after it gave %d from rank %d", what, got[r], r);
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == p * (p - 1) / 2, "%s: allreduce after it gave %d", what, sum);
}

/* Bcast of 6 ints from `root`: contiguous where `contig_at_root` says, else every other pair of a
   vector (3 blocks of 2 ints, stride 3; extent 8 ints) with -1 in the gaps. */
static void bcast_maps(int root, int contig_at_root, int nbytes_scale)
{
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(3, 2, 3, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    int rank = empi_rank(), contig = (rank == root) == contig_at_root, n = nbytes_scale;
    int buf[8 * 512];
    for (int i = 0; i < 8 * n; i++)
        buf[i] = -1;
    if (rank == root)
        for (int k = 0; k < 6 * n; k++)
            buf[contig ? k : (k / 6) * 8 + (k % 6) / 2 * 3 + k % 2] = 100 + k;
    if (contig)
        CHECK_MPI(MPI_Bcast(buf, 6 * n, MPI_INT, root, comm));
    else
        CHECK_MPI(MPI_Bcast(buf, n, vec, root, comm));
    char what[96];
    snprintf(what, sizeof what, "bcast root %d contiguous at %s, %d ints", root, contig_at_root ? "root" : "others",
             6 * n);
    for (int k = 0; k < 6 * n; k++) {
        int at = contig ? k : (k / 6) * 8 + (k % 6) / 2 * 3 + k % 2;
        CHECK(buf[at] == 100 + k, "%s: element %d is %d", what, k, buf[at]);
        if (!contig && (k % 6 == 1 || k % 6 == 3))
            CHECK(buf[at + 1] == -1, "%s: gap after element %d written", what, k);
    }
    still_in_step(comm, what);
    CHECK_MPI(MPI_Type_free(&vec));
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* Bcast with an empty signature: count 0 of int at the root, 10 of an empty type elsewhere (and
   the reverse). Nothing moves, nothing is written, nobody waits. */
static void bcast_empty(int empty_type_at_root)
{
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Datatype none;
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &none));
    CHECK_MPI(MPI_Type_commit(&none));
    int buf[16], root = 0, at_root = empi_rank() == root;
    for (int i = 0; i < 16; i++)
        buf[i] = -1;
    if (at_root == empty_type_at_root)
        CHECK_MPI(MPI_Bcast(buf, 10, none, root, comm));
    else
        CHECK_MPI(MPI_Bcast(buf, 0, MPI_INT, root, comm));
    for (int i = 0; i < 16; i++)
        CHECK(buf[i] == -1, "empty bcast wrote element %d", i);
    still_in_step(comm, "empty bcast");
    CHECK_MPI(MPI_Type_free(&none));
    CHECK_MPI(MPI_Comm_free(&comm));
}

/* A predefined operation on a type with no data is a reduction of nothing: allowed, and nothing
   is written (it used to be MPI_ERR_OP: the empty type has no basic type). */
static void reduce_empty(void)
{
    MPI_Datatype none;
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &none));
    CHECK_MPI(MPI_Type_commit(&none));
    int in[4] = {1, 2, 3, 4}, out[4] = {-1, -1, -1, -1};
    CHECK_MPI(MPI_Allreduce(in, out, 3, none, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Reduce(in, out, 3, none, MPI_MAX, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Reduce_local(in, out, 3, none, MPI_PROD));
    for (int i = 0; i < 4; i++)
        CHECK(out[i] == -1, "a reduction of an empty type wrote element %d", i);
    CHECK_MPI(MPI_Type_free(&none));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p = empi_size();
    for (int root = 0; root < p; root += p - 1 > 0 ? p - 1 : 1)
        for (int contig_at_root = 0; contig_at_root < 2; contig_at_root++)
            for (int n = 1; n <= 512; n *= 512)   /* 24 bytes, and 12 KiB (past the inline data) */
                bcast_maps(root, contig_at_root, n);
    bcast_empty(0);
    bcast_empty(1);
    reduce_empty();
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
