/*
 * Applying an operation to (count, datatype) buffers: the one reduction entry point of the
 * library. Predefined ops run their typed kernel directly on contiguous data; noncontiguous
 * types of one basic kind are packed in bounded chunks, reduced as arrays and unpacked back.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "datatype/dt_internal.h"
#include "datatype/op_internal.h"

#define EMPI_OP_CHUNK 65536   /* bytes of each scratch buffer of the noncontiguous path */

static empi_op_t predef_ops[EMPI_OPI_SLOTS];
static int predef_ready;

static void init_predef_ops(void)
{
    static const int valid[] = {EMPI_OPI_SUM, EMPI_OPI_MIN, EMPI_OPI_MAX, EMPI_OPI_PROD,
                                EMPI_OPI_BAND, EMPI_OPI_BOR, EMPI_OPI_BXOR, EMPI_OPI_LAND,
                                EMPI_OPI_LOR, EMPI_OPI_LXOR, EMPI_OPI_MINLOC, EMPI_OPI_MAXLOC,
                                EMPI_OPI_REPLACE, EMPI_OPI_NO_OP};
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        empi_op_t *op = &predef_ops[valid[i]];
        op->obj.magic = EMPI_MAGIC_OP;
        op->obj.refcount = 1 << 30;
        op->handle = (MPI_Op)(uintptr_t)(0x20 + valid[i]);
        op->predefined = 1;
        op->commutative = 1;
    }
    __atomic_store_n(&predef_ready, 1, __ATOMIC_RELEASE);
}

empi_op_t *empi_op_get(MPI_Op h)
{
    if (empi_handle_is_predefined(h)) {
        uint32_t v = empi_handle_predefined_index(h);
        if (v <= 0x20 || v >= 0x20 + EMPI_OPI_SLOTS)
            return NULL;
        if (!__atomic_load_n(&predef_ready, __ATOMIC_ACQUIRE))
            init_predef_ops();   /* idempotent: racing initializers write the same values */
        empi_op_t *op = &predef_ops[v - 0x20];
        return op->predefined ? op : NULL;
    }
    empi_op_t *op = (empi_op_t *)h;
    return op->obj.magic == EMPI_MAGIC_OP ? op : NULL;
}

static int op_index(const empi_op_t *op)
{
    return (int)((uintptr_t)op->handle - 0x20);
}

int empi_op_check(const empi_op_t *op, const empi_datatype_t *dt)
{
    if (!op->predefined)
        return MPI_SUCCESS;
    int opi = op_index(op);
    if (opi == EMPI_OPI_REPLACE || opi == EMPI_OPI_NO_OP || dt->size == 0)   /* no data: nothing to combine */
        return MPI_SUCCESS;
    if (dt->basic == EMPI_BASIC_NONE)
        return MPI_ERR_OP;
    if (empi_basic_is_pair(dt->basic))
        return empi_op_pair_kernel(opi, dt->basic) ? MPI_SUCCESS : MPI_ERR_OP;
    return empi_op_kernel(opi, dt->basic) ? MPI_SUCCESS : MPI_ERR_OP;
}

empi_op_kernel_t empi_op_kernel_of(const empi_op_t *op, const empi_datatype_t *dt)
{
    if (!op->predefined || dt->basic == EMPI_BASIC_NONE || empi_basic_is_pair(dt->basic))
        return NULL;
    return empi_op_kernel(op_index(op), dt->basic);
}

int empi_op_check_reduce(const empi_op_t *op, const empi_datatype_t *dt)
{
    if (op->predefined && (op_index(op) == EMPI_OPI_REPLACE || op_index(op) == EMPI_OPI_NO_OP))
        return MPI_ERR_OP;
    return empi_op_check(op, dt);
}

