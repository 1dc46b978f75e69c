/* Reduction kernels and the op table, shared by op_kernels.c and op_api.c. */
#ifndef EMPI_OP_INTERNAL_H
#define EMPI_OP_INTERNAL_H

#include <stddef.h>

#include "datatype/op.h"

/* Predefined op index: the handle value minus MPI_OP_NULL's. */
enum {
    EMPI_OPI_SUM = 0x21 - 0x20, EMPI_OPI_MIN = 0x22 - 0x20, EMPI_OPI_MAX = 0x23 - 0x20,
    EMPI_OPI_PROD = 0x24 - 0x20, EMPI_OPI_BAND = 0x28 - 0x20, EMPI_OPI_BOR = 0x29 - 0x20,
    EMPI_OPI_BXOR = 0x2a - 0x20, EMPI_OPI_LAND = 0x30 - 0x20, EMPI_OPI_LOR = 0x31 - 0x20,
    EMPI_OPI_LXOR = 0x32 - 0x20, EMPI_OPI_MINLOC = 0x38 - 0x20, EMPI_OPI_MAXLOC = 0x39 - 0x20,
    EMPI_OPI_REPLACE = 0x3c - 0x20, EMPI_OPI_NO_OP = 0x3d - 0x20,
    EMPI_OPI_SLOTS = 0x1e
};

/*
 * MINLOC/MAXLOC over n pairs `stride` bytes apart, value at offset 0 and index at `ioff`
 * (the C struct layout for predefined pair types, the packed layout for derived ones).
 */
typedef void (*empi_pair_kernel_t)(const void *in, void *inout, MPI_Count n, size_t stride,
                                   size_t ioff);

empi_op_kernel_t empi_op_kernel(int opi, empi_basic_t b);
empi_pair_kernel_t empi_op_pair_kernel(int opi, empi_basic_t b);

#endif
