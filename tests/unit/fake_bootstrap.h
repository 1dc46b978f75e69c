/* Fork-based replacement of the bootstrap's fence for transport unit tests. */
#ifndef EMPI_FAKE_BOOTSTRAP_H
#define EMPI_FAKE_BOOTSTRAP_H

#include "runtime/bootstrap.h"

/* Call before fork with the number of processes that will fence together. */
int fake_boot_setup(int nprocs);

#endif
