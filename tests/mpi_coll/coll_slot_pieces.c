/*
 * Allgather, allgatherv and alltoall with blocks larger than a shared-memory slot, which the
 * shared-memory algorithms move in slot-sized pieces (the small_slots runs make them 64 KiB; the
 * default slots, 512 KiB-1 MiB here, take these blocks whole): odd byte counts, a strided datatype
 * (packed), MPI_IN_PLACE for allgather(v), blocking, nonblocking and persistent forms; allgatherv's
 * blocks differ in size from rank to rank (so some run out pieces before others) and lie in
 * reverse rank order with gaps. Run with the shm algorithms forced (CMakeLists) so the pieces are
 * what is tested; every byte is checked against the pattern of the rank and block it came from.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static void allgather(const char *sbuf, char *rbuf, int count, MPI_Datatype dt, int form)
{
    MPI_Request rq;
    const void *s = sbuf ? (const void *)sbuf : MPI_IN_PLACE;
    int scount = sbuf ? count : 0;
    MPI_Datatype sdt = sbuf ? dt : MPI_DATATYPE_NULL;
    if (form == EMPI_FORM_BLOCKING)
        CHECK_MPI(MPI_Allgather(s, scount, sdt, rbuf, count, dt, MPI_COMM_WORLD));
    else if (form == EMPI_FORM_NONBLOCKING)
        CHECK_MPI(MPI_Iallgather(s, scount, sdt, rbuf, count, dt, MPI_COMM_WORLD, &rq));
    else
        CHECK_MPI(MPI_Allgather_init(s, scount, sdt, rbuf, count, dt, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    empi_form_finish(&rq, form);
}

static void allgatherv(const char *sbuf, char *rbuf, const int *counts, const int *displs, MPI_Datatype dt, int form)
{
    MPI_Request rq;
    int me = empi_rank();
    const void *s = sbuf ? (const void *)sbuf : MPI_IN_PLACE;
    if (form == EMPI_FORM_BLOCKING)
        CHECK_MPI(MPI_Allgatherv(s, counts[me], dt, rbuf, counts, displs, dt, MPI_COMM_WORLD));
    else if (form == EMPI_FORM_NONBLOCKING)
        CHECK_MPI(MPI_Iallgatherv(s, counts[me], dt, rbuf, counts, displs, dt, MPI_COMM_WORLD, &rq));
    else
        CHECK_MPI(MPI_Allgatherv_init(s, counts[me], dt, rbuf, counts, displs, dt, MPI_COMM_WORLD, MPI_INFO_NULL,
                                      &rq));
    empi_form_finish(&rq, form);
}

/* Allgatherv: rank r gives count * (r + 1) / p + r elements (rank 0 the fewest), placed in reverse
   rank order with one element's gap after each block; gaps must stay untouched. */
static void check_allgatherv(int count, MPI_Datatype dt, size_t extent, size_t data, int k)
{
    int rank = empi_rank(), p = empi_size();
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    CHECK(counts && displs, "out of memory");
    int total = 0;
    for (int r = p - 1; r >= 0; r--) {
        counts[r] = (int)((long)count * (r + 1) / p) + r;
        displs[r] = total;
        total += counts[r] + 1;
    }
    size_t mine = (size_t)counts[rank] * extent;
    char *sbuf = malloc(mine + 1), *rbuf = malloc((size_t)total * extent);
    CHECK(sbuf && rbuf, "out of memory");
    for (int form = 0; form < EMPI_NFORMS; form++) {
        for (int in_place = 0; in_place < 2; in_place++) {
            memset(rbuf, 0x5a, (size_t)total * extent);
            empi_fill(sbuf, mine, empi_seed(rank, 1, k));
            if (in_place)
                memcpy(rbuf + (size_t)displs[rank] * extent, sbuf, mine);
            allgatherv(in_place ? NULL : sbuf, rbuf, counts, displs, dt, form);
            for (int r = 0; r < p; r++) {
                const char *got = rbuf + (size_t)displs[r] * extent;
                for (size_t b = 0; b < (size_t)(counts[r] + 1) * extent; b++) {
                    int in_block = b < (size_t)counts[r] * extent;
                    int written = in_block && (data == extent || b % extent < data);
                    int own = in_block && r == rank && in_place;
                    uint8_t want = written || own ? empi_pattern_byte(empi_seed(r, 1, k), b) : 0x5a;
                    CHECK((uint8_t)got[b] == want, "allgatherv shape %d form %d in_place %d: block %d byte %zu", k,
                          form, in_place, r, b);
                }
            }
        }
    }
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
}