static void call_user(const empi_op_t *op, const void *in, void *inout, MPI_Count count,
                      const empi_datatype_t *dt)
{
    MPI_Datatype h = dt->handle;
    if (op->user_fn_c) {
        MPI_Count n = count;
        op->user_fn_c((void *)in, inout, &n, &h);
        return;
    }
    /* the int-count function sees at most INT_MAX elements per call */
    while (count > 0) {
        int n = count > INT_MAX ? INT_MAX : (int)count;
        op->user_fn((void *)in, inout, &n, &h);
        in = (const char *)in + (MPI_Aint)n * dt->extent;
        inout = (char *)inout + (MPI_Aint)n * dt->extent;
        count -= n;
    }
}

/*
 * Noncontiguous data through bounded scratch: pack both operands, reduce the packed arrays,
 * unpack the result. `reduce` == NULL means MPI_REPLACE (the packed input is the result).
 */
static int chunked(const void *in, void *inout, MPI_Count count, const empi_datatype_t *dt,
                   empi_op_kernel_t kernel, empi_pair_kernel_t pair)
{
    MPI_Count total = count * dt->size;
    MPI_Count unit = dt->basic_count ? dt->size / dt->basic_count : dt->size;
    if (unit <= 0)
        unit = 1;
    MPI_Count chunk = EMPI_OP_CHUNK / unit * unit;
    if (chunk == 0)
        chunk = unit;
    if (chunk > total)
        chunk = total;
    char *a = malloc((size_t)chunk * 2);
    if (!a)
        return MPI_ERR_NO_MEM;
    char *b = a + chunk;
    size_t vs = 0;
    if (pair)
        empi_pair_parts(dt->basic, &vs, NULL, NULL);
    for (MPI_Count off = 0; off < total; off += chunk) {
        MPI_Count take = total - off < chunk ? total - off : chunk;
        empi_dt_pack(in, count, dt, off, a, take);
        if (kernel || pair) {
            empi_dt_pack(inout, count, dt, off, b, take);
            if (pair)
                pair(a, b, take / unit, (size_t)unit, vs);
            else
                kernel(a, b, take / unit);
            empi_dt_unpack(inout, count, dt, off, b, take);
        } else {
            empi_dt_unpack(inout, count, dt, off, a, take);
        }
    }
    free(a);
    return MPI_SUCCESS;
}

int empi_op_apply(const empi_op_t *op, const void *in, void *inout, MPI_Count count,
                  const empi_datatype_t *dt)
{
    if (count <= 0 || dt->size == 0)
        return MPI_SUCCESS;
    if (!op->predefined) {
        call_user(op, in, inout, count, dt);
        return MPI_SUCCESS;
    }
    int opi = op_index(op);
    if (opi == EMPI_OPI_NO_OP)
        return MPI_SUCCESS;
    if (opi == EMPI_OPI_REPLACE) {
        if (dt->is_contig) {
            memmove((char *)inout + dt->true_lb, (const char *)in + dt->true_lb, (size_t)(count * dt->size));
            return MPI_SUCCESS;
        }
        return chunked(in, inout, count, dt, NULL, NULL);
    }
    if (dt->basic == EMPI_BASIC_NONE)
        return MPI_ERR_OP;
    if (empi_basic_is_pair(dt->basic)) {
        empi_pair_kernel_t pk = empi_op_pair_kernel(opi, dt->basic);
        if (!pk)
            return MPI_ERR_OP;
        if (dt->predefined) {   /* the C struct layout, elements extent apart */
            size_t io;
            empi_pair_parts(dt->basic, NULL, &io, NULL);
            pk(in, inout, count, (size_t)dt->extent, io);
            return MPI_SUCCESS;
        }
        return chunked(in, inout, count, dt, NULL, pk);
    }
    empi_op_kernel_t k = empi_op_kernel(opi, dt->basic);
    if (!k)
        return MPI_ERR_OP;
    if (dt->is_contig) {
        k((const char *)in + dt->true_lb, (char *)inout + dt->true_lb, count * dt->basic_count);
        return MPI_SUCCESS;
    }
    return chunked(in, inout, count, dt, k, NULL);
}
