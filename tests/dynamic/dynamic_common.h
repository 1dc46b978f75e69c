/*
 * Shared checks of the dynamic-process tests. Both groups of an intercommunicator (parents and
 * children, server and client) call the same function with their `side` (0 or 1); the side goes
 * into every data pattern, so data that arrives from the wrong peer or in the wrong direction is
 * caught, not only data that is corrupted.
 */
#ifndef DYNAMIC_COMMON_H
#define DYNAMIC_COMMON_H

#include "empi_test.h"

#include <stdlib.h>
#include <string.h>

/*
 * Errors come back as codes, so CHECK_MPI reports a failing call with its class and text and then
 * aborts (instead of the library's fatal handler). MPI_COMM_SELF carries the errors of the port and
 * name-service calls, which have no communicator argument.
 */
static inline void dyn_errors_return(MPI_Comm comm)
{
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
}

static inline void dyn_init_errors(void)
{
    dyn_errors_return(MPI_COMM_WORLD);
    dyn_errors_return(MPI_COMM_SELF);
}

/*
 * Start of every test program here: MPI_Init, errors returned, and if this process was spawned,
 * run `child` and finalize. Returns 1 in a child (main returns 0), 0 in the parent.
 */
static inline int dyn_start_child(int *argc, char ***argv, void (*child)(MPI_Comm, int, char **))
{
    CHECK_MPI(MPI_Init(argc, argv));
    dyn_init_errors();
    MPI_Comm parent = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_get_parent(&parent));
    if (parent == MPI_COMM_NULL)
        return 0;
    child(parent, *argc, *argv);
    CHECK_MPI(MPI_Finalize());
    return 1;
}

/* Pattern seed of message `seq` from rank `src` of group `side` to rank `dst` of the other group. */
static inline uint32_t dyn_seed(int side, int src, int dst, int seq)
{
    return empi_seed(side * 4096 + src, (1 - side) * 4096 + dst, seq);
}

/* Local size, local rank and remote size of an intercommunicator, which must be one. */
static inline void dyn_inter_shape(MPI_Comm inter, int *lsize, int *lrank, int *rsize)
{
    int flag = 0;
    CHECK(inter != MPI_COMM_NULL, "intercommunicator is MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag, "MPI_Comm_test_inter says the communicator is not an intercommunicator");
    CHECK_MPI(MPI_Comm_size(inter, lsize));
    CHECK_MPI(MPI_Comm_rank(inter, lrank));
    CHECK_MPI(MPI_Comm_remote_size(inter, rsize));
}

/*
 * The remote group seen from this job's MPI_COMM_WORLD: remote rank i must be world rank rbase + i
 * (a connection inside the job), or, with rbase < 0, no world rank at all (another job).
 */
static inline void dyn_check_remote_world_ranks(MPI_Comm inter, int rbase, const char *what)
{
    int rsize;
    MPI_Group remote, world;
    CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
    CHECK_MPI(MPI_Comm_remote_group(inter, &remote));
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int *in = malloc(sizeof(int) * (size_t)rsize), *out = malloc(sizeof(int) * (size_t)rsize);
    CHECK(in && out, "malloc");
    for (int i = 0; i < rsize; i++)
        in[i] = i;
    CHECK_MPI(MPI_Group_translate_ranks(remote, rsize, in, world, out));
    for (int i = 0; i < rsize; i++) {
        int want = rbase >= 0 ? rbase + i : MPI_UNDEFINED;
        CHECK(out[i] == want, "%s: remote rank %d is world rank %d, expected %d (MPI_UNDEFINED is %d)", what, i, out[i],
              want, MPI_UNDEFINED);
    }
    free(in);
    free(out);
    CHECK_MPI(MPI_Group_free(&remote));
    CHECK_MPI(MPI_Group_free(&world));
}

/*
 * Every local rank sends one message of each size in `sizes` to every remote rank and receives one
 * of each from every remote rank (tags tag .. tag+nsizes-1, all receives posted first). Sources,
 * tags, counts and every byte are checked.
 */
static inline void dyn_exchange(MPI_Comm inter, int side, const size_t *sizes, int nsizes, int tag, const char *what)
{
    int lsize, me, rsize;
    dyn_inter_shape(inter, &lsize, &me, &rsize);
    int n = rsize * nsizes;
    unsigned char **sbuf = calloc((size_t)n, sizeof *sbuf), **rbuf = calloc((size_t)n, sizeof *rbuf);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)n);
    MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * (size_t)n);
    CHECK(sbuf && rbuf && rq && st, "malloc");
    for (int r = 0; r < rsize; r++) {
        for (int k = 0; k < nsizes; k++) {
            int i = r * nsizes + k;
            sbuf[i] = malloc(sizes[k]);
            rbuf[i] = malloc(sizes[k]);
            CHECK(sbuf[i] && rbuf[i], "malloc of %zu bytes", sizes[k]);
            empi_fill(sbuf[i], sizes[k], dyn_seed(side, me, r, k));
            memset(rbuf[i], 0xA5, sizes[k]);
            CHECK_MPI(MPI_Irecv(rbuf[i], (int)sizes[k], MPI_BYTE, r, tag + k, inter, &rq[i]));
        }
    }
    for (int r = 0; r < rsize; r++)
        for (int k = 0; k < nsizes; k++) {
            int i = r * nsizes + k;
            CHECK_MPI(MPI_Isend(sbuf[i], (int)sizes[k], MPI_BYTE, r, tag + k, inter, &rq[n + i]));
        }
    CHECK_MPI(MPI_Waitall(2 * n, rq, st));
    for (int r = 0; r < rsize; r++) {
        for (int k = 0; k < nsizes; k++) {
            int i = r * nsizes + k, count = -1;
            CHECK(st[i].MPI_SOURCE == r && st[i].MPI_TAG == tag + k,
                  "%s: receive from remote rank %d tag %d completed with source %d tag %d", what, r, tag + k,
                  st[i].MPI_SOURCE, st[i].MPI_TAG);
            CHECK_MPI(MPI_Get_count(&st[i], MPI_BYTE, &count));
            CHECK(count == (int)sizes[k], "%s: %d bytes from remote rank %d, expected %zu", what, count, r, sizes[k]);
            uint32_t seed = dyn_seed(1 - side, r, me, k);
            size_t bad = empi_find_mismatch(rbuf[i], sizes[k], seed);
            CHECK(bad == (size_t)-1, "%s: %zu-byte message from remote rank %d: byte %zu is 0x%02x, expected 0x%02x",
                  what, sizes[k], r, bad, rbuf[i][bad], empi_pattern_byte(seed, bad));
            free(sbuf[i]);
            free(rbuf[i]);
        }
    }
    free(sbuf);
    free(rbuf);
    free(rq);
    free(st);
}

