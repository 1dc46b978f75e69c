/* How crowded each host of the job is: ranks per CPU, from the CPUs every rank may run on.
 *
 * Each rank publishes the CPU set it inherited (before any binding of ours) through the bootstrap;
 * a host's CPUs are the union of its ranks' sets. Per-rank sets are not enough: a job whose launcher
 * bound every rank to its own core (srun --cpu-bind=cores) shows one CPU to each rank, yet no core
 * carries two ranks. Every rank computes every host's figure from the same records, so the
 * figures agree across the job (collective selection depends on that). */
#ifndef EMPI_RUNTIME_CPU_CENSUS_H
#define EMPI_RUNTIME_CPU_CENSUS_H

#include "runtime/bootstrap.h"

/* CPUs this process may run on now (its affinity mask; all online CPUs if unknown). */
int empi_cpu_census_usable(void);

/* Put this rank's CPU set, fence, and count every host. Collective over the world; 0 on success.
 * On failure every host counts as one rank per CPU (no host reads as crowded). */
int empi_cpu_census_take(const empi_boot_info_t *boot);

/* ceil(ranks on the host / CPUs of the host), at least 1; 1 for an unknown host. */
int empi_cpu_census_ranks_per_cpu(int node);

/* CPUs the ranks of a host may use together (0 if unknown). */
int empi_cpu_census_cpus(int node);

void empi_cpu_census_free(void);

#endif
