/*
 * Gatherv and scatterv whose blocks differ in kind within one call: empty, one element, just under
 * and just over 2 KiB (where the shm algorithms switch from the shared segment to messages) and
 * 96 KiB, cycling over the ranks. The root's side uses a strided type (every other int) and the
 * others plain ints, so the signatures match while the layouts differ; then plain ints on both
 * sides (blocks a single-copy read takes straight from buffer to buffer). Every root, MPI_IN_PLACE
 * at the root, blocking, nonblocking and persistent forms; every int checked, and the root's gaps
 * (one element between blocks, and every other int when strided) must stay untouched.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static const int kinds[] = {0, 1, 511, 512, 513, 24576};   /* ints: 2044, 2048, 2052 bytes around 2 KiB */
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))
#define GAP (-7)

static int count_of(int rank, int shift)
{
    return kinds[(rank + shift) % NKINDS];
}

static int value(int rank, int i, int k)
{
    return rank * 1000003 + i * 7 + k;
}

/* The root's buffer: rank r's block at displs[r] (in strided elements), blocks in reverse order
   with one element between them; returns the number of strided elements. */
static int layout(int p, int shift, int *counts, int *displs)
{
    int total = 0;
    for (int r = p - 1; r >= 0; r--) {
        counts[r] = count_of(r, shift);
        displs[r] = total;
        total += counts[r] + 1;
    }
    return total;
}

static void start(int gather, const void *s, int sc, MPI_Datatype sdt, void *r, const int *counts, const int *displs,
                  int rcount, MPI_Datatype rdt, int root, int form, MPI_Request *rq)
{
    MPI_Comm w = MPI_COMM_WORLD;
    if (gather && form == EMPI_FORM_BLOCKING)
        CHECK_MPI(MPI_Gatherv(s, sc, sdt, r, counts, displs, rdt, root, w));
    else if (gather && form == EMPI_FORM_NONBLOCKING)
        CHECK_MPI(MPI_Igatherv(s, sc, sdt, r, counts, displs, rdt, root, w, rq));
    else if (gather)
        CHECK_MPI(MPI_Gatherv_init(s, sc, sdt, r, counts, displs, rdt, root, w, MPI_INFO_NULL, rq));
    else if (form == EMPI_FORM_BLOCKING)
        CHECK_MPI(MPI_Scatterv(s, counts, displs, sdt, r, rcount, rdt, root, w));
    else if (form == EMPI_FORM_NONBLOCKING)
        CHECK_MPI(MPI_Iscatterv(s, counts, displs, sdt, r, rcount, rdt, root, w, rq));
    else
        CHECK_MPI(MPI_Scatterv_init(s, counts, displs, sdt, r, rcount, rdt, root, w, MPI_INFO_NULL, rq));
    empi_form_finish(rq, form);
}

/* Int i of rank r's block in the root's buffer, whose elements are `stride` ints apart. */
static int at(int stride, const int *displs, int r, int i)
{
    return stride * (displs[r] + i);
}

static void run(MPI_Datatype rooted, int stride, int gather, int root, int shift, int form, int in_place)
{
    int rank = empi_rank(), p = empi_size(), k = shift * 17 + form * 3 + in_place;
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    CHECK(counts && displs, "out of memory");
    int total = layout(p, shift, counts, displs), mine = counts[rank];
    int *big = malloc(sizeof(int) * (size_t)total * 2 + 1), *own = malloc(sizeof(int) * (size_t)mine + 1);
    char *used = calloc((size_t)total * 2 + 1, 1);
    CHECK(big && own && used, "out of memory");
    for (int i = 0; i < total * 2; i++)
        big[i] = GAP;
    for (int r = 0; r < p; r++)
        for (int i = 0; i < counts[r]; i++)
            used[at(stride, displs, r, i)] = 1;
    int own_in_place = in_place && rank == root;
    if (gather) {
        for (int i = 0; i < mine; i++)
            own[i] = value(rank, i, k);
        if (own_in_place)
            for (int i = 0; i < mine; i++)
                big[at(stride, displs, rank, i)] = value(rank, i, k);
    } else {
        for (int r = 0; rank == root && r < p; r++)
            for (int i = 0; i < counts[r]; i++)
                big[at(stride, displs, r, i)] = value(r, i, k);
        memset(own, 0, sizeof(int) * (size_t)mine);
    }
    MPI_Request rq;
    if (gather)
        start(1, own_in_place ? MPI_IN_PLACE : own, mine, MPI_INT, big, counts, displs, 0, rooted, root, form, &rq);
    else
        start(0, big, 0, rooted, own_in_place ? MPI_IN_PLACE : own, counts, displs, mine, MPI_INT, root, form, &rq);
    if (gather && rank == root) {
        for (int r = 0; r < p; r++)
            for (int i = 0; i < counts[r]; i++)
                CHECK(big[at(stride, displs, r, i)] == value(r, i, k), "gatherv stride %d root %d shift %d form %d "
                      "in_place %d: rank %d int %d is %d", stride, root, shift, form, in_place, r, i,
                      big[at(stride, displs, r, i)]);
        for (int i = 0; i < total * stride; i++)
            CHECK(used[i] || big[i] == GAP, "gatherv stride %d root %d shift %d form %d: gap int %d written", stride,
                  root, shift, form, i);
    } else if (!gather && !own_in_place) {
        for (int i = 0; i < mine; i++)
            CHECK(own[i] == value(rank, i, k), "scatterv stride %d root %d shift %d form %d in_place %d: int %d is %d",
                  stride, root, shift, form, in_place, i, own[i]);
    }
    free(big);
    free(own);
    free(used);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p = empi_size();
    MPI_Datatype pair, strided;   /* one int, extent two ints */
    CHECK_MPI(MPI_Type_contiguous(1, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_create_resized(pair, 0, 2 * (MPI_Aint)sizeof(int), &strided));
    CHECK_MPI(MPI_Type_free(&pair));
    CHECK_MPI(MPI_Type_commit(&strided));
    for (int stride = 2; stride >= 1; stride--)
        for (int shift = 0; shift < NKINDS; shift++)
            for (int root = 0; root < p; root += p > 2 ? p - 1 : 1)
                for (int form = 0; form < EMPI_NFORMS; form++)
                    for (int in_place = 0; in_place < 2; in_place++)
                        for (int gather = 0; gather < 2; gather++)
                            run(stride == 2 ? strided : MPI_INT, stride, gather, root, shift, form, in_place);
    CHECK_MPI(MPI_Type_free(&strided));
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
