/*
 * Gather's and gatherv's senders, and the root of scatter, scatterv and bcast, run many calls
 * ahead of their readers with mid-size blocks ("deep" pieces, 2-32 KiB here) and with small ones
 * in the post lines and medium buffers (up to 256 calls ahead): bursts of calls to one root with
 * sizes changing between bursts and within them, the five collectives in turn (the v-forms with
 * blocks of two sizes), the root moving, other shared-memory collectives between bursts (a large
 * reduce writes into other ranks' slots, allgather and bcast write their own), 120 igathers
 * posted before any wait, as many small igathervs and iscattervs, a persistent gather
 * restarted with new data, and calls separated by barriers before a stretch without. Run with
 * the shm algorithms forced (CMakeLists), so a writer that overwrote a block not read yet shows
 * as a wrong byte.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static const int sizes[] = {3000, 4096, 5000, 8192, 12000, 16384, 32768, 65536, 1500};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define OUTSTANDING 120

static uint32_t seed_of(int rank, int call)
{
    return empi_seed(rank, 0, call);
}

static void check_gathered(const char *rbuf, int nb, int call)
{
    for (int r = 0; r < empi_size(); r++)
        CHECK_PATTERN(rbuf + (size_t)r * (size_t)nb, (size_t)nb, seed_of(r, call));
}

/* Other collectives between bursts: their pieces break a run of deep pieces. */
static void interlude(int call)
{
    int p = empi_size(), me = empi_rank();
    size_t n = 200000;   /* ints: a slot-sized reduce, reduced in slices across the slots */
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    char *ag = malloc(4096 * (size_t)p);
    CHECK(in && out && ag, "out of memory");
    for (size_t i = 0; i < n; i++)
        in[i] = (int)(i % 1000) + me + call;
    CHECK_MPI(MPI_Reduce(in, out, (int)n, MPI_INT, MPI_SUM, call % p, MPI_COMM_WORLD));
    if (me == call % p)
        for (size_t i = 0; i < n; i++)
            CHECK(out[i] == p * ((int)(i % 1000) + call) + p * (p - 1) / 2, "reduce element %zu: %d", i, out[i]);
    empi_fill(ag + (size_t)me * 4096, 4096, seed_of(me, call));
    CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, 4096, MPI_BYTE, MPI_COMM_WORLD));
    for (int r = 0; r < p; r++)
        CHECK_PATTERN(ag + (size_t)r * 4096, 4096, seed_of(r, call));
    int broot = (call + 1) % p;
    if (me == broot)
        empi_fill(ag, 4096 * (size_t)p, seed_of(p, call));
    else
        memset(ag, 0, 4096 * (size_t)p);
    CHECK_MPI(MPI_Bcast(ag, 4096 * p, MPI_BYTE, broot, MPI_COMM_WORLD));
    CHECK_PATTERN(ag, 4096 * (size_t)p, seed_of(p, call));
    free(in);
    free(out);
    free(ag);
}

static void gather(char *sbuf, char *rbuf, int nb, int root, int call)
{
    empi_fill(sbuf, (size_t)nb, seed_of(empi_rank(), call));
    CHECK_MPI(MPI_Gather(sbuf, nb, MPI_BYTE, rbuf, nb, MPI_BYTE, root, MPI_COMM_WORLD));
    if (empi_rank() == root)
        check_gathered(rbuf, nb, call);
}

/* The root's sbuf holds every rank's block, the mirror of a gather's receive buffer. */
static void scatter(char *sbuf, char *rbuf, int nb, int root, int call)
{
    if (empi_rank() == root)
        for (int r = 0; r < empi_size(); r++)
            empi_fill(sbuf + (size_t)r * (size_t)nb, (size_t)nb, seed_of(r, call));
    CHECK_MPI(MPI_Scatter(sbuf, nb, MPI_BYTE, rbuf, nb, MPI_BYTE, root, MPI_COMM_WORLD));
    CHECK_PATTERN(rbuf, (size_t)nb, seed_of(empi_rank(), call));
}

static void bcast(char *buf, int nb, int root, int call)
{
    if (empi_rank() == root)
        empi_fill(buf, (size_t)nb, seed_of(root, call));
    else
        memset(buf, 0, (size_t)nb);
    CHECK_MPI(MPI_Bcast(buf, nb, MPI_BYTE, root, MPI_COMM_WORLD));
    CHECK_PATTERN(buf, (size_t)nb, seed_of(root, call));
}

/* The v-forms' blocks: odd ranks' a third shorter, so that writers' pieces differ in size. */
static int vcount(int r, int nb)
{
    return nb - (r % 2) * (nb / 3);
}

