/*
 * CPU binding at initialization (EMPI_BIND_TO, or mpiexec --bind-to): the ranks of a host take
 * the CPUs this process may run on in order, one core each (with all its hardware threads) or
 * one hardware thread each, dealt round-robin when the ranks outnumber them so that every unit
 * carries the same number.
 * auto, the default, shares the CPUs out instead: each rank gets an even slice of the cores (a
 * whole core at least: threads of its own, say OpenMP, keep the rest of its slice), or of the
 * hardware threads when there are more ranks than cores. A lone rank stays unbound, and so do
 * ranks that outnumber the hardware threads: pinned round-robin, the two ranks of a pair could
 * share a CPU for good (docs/ARCHITECTURE.md has the measurements). On a host busy with other
 * work, unbound ranks of a pair were put on one CPU by the kernel and a ping-pong took 20-100 us
 * instead of 0.3 (docs/PERFORMANCE.md); slices that cover every CPU also keep two jobs side by
 * side from crowding onto the first ones.
 */
#include "core/binding.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tunables.h"

/* The hardware threads of `cpu`'s core, from sysfs ("0-1", "0,4", ...); just cpu if unknown. */
static void core_siblings(int cpu, cpu_set_t *out)
{
    CPU_ZERO(out);
    char path[96], line[256];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    FILE *f = fopen(path, "r");
    int got = f && fgets(line, sizeof line, f);
    if (f)
        fclose(f);
    for (char *p = line; got && *p;) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p)
            break;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        for (long c = lo; c <= hi && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, out);
        p = *end == ',' ? end + 1 : end + strlen(end);
    }
    if (CPU_COUNT(out) == 0)
        CPU_SET(cpu, out);
}

/* Walk the cores (or hardware threads) of `allowed` in CPU order: returns how many there are and
   sets *out to units [lo, hi) together (empty for lo == hi). One walk: per core it reads sysfs. */
static int units_range(int per_core, const cpu_set_t *allowed, int lo, int hi, cpu_set_t *out)
{
    cpu_set_t seen;
    CPU_ZERO(&seen);
    CPU_ZERO(out);
    int units = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, allowed) || CPU_ISSET(c, &seen))
            continue;
        cpu_set_t mine;
        if (per_core) {
            core_siblings(c, &mine);
            CPU_AND(&mine, &mine, allowed);
        } else {
            CPU_ZERO(&mine);
            CPU_SET(c, &mine);
        }
        CPU_OR(&seen, &seen, &mine);
        if (units >= lo && units < hi)
            CPU_OR(out, out, &mine);
        units++;
    }
    return units;
}

int empi_bind_choose(const char *policy, int local_rank, int local_size, cpu_set_t *out)
{
    int per_core = !strcmp(policy, "core"), is_auto = !strcmp(policy, "auto");
    if (!per_core && !is_auto && strcmp(policy, "hwthread"))
        return 0;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || local_rank < 0 || local_rank >= local_size)
        return 0;
    if (is_auto) {
        if (local_size <= 1)
            return 0;
        int cores = units_range(1, &allowed, 0, 0, out), threads = CPU_COUNT(&allowed);
        int slice_cores = local_size <= cores;
        int n = slice_cores ? cores : threads;
        if (local_size > n)
            return 0;
        /* rank r: units [r n / L, (r + 1) n / L) */
        units_range(slice_cores, &allowed, (int)((long)local_rank * n / local_size),
                    (int)((long)(local_rank + 1) * n / local_size), out);
        return CPU_COUNT(out) > 0;
    }
    int units = units_range(per_core, &allowed, 0, 0, out);
    if (units == 0)
        return 0;
    /* more ranks than units: dealt round-robin, so every unit carries the same number */
    units_range(per_core, &allowed, local_rank % units, local_rank % units + 1, out);
    return 1;
}

static void format_cpus(const cpu_set_t *set, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && n + 8 < len; c++)
        if (CPU_ISSET(c, set))
            n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", c);
}

void empi_bind_apply(int rank, int local_rank, int local_size, const char *host)
{
    const char *policy = empi_tunables.bind_to;
    cpu_set_t set;
    int bound = empi_bind_choose(policy, local_rank, local_size, &set) &&
                sched_setaffinity(0, sizeof set, &set) == 0;
    if (!empi_tunables.report_bindings)
        return;
    char cpus[512] = "?";
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        format_cpus(&set, cpus, sizeof cpus);
    fprintf(stderr, "[rank %d on %s] %s CPUs %s (EMPI_BIND_TO=%s)\n", rank, host,
            bound ? "bound to" : "not bound, may run on", cpus, policy);
}
