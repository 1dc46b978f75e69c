/*
 * Gather and scatter with blocks larger than what the shared-memory algorithms move at once (a
 * slot for gather, a slot / p for scatter): odd byte counts, a strided datatype (packed), every
 * root, MPI_IN_PLACE at the root, blocking, nonblocking and persistent forms. Run with the shm
 * algorithms forced (CMakeLists) so the pieces are what is tested; every byte is checked against
 * the pattern of the rank and block it came from, and gaps of the strided type stay untouched.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

typedef struct {
    int count;
    MPI_Datatype dt;
    size_t extent, data;   /* bytes one element spans, and how many of them it carries */
} shape_t;

static void gather(const char *sbuf, char *rbuf, const shape_t *sh, int root, int form)
{
    MPI_Request rq;
    const void *s = sbuf ? (const void *)sbuf : MPI_IN_PLACE;
    if (form == EMPI_FORM_BLOCKING)
        CHECK_MPI(MPI_Gather(s, sh->count, sh->dt, rbuf, sh->count, sh->dt, root, MPI_COMM_WORLD));
    else if (form == EMPI_FORM_NONBLOCKING)
        CHECK_MPI(MPI_Igather(s, sh->count, sh->dt, rbuf, sh->count, sh->dt, root, MPI_COMM_WORLD, &rq));
    else
        CHECK_MPI(MPI_Gather_init(s, sh->count, sh->dt, rbuf, sh->count, sh->dt, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                                  &rq));
    empi_form_finish(&rq, form);
}

static void scatter(const char *sbuf, char *rbuf, const shape_t *sh, int root, int form)
{
    MPI_Request rq;
    void *r = rbuf ? (void *)rbuf : MPI_IN_PLACE;
    if (form == EMPI_FORM_BLOCKING)
        CHECK_MPI(MPI_Scatter(sbuf, sh->count, sh->dt, r, sh->count, sh->dt, root, MPI_COMM_WORLD));
    else if (form == EMPI_FORM_NONBLOCKING)
        CHECK_MPI(MPI_Iscatter(sbuf, sh->count, sh->dt, r, sh->count, sh->dt, root, MPI_COMM_WORLD, &rq));
    else
        CHECK_MPI(MPI_Scatter_init(sbuf, sh->count, sh->dt, r, sh->count, sh->dt, root, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &rq));
    empi_form_finish(&rq, form);
}

/* Byte b of a block that was sent with pattern `seed`: the pattern where the type has data, else
   what the buffer held before (`old`). */
static uint8_t want_byte(const shape_t *sh, uint32_t seed, size_t b, uint8_t old)
{
    return sh->data == sh->extent || b % sh->extent < sh->data ? empi_pattern_byte(seed, b) : old;
}

static void check_gather(const shape_t *sh, int k, int root, int form, int in_place)
{
    int rank = empi_rank(), p = empi_size();
    size_t span = (size_t)sh->count * sh->extent;
    char *sbuf = malloc(span), *rbuf = malloc(span * (size_t)p);
    CHECK(sbuf && rbuf, "out of memory");
    empi_fill(sbuf, span, empi_seed(rank, root, k));
    memset(rbuf, 0x5a, span * (size_t)p);
    int own_in_place = in_place && rank == root;
    if (own_in_place)
        memcpy(rbuf + span * (size_t)rank, sbuf, span);
    gather(own_in_place ? NULL : sbuf, rbuf, sh, root, form);
    for (int r = 0; rank == root && r < p; r++) {
        const char *got = rbuf + span * (size_t)r;
        uint32_t seed = empi_seed(r, root, k);
        for (size_t b = 0; b < span; b++) {
            uint8_t old = r == rank && own_in_place ? empi_pattern_byte(seed, b) : 0x5a;
            CHECK((uint8_t)got[b] == want_byte(sh, seed, b, old),
                  "gather shape %d root %d form %d in_place %d: block %d byte %zu", k, root, form, in_place, r, b);
        }
    }
    free(sbuf);
    free(rbuf);
}

static void check_scatter(const shape_t *sh, int k, int root, int form, int in_place)
{
    int rank = empi_rank(), p = empi_size();
    size_t span = (size_t)sh->count * sh->extent;
    char *sbuf = malloc(span * (size_t)p), *rbuf = malloc(span);
    CHECK(sbuf && rbuf, "out of memory");
    for (int d = 0; d < p; d++)
        empi_fill(sbuf + span * (size_t)d, span, empi_seed(root, d, k));
    memset(rbuf, 0x5a, span);
    int own_in_place = in_place && rank == root;
    scatter(rank == root ? sbuf : NULL, own_in_place ? NULL : rbuf, sh, root, form);
    /* in place, the root's block stays where it is in the send buffer, untouched */
    const char *got = own_in_place ? sbuf + span * (size_t)rank : rbuf;
    uint32_t seed = empi_seed(root, rank, k);
    for (size_t b = 0; b < span; b++) {
        uint8_t old = own_in_place ? empi_pattern_byte(seed, b) : 0x5a;
        CHECK((uint8_t)got[b] == want_byte(sh, seed, b, old),
              "scatter shape %d root %d form %d in_place %d: byte %zu", k, root, form, in_place, b);
    }
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p = empi_size();
    /* Blocks of bytes: just over one 64 KiB slot, several slots plus an odd tail. A strided type:
       3 doubles in every 32 bytes (resized), 3001 of them = 72,024 data bytes per block. */
    MPI_Datatype three, strided;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &three));
    CHECK_MPI(MPI_Type_create_resized(three, 0, 32, &strided));
    CHECK_MPI(MPI_Type_free(&three));
    CHECK_MPI(MPI_Type_commit(&strided));
    const shape_t shapes[] = {{65536 + 13, MPI_BYTE, 1, 1}, {3 * 65536 + 7, MPI_BYTE, 1, 1}, {3001, strided, 32, 24}};
    for (int k = 0; k < (int)(sizeof shapes / sizeof shapes[0]); k++)
        for (int root = 0; root < p; root += p > 2 ? p - 1 : 1)
            for (int form = 0; form < EMPI_NFORMS; form++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    check_gather(&shapes[k], k, root, form, in_place);
                    check_scatter(&shapes[k], k, root, form, in_place);
                }
    CHECK_MPI(MPI_Type_free(&strided));
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