static void v_layout(int nb, int *counts, int *displs)
{
    for (int r = 0, at = 0; r < empi_size(); at += counts[r], r++) {
        counts[r] = vcount(r, nb);
        displs[r] = at;
    }
}

/* Every rank's block of a v-call in `all` (a scatterv root's send buffer, a gatherv root's
   receive buffer): filled, or checked. */
static void fill_blocks(char *all, const int *counts, const int *displs, int call)
{
    for (int r = 0; r < empi_size(); r++)
        empi_fill(all + displs[r], (size_t)counts[r], seed_of(r, call));
}

static void check_blocks(const char *all, const int *counts, const int *displs, int call)
{
    for (int r = 0; r < empi_size(); r++)
        CHECK_PATTERN(all + displs[r], (size_t)counts[r], seed_of(r, call));
}

static void gatherv(char *sbuf, char *rbuf, int nb, int root, int call)
{
    int counts[64], displs[64], me = empi_rank();
    v_layout(nb, counts, displs);
    empi_fill(sbuf, (size_t)counts[me], seed_of(me, call));
    CHECK_MPI(MPI_Gatherv(sbuf, counts[me], MPI_BYTE, rbuf, counts, displs, MPI_BYTE, root, MPI_COMM_WORLD));
    if (me == root)
        check_blocks(rbuf, counts, displs, call);
}

static void scatterv(char *sbuf, char *rbuf, int nb, int root, int call)
{
    int counts[64], displs[64], me = empi_rank();
    v_layout(nb, counts, displs);
    if (me == root)
        fill_blocks(sbuf, counts, displs, call);
    CHECK_MPI(MPI_Scatterv(sbuf, counts, displs, MPI_BYTE, rbuf, counts[me], MPI_BYTE, root, MPI_COMM_WORLD));
    CHECK_PATTERN(rbuf, (size_t)counts[me], seed_of(me, call));
}

/* Call `kind` % 5 (gather, scatter, bcast, gatherv, scatterv) with blocks of up to nb bytes: `one`
   holds a rank's block, `all` every rank's. */
static void rooted(int kind, char *one, char *all, int nb, int root, int call)
{
    switch (kind % 5) {
    case 0: gather(one, all, nb, root, call); break;
    case 1: scatter(all, one, nb, root, call); break;
    case 2: bcast(one, nb, root, call); break;
    case 3: gatherv(one, all, nb, root, call); break;
    default: scatterv(all, one, nb, root, call); break;
    }
}

static void bursts(int *call)
{
    int p = empi_size();
    char *one = malloc(65536), *all = malloc(65536 * (size_t)p);
    CHECK(one && all, "out of memory");
    for (int b = 0; b < 2 * NSIZES; b++) {
        int root = b % p, len = b < NSIZES ? 60 : 25;
        for (int i = 0; i < len; i++, (*call)++) {
            /* the size changes every 20 calls within a burst, and between bursts */
            rooted(b, one, all, sizes[(b + i / 20) % NSIZES], root, *call);
        }
        if (b % 3 == 2)
            interlude(*call);
    }
    free(one);
    free(all);
}

/* Calls separated by barriers (blocking and not), as a benchmark paces them, then a stretch without:
   a barrier uses no slot, so a run of deep pieces goes on across it (coll_shm.h), and the writers
   that run ahead after it must still wait for the readers of each position's last piece. */
static void paced(int *call)
{
    int p = empi_size();
    char *one = malloc(65536), *all = malloc(65536 * (size_t)p);
    CHECK(one && all, "out of memory");
    for (int b = 0; b < 10; b++) {
        int root = (b + 2) % p, nb = sizes[b * 5 % NSIZES];
        for (int i = 0; i < 80; i++, (*call)++) {
            rooted(b, one, all, nb, root, *call);
            if (i < 40 && i % 2 == 0)
                CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            if (i < 40 && i % 2 == 1) {
                MPI_Request rq;
                CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
                CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            }
        }
    }
    free(one);
    free(all);
}

/* Long bursts of blocks that travel inline or in the medium buffers, so that writers get a whole
   ring of lines or buffers ahead. */
static void small_bursts(int *call)
{
    static const int small[] = {40, 8, 1000};
    int p = empi_size();
    char one[1000], *all = malloc(1000 * (size_t)p);
    CHECK(all, "out of memory");
    for (int b = 0; b < 15; b++) {
        int nb = small[b / 5], root = (b + 1) % p;
        for (int i = 0; i < 300; i++, (*call)++)
            rooted(b, one, all, nb, root, *call);
    }
    free(all);
}