/*
 * MPI_Intercomm_merge with this group `high` (the other group passes the opposite), then on the
 * merged communicator: the rank order (low group first, each group in its own order), an
 * MPI_Allreduce (a scalar and a 4096-int vector) and an MPI_Bcast of 64 KiB from the last rank,
 * which belongs to the high group.
 */
static inline void dyn_check_merge(MPI_Comm inter, int side, int high, const char *what)
{
    int lsize, lrank, rsize;
    dyn_inter_shape(inter, &lsize, &lrank, &rsize);
    MPI_Comm merged;
    CHECK_MPI(MPI_Intercomm_merge(inter, high, &merged));
    dyn_errors_return(merged);
    int n = -1, r = -1, flag = 1;
    CHECK_MPI(MPI_Comm_size(merged, &n));
    CHECK_MPI(MPI_Comm_rank(merged, &r));
    CHECK_MPI(MPI_Comm_test_inter(merged, &flag));
    CHECK(!flag, "%s: merged communicator is an intercommunicator", what);
    CHECK(n == lsize + rsize, "%s: merged size %d, expected %d + %d", what, n, lsize, rsize);
    CHECK(r == (high ? rsize + lrank : lrank), "%s: merged rank %d for local rank %d (high %d, remote size %d)", what,
          r, lrank, high, rsize);

    int mine[2] = {side, lrank}, *all = malloc(sizeof(int) * 2 * (size_t)n);
    CHECK(all, "malloc");
    CHECK_MPI(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, merged));
    int low_size = high ? rsize : lsize, low_side = high ? 1 - side : side;
    for (int i = 0; i < n; i++) {
        int want_side = i < low_size ? low_side : 1 - low_side, want_rank = i < low_size ? i : i - low_size;
        CHECK(all[2 * i] == want_side && all[2 * i + 1] == want_rank,
              "%s: merged rank %d is rank %d of side %d, expected rank %d of side %d", what, i, all[2 * i + 1],
              all[2 * i], want_rank, want_side);
    }
    free(all);

    int one = r + 1, sum = -1;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == n * (n + 1) / 2, "%s: merged allreduce sum %d, expected %d", what, sum, n * (n + 1) / 2);
    enum { VEC = 4096 };
    int *in = malloc(sizeof(int) * VEC), *out = malloc(sizeof(int) * VEC);
    CHECK(in && out, "malloc");
    for (int j = 0; j < VEC; j++) {
        in[j] = (r + 1) * (j % 97 + 1);
        out[j] = -1;
    }
    CHECK_MPI(MPI_Allreduce(in, out, VEC, MPI_INT, MPI_SUM, merged));
    for (int j = 0; j < VEC; j++)
        CHECK(out[j] == (j % 97 + 1) * n * (n + 1) / 2, "%s: merged allreduce element %d is %d, expected %d", what, j,
              out[j], (j % 97 + 1) * n * (n + 1) / 2);
    free(in);
    free(out);

    enum { BC = 65536 };
    unsigned char *b = malloc(BC);
    CHECK(b, "malloc");
    uint32_t seed = empi_seed(n - 1, 777, 1);
    if (r == n - 1)
        empi_fill(b, BC, seed);
    else
        memset(b, 0, BC);
    CHECK_MPI(MPI_Bcast(b, BC, MPI_BYTE, n - 1, merged));
    size_t bad = empi_find_mismatch(b, BC, seed);
    CHECK(bad == (size_t)-1, "%s: merged bcast from rank %d: byte %zu is 0x%02x, expected 0x%02x", what, n - 1, bad,
          b[bad], empi_pattern_byte(seed, bad));
    free(b);
    CHECK_MPI(MPI_Comm_free(&merged));
}

