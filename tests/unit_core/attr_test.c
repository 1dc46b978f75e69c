/* Generic keyval/attribute code: copy on dup, delete order, replacement, failures, freed keyvals. */
#include <string.h>

#include "core/attr.h"
#include "unit_core.h"

static char log_buf[256];
static void note(const char *what, int keyval, void *v)
{
    char item[32];
    snprintf(item, sizeof item, "%s%d:%ld ", what, keyval % 100, (long)v);
    strcat(log_buf, item);
}

static int copy_plus_one(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)extra;
    note("c", k, in);
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_fails(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

static int delete_note(MPI_Comm c, int k, void *v, void *extra)
{
    (void)c;
    note("d", k, v);
    return extra ? MPI_ERR_OTHER : MPI_SUCCESS;
}

#define FN(f) ((void (*)(void))(f))

int main(void)
{
    const char *why;
    int k1, k2, k3, flag;
    void *v;
    MPI_Comm old = (MPI_Comm)0x5000, new = (MPI_Comm)0x6000;
    empi_attr_t *a = NULL, *b = NULL;

    EXPECT_OK(empi_keyval_create(EMPI_ATTR_COMM, FN(copy_plus_one), FN(delete_note), NULL, &k1, &why));
    EXPECT_OK(empi_keyval_create(EMPI_ATTR_COMM, FN(1) /* MPI_COMM_DUP_FN */, FN(delete_note), NULL, &k2, &why));
    EXPECT_OK(empi_keyval_create(EMPI_ATTR_COMM, FN(0) /* MPI_COMM_NULL_COPY_FN */, FN(0), NULL, &k3, &why));
    EXPECT(k1 != k2 && k1 != MPI_KEYVAL_INVALID && (k1 < MPI_TAG_UB || k1 > MPI_UNIVERSE_SIZE));

    EXPECT_OK(empi_attr_set(EMPI_ATTR_COMM, old, &a, k1, (void *)10, &why));
    EXPECT_OK(empi_attr_set(EMPI_ATTR_COMM, old, &a, k2, (void *)20, &why));
    EXPECT_OK(empi_attr_set(EMPI_ATTR_COMM, old, &a, k3, (void *)30, &why));

    /* dup: k1 through its callback, k2 verbatim, k3 not at all */
    EXPECT_OK(empi_attr_copy_all(EMPI_ATTR_COMM, old, a, new, &b));
    EXPECT_OK(empi_attr_get(EMPI_ATTR_COMM, b, k1, &v, &flag, &why));
    EXPECT(flag && v == (void *)11);
    EXPECT_OK(empi_attr_get(EMPI_ATTR_COMM, b, k2, &v, &flag, &why));
    EXPECT(flag && v == (void *)20);
    EXPECT_OK(empi_attr_get(EMPI_ATTR_COMM, b, k3, &v, &flag, &why));
    EXPECT(!flag);

    /* replacing runs the delete callback on the old value */
    log_buf[0] = '\0';
    EXPECT_OK(empi_attr_set(EMPI_ATTR_COMM, new, &b, k1, (void *)12, &why));
    EXPECT(strstr(log_buf, ":11 ") != NULL);

    /* freeing a keyval keeps its attributes (and their delete callback) alive */
    int k1_saved = k1;
    EXPECT_OK(empi_keyval_free(EMPI_ATTR_COMM, &k1, &why));
    EXPECT(k1 == MPI_KEYVAL_INVALID);
    EXPECT(empi_attr_set(EMPI_ATTR_COMM, old, &a, k1_saved, (void *)1, &why) == MPI_ERR_KEYVAL);
    EXPECT(empi_keyval_free(EMPI_ATTR_COMM, &k1_saved, &why) == MPI_ERR_KEYVAL && k1_saved != MPI_KEYVAL_INVALID);
    EXPECT_OK(empi_attr_get(EMPI_ATTR_COMM, a, k1_saved, &v, &flag, &why));   /* still readable */
    EXPECT(flag && v == (void *)10);

    /* delete_all: newest first (k3 was set last but has no callback) */
    log_buf[0] = '\0';
    EXPECT_OK(empi_attr_delete_all(EMPI_ATTR_COMM, old, &a));
    EXPECT(a == NULL);
    char expect[64];
    snprintf(expect, sizeof expect, "d%d:20 d%d:10 ", k2 % 100, k1_saved % 100);
    EXPECT(strcmp(log_buf, expect) == 0);
    EXPECT_OK(empi_attr_delete_all(EMPI_ATTR_COMM, new, &b));

    /* a failing copy callback fails the dup and leaves nothing behind */
    int kf;
    EXPECT_OK(empi_keyval_create(EMPI_ATTR_COMM, FN(copy_fails), FN(0), NULL, &kf, &why));
    EXPECT_OK(empi_attr_set(EMPI_ATTR_COMM, old, &a, k2, (void *)5, &why));
    EXPECT_OK(empi_attr_set(EMPI_ATTR_COMM, old, &a, kf, (void *)6, &why));
    EXPECT(empi_attr_copy_all(EMPI_ATTR_COMM, old, a, new, &b) == MPI_ERR_OTHER);
    EXPECT(b == NULL);

    /* a failing delete callback stops the deletion and keeps the attribute */
    int kd;
    EXPECT_OK(empi_keyval_create(EMPI_ATTR_COMM, FN(0), FN(delete_note), (void *)1, &kd, &why));
    EXPECT_OK(empi_attr_set(EMPI_ATTR_COMM, old, &a, kd, (void *)7, &why));
    EXPECT(empi_attr_delete(EMPI_ATTR_COMM, old, &a, kd, &why) == MPI_ERR_OTHER);
    EXPECT_OK(empi_attr_get(EMPI_ATTR_COMM, a, kd, &v, &flag, &why));
    EXPECT(flag && v == (void *)7);

    /* kinds do not mix; deleting an absent attribute is an error */
    int kt;
    EXPECT_OK(empi_keyval_create(EMPI_ATTR_TYPE, FN(0), FN(0), NULL, &kt, &why));
    EXPECT(empi_attr_set(EMPI_ATTR_COMM, old, &a, kt, NULL, &why) == MPI_ERR_KEYVAL);
    EXPECT(empi_attr_delete(EMPI_ATTR_COMM, old, &a, k3, &why) == MPI_ERR_KEYVAL);
    puts("attr_test OK");
    return 0;
}
