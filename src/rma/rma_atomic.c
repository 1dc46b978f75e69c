/*
 * Element-wise accumulate with the atomicity the standard promises: concurrent accumulates of the
 * same basic type to the same location behave as if done one after the other.
 *
 * Elements of 1, 2, 4 or 8 bytes (not the pair types of MINLOC/MAXLOC) at naturally aligned
 * addresses in shared memory are updated with hardware atomics: fetch-add/and/or/xor, exchange and
 * load where one instruction does it, otherwise a compare-and-swap loop around the reduction
 * kernel. Every other element is updated under the target's accumulate lock. Which of the two an
 * element gets depends only on its type, its address and the window, never on the origin, so all
 * origins agree.
 */
#include <stdint.h>
#include <string.h>

#include "core/copy.h"
#include "core/tunables.h"
#include "rma/win.h"

static int is_integer(empi_basic_t b)
{
    switch (b) {
    case EMPI_BASIC_SHORT: case EMPI_BASIC_USHORT: case EMPI_BASIC_INT: case EMPI_BASIC_UINT:
    case EMPI_BASIC_LONG: case EMPI_BASIC_ULONG: case EMPI_BASIC_LONG_LONG: case EMPI_BASIC_ULONG_LONG:
    case EMPI_BASIC_INT8: case EMPI_BASIC_UINT8: case EMPI_BASIC_INT16: case EMPI_BASIC_UINT16:
    case EMPI_BASIC_INT32: case EMPI_BASIC_UINT32: case EMPI_BASIC_INT64: case EMPI_BASIC_UINT64:
    case EMPI_BASIC_AINT: case EMPI_BASIC_COUNT: case EMPI_BASIC_OFFSET: case EMPI_BASIC_SCHAR:
    case EMPI_BASIC_UCHAR: case EMPI_BASIC_INTEGER: case EMPI_BASIC_INTEGER1: case EMPI_BASIC_INTEGER2:
    case EMPI_BASIC_INTEGER4: case EMPI_BASIC_INTEGER8: case EMPI_BASIC_BYTE: case EMPI_BASIC_CHAR:
        return 1;
    default:
        return 0;
    }
}

int empi_rma_cas_type_ok(empi_basic_t b)
{
    switch (b) {
    case EMPI_BASIC_C_BOOL: case EMPI_BASIC_CXX_BOOL: case EMPI_BASIC_LOGICAL: case EMPI_BASIC_LOGICAL1:
    case EMPI_BASIC_LOGICAL2: case EMPI_BASIC_LOGICAL4: case EMPI_BASIC_LOGICAL8:
        return 1;
    default:
        return is_integer(b);
    }
}

static int is_pair(empi_basic_t b)
{
    return (b >= EMPI_BASIC_FLOAT_INT && b <= EMPI_BASIC_2INTEGER);
}

int empi_rma_acc_bulk(MPI_Count bytes, const empi_datatype_t *elem)
{
    return bytes > (MPI_Count)empi_tunables.rma_acc_atomic_max * elem->size;
}

int empi_rma_atomic_ok(const empi_datatype_t *elem, const void *a)
{
    MPI_Count s = elem->size;
    if (is_pair(elem->basic) || (s != 1 && s != 2 && s != 4 && s != 8))
        return 0;
    return ((uintptr_t)a & (uintptr_t)(s - 1)) == 0;
}

empi_datatype_t *empi_rma_elem_type(empi_basic_t b)
{
    static empi_datatype_t *table[EMPI_BASIC_COUNT_OF_KINDS];
    static int ready;
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
        for (uintptr_t h = 0x200; h < 0x300; h++) {
            empi_datatype_t *dt = empi_datatype_get((MPI_Datatype)h);
            if (dt && dt->predefined && dt->basic != EMPI_BASIC_NONE && dt->basic_count == 1 && !table[dt->basic])
                table[dt->basic] = dt;
        }
        __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    }
    return b > EMPI_BASIC_NONE && b < EMPI_BASIC_COUNT_OF_KINDS ? table[b] : NULL;
}

