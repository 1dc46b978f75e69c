/* Binding a process to CPUs at initialization (binding.c). */
#ifndef EMPI_CORE_BINDING_H
#define EMPI_CORE_BINDING_H

#include <sched.h>

/* The CPUs local rank `local_rank` of `local_size` gets under `policy` ("core", "hwthread"; any
   other value binds nothing). Returns 1 with *out set, or 0 when nothing is to be bound (the
   policy, or more ranks than cores or threads). */
int empi_bind_choose(const char *policy, int local_rank, int local_size, cpu_set_t *out);

/* Bind this process as EMPI_BIND_TO says; with EMPI_REPORT_BINDINGS, say where it may run. */
void empi_bind_apply(int rank, int local_rank, int local_size, const char *host);

#endif