/*
 * Collectives on the intercommunicator itself. MPI_Bcast from each group in turn (side 0 from its
 * rank 0, side 1 from its last rank): the root passes MPI_ROOT and its buffer must be left alone,
 * the root's group-mates pass MPI_PROC_NULL and their buffers must stay untouched, the other group
 * receives. MPI_Allreduce: each group gets the sum over the other group. Then an MPI_Barrier.
 */
static inline void dyn_check_inter_coll(MPI_Comm inter, int side, const char *what)
{
    int lsize, lrank, rsize;
    dyn_inter_shape(inter, &lsize, &lrank, &rsize);
    enum { LEN = 100000 };
    unsigned char *buf = malloc(LEN);
    CHECK(buf, "malloc");
    for (int from = 0; from < 2; from++) {
        uint32_t seed = empi_seed(from, 888, 2);
        size_t bad;
        if (side == from) {
            int root = from == 0 ? 0 : lsize - 1;
            if (lrank == root) {
                empi_fill(buf, LEN, seed);
                CHECK_MPI(MPI_Bcast(buf, LEN, MPI_BYTE, MPI_ROOT, inter));
                bad = empi_find_mismatch(buf, LEN, seed);
                CHECK(bad == (size_t)-1, "%s: intercomm bcast root's buffer changed at byte %zu", what, bad);
            } else {
                memset(buf, 0x5A, LEN);
                CHECK_MPI(MPI_Bcast(buf, LEN, MPI_BYTE, MPI_PROC_NULL, inter));
                for (size_t i = 0; i < LEN; i++)
                    CHECK(buf[i] == 0x5A, "%s: intercomm bcast wrote byte %zu of an MPI_PROC_NULL member", what, i);
            }
        } else {
            int root = from == 0 ? 0 : rsize - 1;
            memset(buf, 0, LEN);
            CHECK_MPI(MPI_Bcast(buf, LEN, MPI_BYTE, root, inter));
            bad = empi_find_mismatch(buf, LEN, seed);
            CHECK(bad == (size_t)-1, "%s: intercomm bcast from remote rank %d: byte %zu is 0x%02x, expected 0x%02x",
                  what, root, bad, buf[bad], empi_pattern_byte(seed, bad));
        }
    }
    free(buf);

    /* Side 0 contributes {1, rank + 1}, side 1 {1, 1000 * (rank + 1)}. */
    int in[2] = {1, side == 0 ? lrank + 1 : 1000 * (lrank + 1)}, out[2] = {-1, -1};
    CHECK_MPI(MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, inter));
    int want1 = (side == 0 ? 1000 : 1) * rsize * (rsize + 1) / 2;
    CHECK(out[0] == rsize && out[1] == want1, "%s: intercomm allreduce gave {%d, %d}, expected {%d, %d}", what, out[0],
          out[1], rsize, want1);
    CHECK_MPI(MPI_Barrier(inter));
}

/* MPI_Comm_disconnect, which must set the handle to MPI_COMM_NULL. */
static inline void dyn_disconnect(MPI_Comm *inter, const char *what)
{
    CHECK_MPI(MPI_Comm_disconnect(inter));
    CHECK(*inter == MPI_COMM_NULL, "%s: MPI_Comm_disconnect left the handle non-null", what);
}

#endif