static void alltoall(const char *sbuf, char *rbuf, int count, MPI_Datatype dt, int form)
{
    MPI_Request rq;
    if (form == EMPI_FORM_BLOCKING)
        CHECK_MPI(MPI_Alltoall(sbuf, count, dt, rbuf, count, dt, MPI_COMM_WORLD));
    else if (form == EMPI_FORM_NONBLOCKING)
        CHECK_MPI(MPI_Ialltoall(sbuf, count, dt, rbuf, count, dt, MPI_COMM_WORLD, &rq));
    else
        CHECK_MPI(MPI_Alltoall_init(sbuf, count, dt, rbuf, count, dt, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    empi_form_finish(&rq, form);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = empi_rank(), p = empi_size();
    /* Blocks of bytes: just over one slot, several slots plus an odd tail. A strided type: 3
       doubles in every 32 bytes (resized), 3001 of them = 72,024 data bytes per block. */
    MPI_Datatype three, strided;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &three));
    CHECK_MPI(MPI_Type_create_resized(three, 0, 32, &strided));
    CHECK_MPI(MPI_Type_free(&three));
    CHECK_MPI(MPI_Type_commit(&strided));
    struct { int count; MPI_Datatype dt; size_t extent, data; } shapes[] = {
        {65536 + 13, MPI_BYTE, 1, 1}, {3 * 65536 + 7, MPI_BYTE, 1, 1}, {3001, strided, 32, 24}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        size_t span = (size_t)shapes[k].count * shapes[k].extent;   /* bytes one block spans */
        char *sbuf = malloc(span * (size_t)p), *rbuf = malloc(span * (size_t)p);
        CHECK(sbuf && rbuf, "out of memory");
        for (int form = 0; form < EMPI_NFORMS; form++) {
            for (int in_place = 0; in_place < 2; in_place++) {
                /* allgather: block r of the result is rank r's pattern */
                memset(rbuf, 0x5a, span * (size_t)p);
                empi_fill(sbuf, span, empi_seed(rank, 0, (int)k));
                if (in_place)
                    memcpy(rbuf + span * (size_t)rank, sbuf, span);
                allgather(in_place ? NULL : sbuf, rbuf, shapes[k].count, shapes[k].dt, form);
                for (int r = 0; r < p; r++) {
                    const char *got = rbuf + span * (size_t)r;
                    for (size_t b = 0; b < span; b++) {
                        int data = shapes[k].data == 1 || b % shapes[k].extent < shapes[k].data;
                        uint8_t want = data ? empi_pattern_byte(empi_seed(r, 0, (int)k), b)
                                            : (r == rank && in_place ? empi_pattern_byte(empi_seed(r, 0, (int)k), b)
                                                                      : 0x5a);
                        CHECK((uint8_t)got[b] == want, "allgather shape %zu form %d in_place %d: block %d byte %zu",
                              k, form, in_place, r, b);
                    }
                }
            }
            /* alltoall: block d of rank s's send buffer lands in block s of rank d's result */
            for (int d = 0; d < p; d++)
                empi_fill(sbuf + span * (size_t)d, span, empi_seed(rank, d, (int)k));
            memset(rbuf, 0x5a, span * (size_t)p);
            alltoall(sbuf, rbuf, shapes[k].count, shapes[k].dt, form);
            for (int s = 0; s < p; s++) {
                const char *got = rbuf + span * (size_t)s;
                for (size_t b = 0; b < span; b++) {
                    int data = shapes[k].data == 1 || b % shapes[k].extent < shapes[k].data;
                    uint8_t want = data ? empi_pattern_byte(empi_seed(s, rank, (int)k), b) : 0x5a;
                    CHECK((uint8_t)got[b] == want, "alltoall shape %zu form %d: block from %d byte %zu", k, form, s,
                          b);
                }
            }
        }
        free(sbuf);
        free(rbuf);
        check_allgatherv(shapes[k].count, shapes[k].dt, shapes[k].extent, shapes[k].data, (int)k);
    }
    CHECK_MPI(MPI_Type_free(&strided));
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
