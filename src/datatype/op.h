/* Reduction operations: predefined ones on every type the standard allows, and user functions. */
#ifndef EMPI_OP_H
#define EMPI_OP_H

#include "core/object.h"
#include "datatype/datatype.h"
#include "mpi.h"

typedef struct empi_op {
    empi_object_t obj;
    MPI_Op handle;
    int predefined;
    int commutative;
    MPI_User_function *user_fn;
    MPI_User_function_c *user_fn_c;
} empi_op_t;

empi_op_t *empi_op_get(MPI_Op h);   /* NULL when invalid (MPI_OP_NULL included) */

/* MPI_SUCCESS, or MPI_ERR_OP when `op` is not defined on `dt` (MPI_REPLACE and MPI_NO_OP pass: RMA). */
int empi_op_check(const empi_op_t *op, const empi_datatype_t *dt);

/* empi_op_check for reductions (collectives, MPI_Reduce_local): MPI_REPLACE and MPI_NO_OP belong
   to one-sided accumulates only (MPI 4.1 12.3.4) and are MPI_ERR_OP here. */
int empi_op_check_reduce(const empi_op_t *op, const empi_datatype_t *dt);

/* inout[i] = in[i] op inout[i] over n elements of a basic kind laid out as a C array. */
typedef void (*empi_op_kernel_t)(const void *in, void *inout, MPI_Count n);

/* The kernel of a predefined arithmetic, logical or bitwise `op` on dt's basic elements, NULL
   for every other op (user, MINLOC/MAXLOC, REPLACE, NO_OP) or a combination the standard forbids. */
empi_op_kernel_t empi_op_kernel_of(const empi_op_t *op, const empi_datatype_t *dt);

/*
 * inout[i] = in[i] op inout[i] for count elements of dt (the standard's order: the left operand
 * is the one from the lower rank when the caller passes them so). The one entry point through
 * which collectives, MPI_Reduce_local and RMA accumulate reduce.
 */
int empi_op_apply(const empi_op_t *op, const void *in, void *inout, MPI_Count count,
                  const empi_datatype_t *dt);
/*
 * The same on a contiguous type's data staged from its first byte (a shared slot, a scratch
 * chunk), where empi_op_apply wants buffer addresses: those lie true_lb bytes before the data.
 */
static inline int empi_op_apply_data(const empi_op_t *op, const char *in, char *inout, MPI_Count count,
                                     const empi_datatype_t *dt)
{
    return empi_op_apply(op, in - dt->true_lb, inout - dt->true_lb, count, dt);
}

#endif