/* One element of SZ bytes: a single instruction where there is one, else compare-and-swap. */
#define ATOMIC_ELEMENT(T)                                                                          \
    do {                                                                                           \
        T *p = (T *)t, v = 0, old;                                                                 \
        if (opi != MPI_NO_OP) /* whose origin buffer may be NULL */                                \
            memcpy(&v, in, sizeof v);                                                              \
        if (opi == MPI_REPLACE)                                                                    \
            old = __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL);                                     \
        else if (opi == MPI_NO_OP)                                                                 \
            old = __atomic_load_n(p, __ATOMIC_ACQUIRE);                                            \
        else if (integer && opi == MPI_SUM)                                                        \
            old = __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);                                      \
        else if (integer && opi == MPI_BAND)                                                       \
            old = __atomic_fetch_and(p, v, __ATOMIC_ACQ_REL);                                      \
        else if (integer && opi == MPI_BOR)                                                        \
            old = __atomic_fetch_or(p, v, __ATOMIC_ACQ_REL);                                       \
        else if (integer && opi == MPI_BXOR)                                                       \
            old = __atomic_fetch_xor(p, v, __ATOMIC_ACQ_REL);                                      \
        else {                                                                                     \
            old = __atomic_load_n(p, __ATOMIC_RELAXED);                                            \
            T next;                                                                                \
            do {                                                                                   \
                next = old;                                                                        \
                empi_op_apply(op, in, &next, 1, elem);                                             \
            } while (!__atomic_compare_exchange_n(p, &old, next, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)); \
        }                                                                                          \
        if (fetch)                                                                                 \
            memcpy(fetch, &old, sizeof old);                                                       \
    } while (0)

void empi_rma_apply(const empi_op_t *op, const empi_datatype_t *elem, const void *in_, char *t, void *fetch_,
                    MPI_Count n, int atomics)
{
    size_t es = (size_t)elem->size;
    if (!atomics) {   /* the caller holds the accumulate lock */
        if (fetch_)
            empi_copy(fetch_, t, (size_t)n * es);
        empi_op_apply(op, in_, t, n, elem);
        return;
    }
    MPI_Op opi = op->handle;
    int integer = is_integer(elem->basic);
    const char *in = in_;
    char *fetch = fetch_;
    for (MPI_Count i = 0; i < n; i++, in += es, t += es, fetch = fetch ? fetch + es : NULL) {
        switch (es) {
        case 1: ATOMIC_ELEMENT(uint8_t); break;
        case 2: ATOMIC_ELEMENT(uint16_t); break;
        case 4: ATOMIC_ELEMENT(uint32_t); break;
        default: ATOMIC_ELEMENT(uint64_t); break;
        }
    }
}

/* Compare-and-swap of one element: hardware when atomics allow, else under the lock. */
void empi_rma_cas(const empi_datatype_t *elem, const void *origin, const void *compare, void *result, char *t,
                  int atomics)
{
    size_t es = (size_t)elem->size;
    if (atomics) {
#define CAS_ELEMENT(T)                                                                             \
    do {                                                                                           \
        T c, o;                                                                                    \
        memcpy(&c, compare, sizeof c);                                                             \
        memcpy(&o, origin, sizeof o);                                                              \
        __atomic_compare_exchange_n((T *)t, &c, o, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);         \
        memcpy(result, &c, sizeof c);                                                              \
    } while (0)
        switch (es) {
        case 1: CAS_ELEMENT(uint8_t); return;
        case 2: CAS_ELEMENT(uint16_t); return;
        case 4: CAS_ELEMENT(uint32_t); return;
        default: CAS_ELEMENT(uint64_t); return;
        }
#undef CAS_ELEMENT
    }
    memcpy(result, t, es);
    if (memcmp(t, compare, es) == 0)
        memcpy(t, origin, es);
}
