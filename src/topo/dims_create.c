/*
 * MPI_Dims_create: split nnodes over the dims the caller left 0, "as close to each other as
 * possible" and in non-increasing order, as the standard asks. Closeness is made exact: of all
 * factorizations into that many factors, the one with the smallest largest-minus-smallest factor,
 * then the smallest largest factor. An exhaustive search over the divisors of the free part is
 * cheap (an int has at most 1536 divisors) and, unlike greedy prime splitting, never misses.
 */
#include <stdlib.h>

#include "core/error.h"
#include "core/global.h"
#include "mpi.h"

typedef struct {
    const int *divs;   /* divisors of the free part, ascending */
    int ndivs;
    int k;             /* factors wanted */
    int *cur, *best;
    int best_spread, best_max;
} search_t;

/* Does f^k reach m? (f >= 2 or the answer is m <= 1) */
static int pow_reaches(int f, int k, int m)
{
    long long p = 1;
    for (int i = 0; i < k && p < m; i++)
        p *= f;
    return p >= m;
}

/* Choose cur[depth..k) as a non-increasing factorization of m with every factor <= cap. */
static void search(search_t *s, int depth, int m, int cap)
{
    int left = s->k - depth;
    if (left == 1) {
        if (m > cap)
            return;
        s->cur[depth] = m;
        int spread = s->cur[0] - m, max = s->cur[0];
        if (spread < s->best_spread || (spread == s->best_spread && max < s->best_max)) {
            s->best_spread = spread;
            s->best_max = max;
            for (int i = 0; i < s->k; i++)
                s->best[i] = s->cur[i];
        }
        return;
    }
    for (int i = s->ndivs - 1; i >= 0; i--) {
        int f = s->divs[i];
        if (f > cap || m % f)
            continue;
        /* the remaining factors are at most f: f^left must reach m */
        if (!pow_reaches(f, left, m))
            break;
        /* the spread can only grow from here */
        if (depth > 0 && s->cur[0] - f > s->best_spread)
            break;
        s->cur[depth] = f;
        search(s, depth + 1, m / f, f);
    }
}

/* best[0..k) := the closest non-increasing factorization of m (k >= 1). */
static int factorize(int m, int k, int *best)
{
    int ndivs = 0, cap = 64;
    int *divs = malloc((size_t)cap * sizeof *divs);
    int *cur = malloc((size_t)k * sizeof *cur);
    if (!divs || !cur) {
        free(divs);
        free(cur);
        return MPI_ERR_NO_MEM;
    }
    /* ascending: small divisors up to sqrt(m), then their cofactors in reverse */
    for (long long d = 1; d * d <= m; d++) {
        if (m % d)
            continue;
        if (ndivs + 2 > cap) {
            int *more = realloc(divs, (size_t)(cap *= 2) * sizeof *divs);
            if (!more) {
                free(divs);
                free(cur);
                return MPI_ERR_NO_MEM;
            }
            divs = more;
        }
        divs[ndivs++] = (int)d;
    }
    int nsmall = ndivs;
    for (int i = nsmall - 1; i >= 0; i--)
        if ((long long)divs[i] * divs[i] != m)
            divs[ndivs++] = m / divs[i];
    search_t s = {divs, ndivs, k, cur, best, m, m};
    search(&s, 0, m, m);
    free(divs);
    free(cur);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Dims_create)
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char fn[] = "MPI_Dims_create";
    if (nnodes <= 0)
        return empi_err_noobj(MPI_ERR_ARG, "%s: nnodes %d is not positive", fn, nnodes);
    if (ndims < 0)
        return empi_err_noobj(MPI_ERR_DIMS, "%s: ndims %d is negative", fn, ndims);
    if (ndims > 0 && !dims)
        return empi_err_noobj(MPI_ERR_ARG, "%s: dims is NULL", fn);
    long long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return empi_err_noobj(MPI_ERR_DIMS, "%s: dims[%d] is negative (%d)", fn, i, dims[i]);
        if (dims[i] == 0)
            nfree++;
        else if ((fixed *= dims[i]) > nnodes)
            break;
    }
    if (fixed > nnodes || nnodes % fixed != 0)
        return empi_err_noobj(MPI_ERR_DIMS, "%s: nnodes %d is not a multiple of the product of the nonzero dims (%lld%s)",
                              fn, nnodes, fixed, fixed > nnodes ? " or more" : "");
    if (nfree == 0 && fixed != nnodes)
        return empi_err_noobj(MPI_ERR_DIMS, "%s: no dim is 0 and the product of dims (%lld) is not nnodes %d", fn,
                              fixed, nnodes);
    if (nfree == 0)
        return MPI_SUCCESS;
    int *f = malloc((size_t)nfree * sizeof *f);
    int rc = f ? factorize((int)(nnodes / fixed), nfree, f) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(f);
        return empi_err_noobj(rc, "%s: out of memory", fn);
    }
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = f[j++];
    free(f);
    return MPI_SUCCESS;
}
