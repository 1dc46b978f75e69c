/*
 * The two-way choice (core/way_choice.c) with a bias: way 1 is taken only once it measures cheaper
 * than way 0 by the bias, and is still retried now and then while it is not.
 */
#include "core/way_choice.h"
#include "unit_check.h"

#define KB 1024u

/* n choices for `bytes` whose ways cost c0/c1 seconds per byte; how many took way 1. */
static int run(empi_way_choice_t *w, int n, uint64_t bytes, double c0, double c1)
{
    int second = 0;
    for (int i = 0; i < n; i++) {
        int way = empi_way_choose(w, bytes);
        second += way;
        empi_way_learn(w, way, bytes, (double)bytes * (way ? c1 : c0));
    }
    return second;
}

int main(void)
{
    empi_way_choice_t w = {.bias = 1.5};
    /* the first six alternate, way 0 first, whatever the bias */
    UCHECK(run(&w, 6, 64 * KB, 1.3e-10, 1e-10) == 3, "warm-up: three of six on way 1");
    /* way 1 1.3x cheaper, under the bias: way 0 kept, way 1 retried every 16th */
    int second = run(&w, 320, 64 * KB, 1.3e-10, 1e-10);
    UCHECK(second >= 18 && second <= 22, "way 1 taken %d of 320 while only 1.3x cheaper", second);
    /* 3x cheaper: way 1 from the next retry on */
    run(&w, 40, 64 * KB, 3e-10, 1e-10);
    second = run(&w, 320, 64 * KB, 3e-10, 1e-10);
    UCHECK(second >= 310, "way 1 taken %d of 320 once 3x cheaper", second);
    /* without a bias (zeroed: as pt2pt/stream_choice.c), 1.3x cheaper is enough */
    empi_way_choice_t plain = {0};
    run(&plain, 6, 64 * KB, 1.3e-10, 1e-10);
    second = run(&plain, 320, 64 * KB, 1.3e-10, 1e-10);
    UCHECK(second >= 295, "no bias: way 1 taken %d of 320 while 1.3x cheaper", second);
    UCHECK(empi_way_second_cheaper(&plain, 64 * KB) && !empi_way_second_cheaper(&plain, 1 * KB),
           "second_cheaper: the measured class yes, an unmeasured one no");
    puts("way_choice_test: ok");
    return 0;
}
