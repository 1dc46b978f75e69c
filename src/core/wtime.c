/* MPI_Wtime: CLOCK_MONOTONIC read through the vDSO (about 20 ns), relative to a base taken at
   init so the double keeps nanosecond resolution for days. */
#include <time.h>

#include "core/global.h"

static struct timespec wtime_base;

void empi_wtime_init(void)
{
    clock_gettime(CLOCK_MONOTONIC, &wtime_base);
}

EMPI_WEAK_ALIAS(Wtime)
double PMPI_Wtime(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - wtime_base.tv_sec) + (double)(now.tv_nsec - wtime_base.tv_nsec) * 1e-9;
}

EMPI_WEAK_ALIAS(Wtick)
double PMPI_Wtick(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0 || (res.tv_sec == 0 && res.tv_nsec == 0))
        return 1e-9;
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}
