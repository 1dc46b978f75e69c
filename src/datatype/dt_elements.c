/*
 * Counting basic elements in a received byte count (MPI_Get_elements), and its inverse
 * (MPI_Status_set_elements), plus MPI_Get_count. A type of one basic kind is pure arithmetic;
 * a mixed type is walked through its constructor arguments, since the packed stream of a type is
 * the concatenation, in constructor order, of the streams of the types it was built from. Pair
 * types count as two elements (value and index), as their type map has two entries.
 */
#include <limits.h>

#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_internal.h"
#include "pt2pt/request.h"

static MPI_Count struct_blen(const empi_dt_contents_t *c, MPI_Count i)
{
    return c->nl ? c->larges[1 + i] : c->ints[1 + i];
}

/* Basic elements in one whole instance. */
static MPI_Count full_elements(const empi_datatype_t *dt)
{
    if (dt->basic != EMPI_BASIC_NONE)
        return dt->basic_count * (empi_basic_is_pair(dt->basic) ? 2 : 1);
    const empi_dt_contents_t *c = dt->contents;
    if (!c || c->nd == 0)
        return 0;
    if (c->combiner == MPI_COMBINER_STRUCT) {
        MPI_Count n = 0;
        for (MPI_Count i = 0; i < c->nd; i++)
            n += struct_blen(c, i) * full_elements(c->type_objs[i]);
        return n;
    }
    const empi_datatype_t *child = c->type_objs[0];
    return child->size ? dt->size / child->size * full_elements(child) : 0;
}

/* Elements in the first `bytes` (< size) of one instance; -1 when a basic element is cut. */
static MPI_Count partial_elements(const empi_datatype_t *dt, MPI_Count bytes)
{
    if (bytes == 0)
        return 0;
    if (dt->basic != EMPI_BASIC_NONE) {
        MPI_Count unit = dt->size / dt->basic_count;
        if (empi_basic_is_pair(dt->basic)) {
            size_t vs;
            empi_pair_parts(dt->basic, &vs, NULL, NULL);
            MPI_Count rem = bytes % unit;
            if (rem != 0 && rem != (MPI_Count)vs)
                return -1;
            return bytes / unit * 2 + (rem ? 1 : 0);
        }
        return bytes % unit ? -1 : bytes / unit;
    }
    const empi_dt_contents_t *c = dt->contents;
    if (!c || c->nd == 0)
        return -1;
    if (c->combiner == MPI_COMBINER_STRUCT) {
        MPI_Count n = 0;
        for (MPI_Count i = 0; i < c->nd && bytes > 0; i++) {
            const empi_datatype_t *t = c->type_objs[i];
            MPI_Count blen = struct_blen(c, i), bsz = blen * t->size;
            if (bytes >= bsz) {
                n += blen * full_elements(t);
                bytes -= bsz;
            } else {
                MPI_Count p = partial_elements(t, bytes % t->size);
                return p < 0 ? -1 : n + bytes / t->size * full_elements(t) + p;
            }
        }
        return n;
    }
    const empi_datatype_t *child = c->type_objs[0];
    MPI_Count p = partial_elements(child, bytes % child->size);
    return p < 0 ? -1 : bytes / child->size * full_elements(child) + p;
}

MPI_Count empi_dt_elements_in(const empi_datatype_t *dt, MPI_Count bytes)
{
    if (dt->size == 0 || bytes <= 0)
        return 0;
    MPI_Count p = partial_elements(dt, bytes % dt->size);
    return p < 0 ? -1 : bytes / dt->size * full_elements(dt) + p;
}

