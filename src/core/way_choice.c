#include "core/way_choice.h"

#define EXPLORE_CLOSE 16   /* retry the other way every this many times while the two are close */
#define EXPLORE_FAR 64     /* ... and this many once it has been 1.5x worse */
#define FIRST_SAMPLES 3    /* per way and class, alternated, before either is trusted */

static int size_class(uint64_t bytes)
{
    int c = 63 - __builtin_clzll(bytes | 1);
    return c < EMPI_WAY_CLASSES ? c : EMPI_WAY_CLASSES - 1;
}

int empi_way_choose(empi_way_choice_t *w, uint64_t bytes)
{
    int c = size_class(bytes);
    const double *cost = w->cost[c];
    const unsigned *n = w->samples[c];
    if (n[0] < FIRST_SAMPLES || n[1] < FIRST_SAMPLES)
        return n[1] < n[0];     /* alternate, way 0 first */
    int best = cost[1] * (w->bias > 0 ? w->bias : 1) < cost[0];
    double ratio = cost[!best] / cost[best];
    unsigned period = ratio < 1.5 ? EXPLORE_CLOSE : EXPLORE_FAR;
    return ++w->seen[c] % period == 0 ? !best : best;
}

void empi_way_learn(empi_way_choice_t *w, int way, uint64_t bytes, double secs)
{
    if (bytes == 0 || secs <= 0)
        return;
    int c = size_class(bytes);
    way = way != 0;
    double *cost = &w->cost[c][way];
    double per_byte = secs / (double)bytes;
    /* The least of the first samples, then a moving average in which a sample counts for at
       most twice the estimate: a sample is too slow far more often (a page fault on a buffer's
       first use, a preemption) than too fast, and one bad sample must not flip the choice. */
    if (w->samples[c][way]++ < FIRST_SAMPLES)
        *cost = *cost == 0 || per_byte < *cost ? per_byte : *cost;
    else
        *cost += ((per_byte < 2 * *cost ? per_byte : 2 * *cost) - *cost) / 4;
}

int empi_way_second_cheaper(const empi_way_choice_t *w, uint64_t bytes)
{
    int c = size_class(bytes);
    const unsigned *n = w->samples[c];
    return n[0] >= FIRST_SAMPLES && n[1] >= FIRST_SAMPLES && w->cost[c][1] < w->cost[c][0];
}
