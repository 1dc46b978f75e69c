/* Unit test of the collective tuning-table parser and lookup (src/coll/coll_table.c). */
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"

static int failures;
#define EXPECT(c)                                                        \
    do {                                                                 \
        if (!(c)) {                                                      \
            fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #c); \
            failures++;                                                  \
        }                                                                \
    } while (0)

static const char *lookup_cma(const empi_tune_table_t *t, int coll, long np, long ppn, long long bytes, long rpc,
                              int cma)
{
    empi_tune_key_t key = {coll, np, ppn, rpc, bytes, cma};
    return empi_tune_lookup(t, &key);
}

static const char *lookup(const empi_tune_table_t *t, int coll, long np, long ppn, long long bytes, long rpc)
{
    return lookup_cma(t, coll, np, ppn, bytes, rpc, 0);
}

static int bad_line(const char *text)
{
    empi_tune_table_t t;
    char err[200];
    int line = empi_tune_parse(text, &t, err, sizeof err);
    empi_tune_free(&t);
    return line;
}

int main(void)
{
    empi_tune_table_t t;
    char err[200];
    /* the built-in table parses and answers for every collective */
    EXPECT(empi_tune_parse(empi_tune_default_text, &t, err, sizeof err) == 0);
    for (int c = 0; c < EMPI_COLL_COUNT; c++)
        EXPECT(lookup(&t, c, 4, 4, 8, 1) != NULL);
    empi_tune_free(&t);

    const char *text =
        "# comment line\n"
        "\n"
        "allreduce 2-4   1-    0-1k    first   # trailing comment\n"
        "allreduce *     *     1k-     second\n"
        "allreduce 8     *     *       third\n"
        "bcast     5-    2-8   64k-1m  fourth\n";
    EXPECT(empi_tune_parse(text, &t, err, sizeof err) == 0);
    EXPECT(t.n == 4);
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_ALLREDUCE, 2, 1, 0, 1), "first"));
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_ALLREDUCE, 4, 64, 1024, 1), "first"));   /* inclusive */
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_ALLREDUCE, 4, 64, 1025, 1), "second"));
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_ALLREDUCE, 8, 1, 5, 1), "third"));
    EXPECT(lookup(&t, EMPI_COLL_ALLREDUCE, 9, 1, 5, 1) == NULL);
    EXPECT(lookup(&t, EMPI_COLL_ALLREDUCE, 2, 0, 5, 1) == NULL);               /* ppn 0 < 1 */
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_BCAST, 5, 8, 1 << 20, 1), "fourth"));
    EXPECT(lookup(&t, EMPI_COLL_BCAST, 5, 9, 1 << 20, 1) == NULL);
    EXPECT(lookup(&t, EMPI_COLL_BCAST, 5, 8, (1 << 20) + 1, 1) == NULL);
    EXPECT(lookup(&t, EMPI_COLL_SCAN, 5, 8, 1, 1) == NULL);
    empi_tune_free(&t);

    /* the optional ranks_per_cpu column: absent means any */
    const char *crowded =
        "scan 3- * * 2-  chain\n"
        "scan *  * * 1   tree_alone\n"
        "scan *  * *     tree\n";
    EXPECT(empi_tune_parse(crowded, &t, err, sizeof err) == 0);
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_SCAN, 16, 16, 8, 2), "chain"));
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_SCAN, 16, 16, 8, 8), "chain"));
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_SCAN, 16, 16, 8, 1), "tree_alone"));
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_SCAN, 2, 2, 8, 2), "tree"));
    empi_tune_free(&t);
    /* the built-in table: no chain of wake-ups for a few ranks taking turns on cores, up to 512
       KiB; the chain for many (every rank folding all those below it costs p^2/2 folds) */
    EXPECT(empi_tune_parse(empi_tune_default_text, &t, err, sizeof err) == 0);
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_SCAN, 4, 4, 8, 2), "shm"));
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_EXSCAN, 4, 4, 8, 2), "shm"));
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_SCAN, 4, 4, 1 << 20, 2), "linear"));
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_SCAN, 32, 32, 8, 16), "linear"));
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_EXSCAN, 32, 32, 8, 16), "linear"));
    EXPECT(!strcmp(lookup(&t, EMPI_COLL_SCAN, 32, 32, 8, 1), "recursive_doubling"));
    empi_tune_free(&t);

    /* @cma and @nocma: a rule for hosts whose processes copy each other's memory, or not */
    const char *copying =
        "alltoall 2 2 4k- 1 linear@nocma\n"
        "alltoall 2 2 8k- shm_cma@cma\n"
        "alltoall * * * pairwise\n";
    EXPECT(empi_tune_parse(copying, &t, err, sizeof err) == 0);
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_ALLTOALL, 2, 2, 8192, 1, 0), "linear"));
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_ALLTOALL, 2, 2, 8192, 1, 1), "shm_cma"));
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_ALLTOALL, 2, 2, 4096, 1, 1), "pairwise"));
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_ALLTOALL, 2, 2, 8192, 2, 0), "pairwise"));
    empi_tune_free(&t);
    /* the built-in table: 2 ranks without CMA take point to point for large messages, with CMA
       the single-copy algorithms as before */
    EXPECT(empi_tune_parse(empi_tune_default_text, &t, err, sizeof err) == 0);
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_ALLREDUCE, 2, 2, 1 << 20, 1, 0), "ring"));
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_ALLREDUCE, 2, 2, 1 << 20, 1, 1), "shm_cma"));
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_BCAST, 2, 2, 1 << 20, 1, 0), "binomial"));
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_BCAST, 2, 2, 1 << 20, 1, 1), "shm_cma"));
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_ALLTOALL, 2, 2, 8, 1, 0), "shm"));
    /* 3-4 ranks taking turns on the cores without CMA: linear alltoall for 4-32 KiB blocks */
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_ALLTOALL, 4, 4, 16384, 2, 0), "linear"));
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_ALLTOALL, 4, 4, 16384, 2, 1), "shm"));
    EXPECT(!strcmp(lookup_cma(&t, EMPI_COLL_ALLTOALL, 8, 8, 16384, 4, 0), "shm"));
    empi_tune_free(&t);

    /* errors name the line */
    EXPECT(bad_line("allreduce * * * ring\nfrobnicate * * * x\n") == 2);
    EXPECT(bad_line("allreduce * * *\n") == 1);
    EXPECT(bad_line("allreduce * * * ring extra\n") == 1);      /* 'ring' is no ranks_per_cpu range */
    EXPECT(bad_line("allreduce * * * 2- ring extra\n") == 1);
    EXPECT(bad_line("allreduce 4-2 * * ring\n") == 1);
    EXPECT(bad_line("allreduce x * * ring\n") == 1);
    EXPECT(bad_line("allreduce * * 1q ring\n") == 1);
    EXPECT(bad_line("allreduce * * * ring@fast\n") == 1);
    EXPECT(bad_line("allreduce * * * ring@\n") == 1);
    EXPECT(bad_line("# only comments\n\n   \n") == 0);

    EXPECT(empi_coll_kind_of("reduce_scatter_block") == EMPI_COLL_REDUCE_SCATTER_BLOCK);
    EXPECT(empi_coll_kind_of("nope") == -1);
    EXPECT(!strcmp(empi_coll_name(EMPI_COLL_EXSCAN), "exscan"));
    if (failures)
        return 1;
    printf("tune_test: OK\n");
    return 0;
}