/* Bytes taken by the first n (< full_elements) basic elements of one instance. */
static MPI_Count partial_bytes(const empi_datatype_t *dt, MPI_Count n)
{
    if (n == 0)
        return 0;
    if (dt->basic != EMPI_BASIC_NONE) {
        MPI_Count unit = dt->size / dt->basic_count;
        if (empi_basic_is_pair(dt->basic)) {
            size_t vs;
            empi_pair_parts(dt->basic, &vs, NULL, NULL);
            return n / 2 * unit + (n % 2 ? (MPI_Count)vs : 0);
        }
        return n * unit;
    }
    const empi_dt_contents_t *c = dt->contents;
    if (c->combiner == MPI_COMBINER_STRUCT) {
        MPI_Count bytes = 0;
        for (MPI_Count i = 0; i < c->nd && n > 0; i++) {
            const empi_datatype_t *t = c->type_objs[i];
            MPI_Count fe = full_elements(t), blen = struct_blen(c, i);
            if (n >= blen * fe) {
                n -= blen * fe;
                bytes += blen * t->size;
            } else {
                return bytes + n / fe * t->size + partial_bytes(t, n % fe);
            }
        }
        return bytes;
    }
    const empi_datatype_t *child = c->type_objs[0];
    MPI_Count fe = full_elements(child);
    return n / fe * child->size + partial_bytes(child, n % fe);
}

static MPI_Count bytes_for_elements(const empi_datatype_t *dt, MPI_Count n)
{
    MPI_Count fe = full_elements(dt);
    if (fe == 0)
        return 0;
    return n / fe * dt->size + partial_bytes(dt, n % fe);
}

static int status_type(const char *fname, const MPI_Status *status, MPI_Datatype h, empi_datatype_t **dt)
{
    if (status == MPI_STATUS_IGNORE)
        return empi_err_noobj(MPI_ERR_ARG, "%s: status is MPI_STATUS_IGNORE", fname);
    *dt = empi_datatype_get(h);
    if (!*dt)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: datatype is not a valid datatype", fname);
    return MPI_SUCCESS;
}

/* The checks every count query makes: status and datatype as above, and the output pointer. */
static int query_args(const char *fname, const MPI_Status *status, MPI_Datatype h, const void *count,
                      empi_datatype_t **dt)
{
    EMPI_CHECK(status_type(fname, status, h, dt));
    if (!count)
        return empi_err_noobj(MPI_ERR_ARG, "%s: count is NULL", fname);
    return MPI_SUCCESS;
}

static MPI_Count count_of(const MPI_Status *status, const empi_datatype_t *dt)
{
    MPI_Count bytes = empi_status_bytes(status);
    if (dt->size == 0)
        return 0;
    return bytes % dt->size ? MPI_UNDEFINED : bytes / dt->size;
}

EMPI_WEAK_ALIAS(Get_count)
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    empi_datatype_t *dt;
    EMPI_CHECK(query_args("MPI_Get_count", status, datatype, count, &dt));
    *count = empi_int_or_undefined(count_of(status, dt));
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Get_count_c)
int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    empi_datatype_t *dt;
    EMPI_CHECK(query_args("MPI_Get_count_c", status, datatype, count, &dt));
    *count = count_of(status, dt);
    return MPI_SUCCESS;
}

static MPI_Count elements_of(const MPI_Status *status, const empi_datatype_t *dt)
{
    MPI_Count n = empi_dt_elements_in(dt, empi_status_bytes(status));
    return n < 0 ? MPI_UNDEFINED : n;
}

EMPI_WEAK_ALIAS(Get_elements)
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    empi_datatype_t *dt;
    EMPI_CHECK(query_args("MPI_Get_elements", status, datatype, count, &dt));
    *count = empi_int_or_undefined(elements_of(status, dt));
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Get_elements_c)
int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    empi_datatype_t *dt;
    EMPI_CHECK(query_args("MPI_Get_elements_c", status, datatype, count, &dt));
    *count = elements_of(status, dt);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Get_elements_x)
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    empi_datatype_t *dt;
    EMPI_CHECK(query_args("MPI_Get_elements_x", status, datatype, count, &dt));
    *count = elements_of(status, dt);
    return MPI_SUCCESS;
}

static int set_elements(const char *fname, MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    empi_datatype_t *dt;
    EMPI_CHECK(status_type(fname, status, datatype, &dt));
    if (count < 0)
        return empi_err_noobj(MPI_ERR_COUNT, "%s: count %lld is negative", fname, (long long)count);
    empi_status_set_bytes(status, bytes_for_elements(dt, count));
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Status_set_elements)
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}

EMPI_WEAK_ALIAS(Status_set_elements_c)
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}

EMPI_WEAK_ALIAS(Status_set_elements_x)
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}
