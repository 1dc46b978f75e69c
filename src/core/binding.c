/*
 * CPU binding at initialization (EMPI_BIND_TO, or mpiexec --bind-to): the ranks of a host take
 * the CPUs this process may run on in order, one core each (with all its hardware threads) or
 * one hardware thread each, dealt round-robin when the ranks outnumber them so that every unit
 * carries the same number; auto binds only then, one hardware thread each. Off by default
 * (measured mixed when oversubscribed, docs/ARCHITECTURE.md), and because two jobs started side
 * by side on one host would both crowd onto its first CPUs.
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
   sets *out to the n-th. */
static int nth_unit(int per_core, const cpu_set_t *allowed, int n, cpu_set_t *out)
{
    cpu_set_t seen;
    CPU_ZERO(&seen);
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
        if (units++ == n)
            *out = mine;
    }
    return units;
}

int empi_bind_choose(const char *policy, int local_rank, int local_size, cpu_set_t *out)
{
    int per_core = !strcmp(policy, "core"), is_auto = !strcmp(policy, "auto");
    if (!per_core && !is_auto && strcmp(policy, "hwthread"))
        return 0;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || local_rank < 0)
        return 0;
    int units = nth_unit(per_core, &allowed, -1, out);
    if (units == 0 || (is_auto && local_size <= units))
        return 0;
    /* more ranks than units: dealt round-robin, so every unit carries the same number */
    nth_unit(per_core, &allowed, local_rank % units, out);
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
