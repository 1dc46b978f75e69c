/*
 * Datatypes and reductions through the public interface only (so the test also runs on a peer
 * MPI): MPI_Reduce_local over a derived type, MINLOC with ties, MPI_ERR_OP for an undefined
 * combination, decoding round trips and external32.
 */
#include <string.h>

#include "empi_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    /* sum over a vector of ints: gaps untouched */
    int a[10], b[10];
    for (int i = 0; i < 10; i++)
        a[i] = i, b[i] = 10 * i;
    MPI_Datatype v;
    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    CHECK_MPI(MPI_Reduce_local(a, b, 1, v, MPI_SUM));
    for (int i = 0; i < 10; i++)
        CHECK(b[i] == (i % 4 < 2 ? 11 * i : 10 * i), "vector sum [%d] = %d", i, b[i]);
    CHECK_MPI(MPI_Type_free(&v));
    /* MINLOC: equal values keep the lower index */
    struct { float v; int i; } x[3] = {{1, 4}, {2, 0}, {3, 7}}, y[3] = {{1, 2}, {1, 9}, {3, 1}};
    CHECK_MPI(MPI_Reduce_local(x, y, 3, MPI_FLOAT_INT, MPI_MINLOC));
    CHECK(y[0].i == 2 && y[1].v == 1 && y[1].i == 9 && y[2].i == 1, "minloc ties");
    /* undefined combination */
    double d1 = 1, d2 = 2;
    int rc = MPI_Reduce_local(&d1, &d2, 1, MPI_DOUBLE, MPI_BAND), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "BAND on double gives class %d", cls);
    /* decode a subarray */
    int sizes[] = {6, 8}, subs[] = {2, 3}, starts[] = {1, 4}, ni, na, nd, comb, ints[8];
    MPI_Aint addrs[1];
    MPI_Datatype s, types[1];
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &s));
    CHECK_MPI(MPI_Type_get_envelope(s, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && na == 0 && nd == 1, "subarray envelope");
    CHECK_MPI(MPI_Type_get_contents(s, ni, na, nd, ints, addrs, types));
    CHECK(ints[0] == 2 && ints[2] == 8 && ints[4] == 3 && ints[6] == 4 && ints[7] == MPI_ORDER_C &&
          types[0] == MPI_DOUBLE, "subarray contents");
    MPI_Aint lb, ext;
    CHECK_MPI(MPI_Type_get_extent(s, &lb, &ext));
    CHECK(lb == 0 && ext == 6 * 8 * 8, "subarray extent %ld", (long)ext);
    CHECK_MPI(MPI_Type_free(&s));
    /* external32 of an int is big-endian */
    int val = 0x11223344;
    unsigned char buf[4];
    MPI_Aint pos = 0;
    CHECK_MPI(MPI_Pack_external("external32", &val, 1, MPI_INT, buf, 4, &pos));
    CHECK(pos == 4 && buf[0] == 0x11 && buf[3] == 0x44, "external32 int");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_MPI(MPI_Type_get_name(MPI_DOUBLE_INT, name, &len));
    CHECK(strcmp(name, "MPI_DOUBLE_INT") == 0, "name %s", name);
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
