/*
 * Bcast, Reduce and Allreduce of messages larger than a shared-memory data slot, which the
 * shared-memory algorithms move and reduce in slot-sized pieces (CMakeLists runs this with the
 * shm algorithms forced, once with the default slots and once with the smallest, 64 KiB, so that
 * both one-piece and many-piece paths run): odd counts, every root, MPI_IN_PLACE, blocking,
 * nonblocking and persistent forms, and a non-commutative user operation whose result depends on
 * the order of the ranks. Every element is checked against a serial reference.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static void bcast(void *buf, int count, MPI_Datatype dt, int root, int form)
{
    MPI_Request rq;
    if (form == EMPI_FORM_BLOCKING)
        CHECK_MPI(MPI_Bcast(buf, count, dt, root, MPI_COMM_WORLD));
    else if (form == EMPI_FORM_NONBLOCKING)
        CHECK_MPI(MPI_Ibcast(buf, count, dt, root, MPI_COMM_WORLD, &rq));
    else
        CHECK_MPI(MPI_Bcast_init(buf, count, dt, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    empi_form_finish(&rq, form);
}

/* root < 0: allreduce */
static void reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root, int form)
{
    MPI_Request rq;
    if (root < 0) {
        if (form == EMPI_FORM_BLOCKING)
            CHECK_MPI(MPI_Allreduce(sbuf, rbuf, count, dt, op, MPI_COMM_WORLD));
        else if (form == EMPI_FORM_NONBLOCKING)
            CHECK_MPI(MPI_Iallreduce(sbuf, rbuf, count, dt, op, MPI_COMM_WORLD, &rq));
        else
            CHECK_MPI(MPI_Allreduce_init(sbuf, rbuf, count, dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    } else {
        if (form == EMPI_FORM_BLOCKING)
            CHECK_MPI(MPI_Reduce(sbuf, rbuf, count, dt, op, root, MPI_COMM_WORLD));
        else if (form == EMPI_FORM_NONBLOCKING)
            CHECK_MPI(MPI_Ireduce(sbuf, rbuf, count, dt, op, root, MPI_COMM_WORLD, &rq));
        else
            CHECK_MPI(MPI_Reduce_init(sbuf, rbuf, count, dt, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    }
    empi_form_finish(&rq, form);
}

/* Input element i of rank r. */
static int32_t input(int r, long i)
{
    return (int32_t)((i * 2654435761u + (unsigned)r * 40503u) % 1000003u) - 500000;
}

/*
 * A non-commutative, associative operation on int pairs (a, b) standing for the affine map
 * x -> a*x + b (mod 2^31 - 1 kept small by masking): in op out means apply out, then in, so the
 * result of rank order 0..p-1 differs from any other order.
 */
typedef struct {
    int32_t a, b;
} affine_t;

static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    affine_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        /* (x o y)(v) = x.a * (y.a * v + y.b) + x.b, every product reduced mod 65521 */
        int32_t a = (int32_t)(((int64_t)x[i].a * y[i].a) % 65521);
        int32_t b = (int32_t)(((int64_t)x[i].a * y[i].b + x[i].b) % 65521);
        y[i].a = a;
        y[i].b = b;
    }
}

static affine_t affine_input(int r, long i)
{
    affine_t v = {(int32_t)(1 + (i + 3 * r) % 97), (int32_t)((i * 7 + r * 13) % 101)};
    return v;
}

/* in op inout with inout the later rank: the reference folds rank p-1 down to 0 the same way */
static affine_t affine_reference(int p, long i)
{
    affine_t acc = affine_input(p - 1, i);
    for (int r = p - 2; r >= 0; r--) {
        affine_t in = affine_input(r, i);
        int one = 1;
        compose(&in, &acc, &one, NULL);
    }
    return acc;
}

static void check_sum(const int32_t *got, long count, int p, const char *what, int form, int root)
{
    for (long i = 0; i < count; i++) {
        int64_t want = 0;
        for (int r = 0; r < p; r++)
            want += input(r, i);
        CHECK(got[i] == (int32_t)want, "%s form %d root %d: element %ld is %d, expected %lld", what, form, root, i,
              got[i], (long long)want);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = empi_rank(), p = empi_size();
    /* Bytes per message: just under 64 KiB (the largest piece a reduce's root folds alone), just
       over, several 64 KiB slots with an odd tail, and more than the largest slot (1 MiB) so every
       slot size cuts it into pieces. */
    static const long sizes[] = {65536 - 16, 65536 + 12, 5 * 65536 + 20, 1048576 + 4 * 65536 + 36};
    MPI_Datatype pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT32_T, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    MPI_Op affine;
    CHECK_MPI(MPI_Op_create(compose, 0, &affine));
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        long n = sizes[k] / 4; /* int32 elements */
        int32_t *sbuf = malloc((size_t)sizes[k]), *rbuf = malloc((size_t)sizes[k]);
        CHECK(sbuf && rbuf, "out of memory");
        for (int form = 0; form < EMPI_NFORMS; form++) {
            for (int root = 0; root < p; root += (p > 2 ? p - 1 : 1)) {
                /* bcast: bytes of the root's pattern */
                if (rank == root)
                    empi_fill(rbuf, (size_t)sizes[k] - 3, empi_seed(root, (int)k, form));
                else
                    memset(rbuf, 0x5a, (size_t)sizes[k]);
                bcast(rbuf, (int)sizes[k] - 3, MPI_BYTE, root, form);
                CHECK_PATTERN(rbuf, (size_t)sizes[k] - 3, empi_seed(root, (int)k, form));

                /* reduce: sum of int32, to the root; in place at the root every other time */
                int in_place = (form + root) % 2 && rank == root;
                for (long i = 0; i < n; i++)
                    (in_place ? rbuf : sbuf)[i] = input(rank, i);
                if (!in_place)
                    memset(rbuf, 0x5a, (size_t)sizes[k]);
                reduce(in_place ? MPI_IN_PLACE : sbuf, rbuf, (int)n, MPI_INT32_T, MPI_SUM, root, form);
                if (rank == root)
                    check_sum(rbuf, n, p, "reduce", form, root);
            }

            /* allreduce: sum, in place in the persistent form */
            int in_place = form == EMPI_FORM_PERSISTENT;
            for (long i = 0; i < n; i++)
                (in_place ? rbuf : sbuf)[i] = input(rank, i);
            reduce(in_place ? MPI_IN_PLACE : sbuf, rbuf, (int)n, MPI_INT32_T, MPI_SUM, -1, form);
            check_sum(rbuf, n, p, "allreduce", form, -1);

            /* allreduce with the non-commutative operation: rank order must be kept */
            long npairs = n / 2;
            affine_t *s2 = (affine_t *)sbuf, *r2 = (affine_t *)rbuf;
            for (long i = 0; i < npairs; i++)
                s2[i] = affine_input(rank, i);
            reduce(s2, r2, (int)npairs, pair, affine, -1, form);
            for (long i = 0; i < npairs; i++) {
                affine_t want = affine_reference(p, i);
                CHECK(r2[i].a == want.a && r2[i].b == want.b,
                      "allreduce (non-commutative) form %d: pair %ld is (%d,%d), expected (%d,%d)", form, i, r2[i].a,
                      r2[i].b, want.a, want.b);
            }
        }
        free(sbuf);
        free(rbuf);
    }
    CHECK_MPI(MPI_Op_free(&affine));
    CHECK_MPI(MPI_Type_free(&pair));
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
