/*
 * Which CPUs a local rank binds to (core/binding.c), on this machine's own CPUs: distinct ranks
 * get disjoint sets covering one core or one hardware thread each, in CPU order, and are dealt
 * round-robin when they outnumber them; auto shares all the CPUs out in disjoint slices (whole
 * cores while there are enough) and leaves a lone rank, and ranks beyond the threads, unbound;
 * nothing is bound for policy none or an unknown policy (checked again on a one-CPU affinity mask,
 * where two ranks outnumber it).
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "core/binding.h"
#include "unit_check.h"

static void check_policy(const char *policy, int units)
{
    cpu_set_t seen, set;
    CPU_ZERO(&seen);
    int last_first = -1;
    for (int r = 0; r < units; r++) {
        UCHECK(empi_bind_choose(policy, r, units, &set) == 1, "%s: rank %d of %d not bound", policy, r, units);
        UCHECK(CPU_COUNT(&set) >= 1, "%s: rank %d got no CPU", policy, r);
        if (!strcmp(policy, "hwthread"))   /* a core may hold several threads */
            UCHECK(CPU_COUNT(&set) == 1, "hwthread: rank %d got %d CPUs", r, CPU_COUNT(&set));
        cpu_set_t both;
        CPU_AND(&both, &seen, &set);
        UCHECK(CPU_COUNT(&both) == 0, "%s: rank %d shares a CPU with a lower rank", policy, r);
        int first = 0;
        while (!CPU_ISSET(first, &set))
            first++;
        UCHECK(first > last_first, "%s: rank %d is not after rank %d in CPU order", policy, r, r - 1);
        last_first = first;
        CPU_OR(&seen, &seen, &set);
    }
    /* oversubscribed: rank units + r shares rank r's unit */
    for (int r = 0; r < units; r++) {
        cpu_set_t again;
        UCHECK(empi_bind_choose(policy, r, units + 1, &set) == 1 &&
                   empi_bind_choose(policy, units + r, 2 * units, &again) == 1 && CPU_EQUAL(&set, &again),
               "%s: rank %d of %d is not on rank %d's unit", policy, units + r, 2 * units, r);
    }
}

/* auto: disjoint slices covering every CPU while every rank has a hardware thread (a core each
   when there are as many ranks as cores), nothing bound beyond */
static void check_auto(int cores, int threads)
{
    cpu_set_t set, thread, all, seen;
    UCHECK(empi_bind_choose("auto", 0, 1, &set) == 0, "auto binds a lone rank");
    sched_getaffinity(0, sizeof all, &all);
    for (int n = 2; n <= threads; n++) {
        CPU_ZERO(&seen);
        for (int r = 0; r < n; r++) {
            UCHECK(empi_bind_choose("auto", r, n, &set) == 1 && CPU_COUNT(&set) >= 1, "auto: rank %d of %d unbound", r,
                   n);
            cpu_set_t both;
            CPU_AND(&both, &seen, &set);
            UCHECK(CPU_COUNT(&both) == 0, "auto: rank %d of %d shares a CPU with a lower rank", r, n);
            if (n == cores)
                UCHECK(empi_bind_choose("core", r, n, &thread) == 1 && CPU_EQUAL(&set, &thread),
                       "auto: rank %d of %d ranks on %d cores is not on core %d", r, n, cores, r);
            CPU_OR(&seen, &seen, &set);
        }
        UCHECK(CPU_EQUAL(&seen, &all), "auto: %d ranks leave some of the CPUs out", n);
    }
    for (int r = 0; r < threads + 1; r++)
        UCHECK(empi_bind_choose("auto", r, threads + 1, &set) == 0, "auto: oversubscribed rank %d bound", r);
}

static int topology_value(int cpu, const char *what)
{
    char path[128];
    int v = -1;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    FILE *f = fopen(path, "r");
    if (f && fscanf(f, "%d", &v) != 1)
        v = -1;
    if (f)
        fclose(f);
    return v;
}

/* Cores (distinct package and core id) or threads of this process's mask, counted from other
   sysfs files than binding.c reads. */
static int count_units(int per_core)
{
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    int units = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &allowed))
            continue;
        int dup = 0;
        for (int d = 0; per_core && d < c; d++)
            dup |= CPU_ISSET(d, &allowed) && topology_value(d, "core_id") == topology_value(c, "core_id") &&
                   topology_value(d, "physical_package_id") == topology_value(c, "physical_package_id");
        units += !dup;
    }
    return units;
}

int main(void)
{
    cpu_set_t set;
    UCHECK(empi_bind_choose("none", 0, 1, &set) == 0, "none binds");
    UCHECK(empi_bind_choose("socket", 0, 1, &set) == 0, "an unknown policy binds");
    check_policy("hwthread", count_units(0));
    check_policy("core", count_units(1));
    check_auto(count_units(1), count_units(0));

    /* one allowed CPU: one rank binds to it, two are too many */
    cpu_set_t one;
    CPU_ZERO(&one);
    sched_getaffinity(0, sizeof set, &set);
    int c = 0;
    while (!CPU_ISSET(c, &set))
        c++;
    CPU_SET(c, &one);
    UCHECK(sched_setaffinity(0, sizeof one, &one) == 0, "cannot restrict the test to CPU %d", c);
    UCHECK(empi_bind_choose("hwthread", 0, 1, &set) == 1 && CPU_COUNT(&set) == 1 && CPU_ISSET(c, &set),
           "the only CPU is not chosen");
    UCHECK(empi_bind_choose("core", 1, 2, &set) == 1 && CPU_COUNT(&set) == 1 && CPU_ISSET(c, &set),
           "the second rank is not dealt the only CPU");
    UCHECK(empi_bind_choose("auto", 0, 1, &set) == 0, "auto binds one rank on one CPU");
    puts("binding_test: ok");
    return 0;
}