static void outstanding(int *call)
{
    int p = empi_size(), me = empi_rank(), root = p - 1;
    char *sbuf[OUTSTANDING], *rbuf[OUTSTANDING];
    MPI_Request rq[OUTSTANDING];
    for (int i = 0; i < OUTSTANDING; i++) {
        int nb = sizes[(i / 10) % NSIZES];
        sbuf[i] = malloc((size_t)nb);
        rbuf[i] = me == root ? malloc((size_t)nb * (size_t)p) : NULL;
        CHECK(sbuf[i] && (me != root || rbuf[i]), "out of memory");
        empi_fill(sbuf[i], (size_t)nb, seed_of(me, *call + i));
        CHECK_MPI(MPI_Igather(sbuf[i], nb, MPI_BYTE, rbuf[i], nb, MPI_BYTE, root, MPI_COMM_WORLD, &rq[i]));
    }
    CHECK_MPI(MPI_Waitall(OUTSTANDING, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < OUTSTANDING; i++) {
        if (me == root)
            check_gathered(rbuf[i], sizes[(i / 10) % NSIZES], *call + i);
        free(sbuf[i]);
        free(rbuf[i]);
    }
    *call += OUTSTANDING;
}

/* Igathervs and iscattervs of small blocks in turn, all posted before any wait: when ranks
   outnumber cores their blocks go as messages with no descriptor, many calls' messages at once.
   Each call keeps its own counts and displacements until it completes, as the standard asks. */
static void outstanding_v(int *call)
{
    int p = empi_size(), me = empi_rank(), root = 0;
    int (*counts)[64] = malloc(OUTSTANDING * sizeof *counts), (*displs)[64] = malloc(OUTSTANDING * sizeof *displs);
    char *one[OUTSTANDING], *all[OUTSTANDING];
    MPI_Request rq[OUTSTANDING];
    CHECK(counts && displs, "out of memory");
    for (int i = 0; i < OUTSTANDING; i++) {
        int nb = i % 3 == 2 ? 3000 : 8 + i % 100;   /* a mid-size call now and then takes a descriptor */
        v_layout(nb, counts[i], displs[i]);
        one[i] = malloc((size_t)nb);
        all[i] = malloc((size_t)nb * (size_t)p);
        CHECK(one[i] && all[i], "out of memory");
        if (i % 2 == 0) {
            empi_fill(one[i], (size_t)counts[i][me], seed_of(me, *call + i));
            CHECK_MPI(MPI_Igatherv(one[i], counts[i][me], MPI_BYTE, all[i], counts[i], displs[i], MPI_BYTE, root,
                                   MPI_COMM_WORLD, &rq[i]));
        } else {
            if (me == root)
                fill_blocks(all[i], counts[i], displs[i], *call + i);
            CHECK_MPI(MPI_Iscatterv(all[i], counts[i], displs[i], MPI_BYTE, one[i], counts[i][me], MPI_BYTE, root,
                                    MPI_COMM_WORLD, &rq[i]));
        }
    }
    CHECK_MPI(MPI_Waitall(OUTSTANDING, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < OUTSTANDING; i++) {
        if (i % 2 == 1)
            CHECK_PATTERN(one[i], (size_t)counts[i][me], seed_of(me, *call + i));
        else if (me == root)
            check_blocks(all[i], counts[i], displs[i], *call + i);
        free(one[i]);
        free(all[i]);
    }
    free(counts);
    free(displs);
    *call += OUTSTANDING;
}

static void persistent(int *call)
{
    int p = empi_size(), me = empi_rank(), root = p / 2, nb = 16384;
    char *sbuf = malloc((size_t)nb), *rbuf = malloc((size_t)nb * (size_t)p);
    CHECK(sbuf && rbuf, "out of memory");
    MPI_Request rq;
    CHECK_MPI(MPI_Gather_init(sbuf, nb, MPI_BYTE, rbuf, nb, MPI_BYTE, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    for (int i = 0; i < 50; i++, (*call)++) {
        empi_fill(sbuf, (size_t)nb, seed_of(me, *call));
        CHECK_MPI(MPI_Start(&rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        if (me == root)
            check_gathered(rbuf, nb, *call);
    }
    CHECK_MPI(MPI_Request_free(&rq));
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int call = 0;
    bursts(&call);
    paced(&call);
    small_bursts(&call);
    outstanding(&call);
    outstanding_v(&call);
    persistent(&call);
    bursts(&call);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
