/*
 * Gatherv and scatterv whose two ends disagree on a block's count, as real programs do when the
 * root's (gatherv) or a reader's (scatterv) count is only an upper bound: a shorter block must
 * arrive intact, a longer one must give MPI_ERR_TRUNCATE at its receiving end only, and nothing may
 * hang. The sizes straddle every way a block can travel in shared memory (inline, medium buffer,
 * slot, message beyond the largest 1 MiB slot). Blocking and nonblocking forms, with
 * MPI_ERRORS_RETURN.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static const int sizes[] = {3, 100, 1000, 100000, 300000};   /* ints */
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int value(int rank, int i)
{
    return rank * 7919 + i;
}

/* Rank r's block of `sent` ints, where the receiving end allowed `room`. */
static void check_block(const int *got, int r, int sent, int room, const char *what, int form)
{
    if (sent > room)
        return;   /* truncated: what the buffer holds is not defined */
    for (int i = 0; i < sent; i++)
        CHECK(got[i] == value(r, i), "%s form %d: rank %d sent %d, room %d: int %d is %d", what, form, r, sent, room,
              i, got[i]);
}

static int finish(int rc, int form, MPI_Request *rq)
{
    MPI_Status st;
    if (form == EMPI_FORM_BLOCKING || rc != MPI_SUCCESS)
        return rc;
    return MPI_Wait(rq, &st);
}

/* Every non-root rank r sends `sent`; the root's room for it is `room` (ranks >= 1 only). */
static void gatherv(int root, int sent, int room, int form)
{
    int rank = empi_rank(), p = empi_size();
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    CHECK(counts && displs, "out of memory");
    long total = 0;
    for (int r = 0; r < p; r++) {
        counts[r] = r == root ? 1 : room;
        displs[r] = (int)total;
        total += counts[r];
    }
    int mine = rank == root ? 1 : sent;
    int *sbuf = malloc(sizeof(int) * (size_t)mine), *rbuf = calloc((size_t)total, sizeof(int));
    CHECK(sbuf && rbuf, "out of memory");
    for (int i = 0; i < mine; i++)
        sbuf[i] = value(rank, i);
    MPI_Request rq;
    int rc = form == EMPI_FORM_BLOCKING
                 ? MPI_Gatherv(sbuf, mine, MPI_INT, rbuf, counts, displs, MPI_INT, root, MPI_COMM_WORLD)
                 : MPI_Igatherv(sbuf, mine, MPI_INT, rbuf, counts, displs, MPI_INT, root, MPI_COMM_WORLD, &rq);
    rc = finish(rc, form, &rq);
    int eclass = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &eclass);
    int want = rank == root && sent > room && p > 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    CHECK(eclass == want, "gatherv root %d sent %d room %d form %d: rank %d got class %d, want %d", root, sent, room,
          form, rank, eclass, want);
    if (eclass == MPI_ERR_TRUNCATE && form == EMPI_FORM_BLOCKING) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        CHECK(strstr(msg, "MPI_Gatherv") && strstr(msg, "counts or datatypes disagree"),
              "gatherv truncation message \"%s\" does not name the call and the cause", msg);
    }
    for (int r = 0; rank == root && r < p; r++)
        if (r != root)
            check_block(rbuf + displs[r], r, sent, room, "gatherv", form);
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
}

/* The root sends every other rank `sent` ints; each of them has room for `room`. */
static void scatterv(int root, int sent, int room, int form)
{
    int rank = empi_rank(), p = empi_size();
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    CHECK(counts && displs, "out of memory");
    long total = 0;
    for (int r = 0; r < p; r++) {
        counts[r] = r == root ? 1 : sent;
        displs[r] = (int)total;
        total += counts[r];
    }
    int *sbuf = malloc(sizeof(int) * (size_t)total), mine = rank == root ? 1 : room;
    int *rbuf = calloc((size_t)mine, sizeof(int));
    CHECK(sbuf && rbuf, "out of memory");
    for (int r = 0; r < p; r++)
        for (int i = 0; i < counts[r]; i++)
            sbuf[displs[r] + i] = value(r, i);
    MPI_Request rq;
    int rc = form == EMPI_FORM_BLOCKING
                 ? MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, mine, MPI_INT, root, MPI_COMM_WORLD)
                 : MPI_Iscatterv(sbuf, counts, displs, MPI_INT, rbuf, mine, MPI_INT, root, MPI_COMM_WORLD, &rq);
    rc = finish(rc, form, &rq);
    int eclass = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &eclass);
    int want = rank != root && sent > room ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    CHECK(eclass == want, "scatterv root %d sent %d room %d form %d: rank %d got class %d, want %d", root, sent, room,
          form, rank, eclass, want);
    if (rank != root)
        check_block(rbuf, rank, sent, room, "scatterv", form);
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int p = empi_size();
    for (int root = 0; root < p; root += p > 2 ? p - 1 : 1)
        for (int form = 0; form < 2; form++)
            for (int s = 0; s < NSIZES; s++)
                for (int r = 0; r < NSIZES; r++) {
                    gatherv(root, sizes[s], sizes[r], form);
                    scatterv(root, sizes[s], sizes[r], form);
                    /* a truncated call leaves nothing behind that the next one could match */
                    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
                }
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
