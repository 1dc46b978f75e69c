/*
 * MPI_Dims_create: split nnodes over the dims the caller left 0, "as close to each other as
 * possible" and in non-increasing order, as the standard asks. Closeness is made exact: of all
 * factorizations into that many factors, the one with the smallest largest-minus-smallest factor,
 * then the smallest largest factor. A branch-and-bound search over the divisors of the free part
 * (an int has at most 1536) finds it; unlike greedy prime splitting it never misses.
 */
#include <math.h>
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

/* Is r^n at most x? */
static int pow_at_most(int r, int n, int x)
{
    long long p = 1;
    for (int i = 0; i < n; i++)
        if ((p *= r) > x)
            return 0;
    return 1;
}

/* The largest r with r^n <= x (x, n >= 1): the geometric mean of n factors of x, rounded down,
   bounds their smallest one from above. */
static int root_floor(int x, int n)
{
    int r = (int)pow((double)x, 1.0 / n);
    if (r < 1)
        r = 1;
    while (r > 1 && !pow_at_most(r, n, x))
        r--;
    while (pow_at_most(r + 1, n, x))
        r++;
    return r;
}

static void consider(search_t *s)
{
    int max = s->cur[0], spread = max - s->cur[s->k - 1];
    if (spread < s->best_spread || (spread == s->best_spread && max < s->best_max)) {
        s->best_spread = spread;
        s->best_max = max;
        for (int i = 0; i < s->k; i++)
            s->best[i] = s->cur[i];
    }
}

/*
 * Choose cur[depth..k) (depth >= 1) as a non-increasing factorization of m, factors <= cap.
 * Divisors are tried from large to small; a choice is skipped when even the best completion
 * (smallest factor at the geometric mean of what is left) cannot beat the best found.
 */
static void search(search_t *s, int depth, int m, int cap)
{
    int left = s->k - depth;
    if (left == 1) {
        if (m <= cap) {
            s->cur[depth] = m;
            consider(s);
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
        /* the smallest factor is at most f: the spread only grows from here */
        if (s->cur[0] - f > s->best_spread)
            break;
        int low = root_floor(m / f, left - 1);
        if (s->cur[0] - (low < f ? low : f) > s->best_spread)
            continue;
        s->cur[depth] = f;
        search(s, depth + 1, m / f, f);
    }
}

/* The largest factor, from the geometric mean up: good answers come first and bound the rest. */
static void search_top(search_t *s, int m)
{
    int mean = root_floor(m, s->k);
    for (int i = 0; i < s->ndivs; i++) {
        int f = s->divs[i];
        if (!pow_reaches(f, s->k, m))
            continue;
        if (f - mean > s->best_spread)
            break;
        s->cur[0] = f;
        search(s, 1, m / f, f);
    }
}

/* No positive int has more divisors than this (the most is 1536). */
#define MAX_DIVISORS 1600

/* best[0..k) := the closest non-increasing factorization of m (k >= 1). */
static int factorize(int m, int k, int *best)
{
    int divs[MAX_DIVISORS], ndivs = 0;
    int *cur = malloc((size_t)k * sizeof *cur);
    if (!cur)
        return MPI_ERR_NO_MEM;
    /* ascending: the divisors up to sqrt(m), then their cofactors in reverse */
    for (long long d = 1; d * d <= m; d++)
        if (m % d == 0)
            divs[ndivs++] = (int)d;
    for (int i = ndivs - 1; i >= 0; i--)
        if ((long long)divs[i] * divs[i] != m)
            divs[ndivs++] = m / divs[i];
    search_t s = {divs, ndivs, k, cur, best, m, m};
    if (k == 1)
        best[0] = m;
    else
        search_top(&s, m);
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
        return empi_err_noobj(MPI_ERR_DIMS,
                              "%s: nnodes %d is not a multiple of the product of the nonzero dims (%lld%s)", fn,
                              nnodes, fixed, fixed > nnodes ? " or more" : "");
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
