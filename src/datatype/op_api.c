/* MPI_Op_* calls and MPI_Reduce_local: user operations and the local reduction entry point. */
#include "core/error.h"
#include "core/global.h"
#include "comm/comm.h"
#include "datatype/op_internal.h"

static empi_pool_t op_pool = EMPI_POOL_INITIALIZER(empi_op_t, "op");

static int op_create(const char *fname, MPI_User_function *fn, MPI_User_function_c *fn_c,
                     int commute, MPI_Op *op)
{
    if (!fn && !fn_c)
        return empi_err_noobj(MPI_ERR_ARG, "%s: user_fn is NULL", fname);
    if (!op)
        return empi_err_noobj(MPI_ERR_ARG, "%s: op is NULL", fname);
    empi_lock();
    empi_op_t *o = empi_pool_alloc(&op_pool);
    empi_unlock();
    if (!o)
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    o->obj.magic = EMPI_MAGIC_OP;
    o->obj.refcount = 1;
    o->handle = (MPI_Op)o;
    o->commutative = commute != 0;
    o->user_fn = fn;
    o->user_fn_c = fn_c;
    *op = o->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Op_create)
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

EMPI_WEAK_ALIAS(Op_create_c)
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}

EMPI_WEAK_ALIAS(Op_free)
int PMPI_Op_free(MPI_Op *op)
{
    if (!op)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Op_free: op is NULL");
    empi_op_t *o = empi_op_get(*op);
    if (!o)
        return empi_err_noobj(MPI_ERR_OP, "MPI_Op_free: op is not a valid operation");
    if (o->predefined)
        return empi_err_noobj(MPI_ERR_OP, "MPI_Op_free: op is a predefined operation");
    empi_lock();
    empi_pool_free(&op_pool, o);
    empi_unlock();
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Op_commutative)
int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    empi_op_t *o = empi_op_get(op);
    if (!o)
        return empi_err_noobj(MPI_ERR_OP, "MPI_Op_commutative: op is not a valid operation");
    if (!commute)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Op_commutative: commute is NULL");
    *commute = o->commutative;
    return MPI_SUCCESS;
}

static int reduce_local(const char *fname, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op)
{
    empi_op_t *o = empi_op_get(op);
    if (!o)
        return empi_err_noobj(MPI_ERR_OP, "%s: op is not a valid operation", fname);
    empi_datatype_t *dt;
    const char *why;
    int rc = empi_datatype_check(datatype, count, &dt, &why);
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "%s: %s", fname, why);
    if (count > 0 && (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE))
        return empi_err_noobj(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed", fname);
    if (empi_buffer_missing(inbuf, count, dt) || empi_buffer_missing(inoutbuf, count, dt))
        return empi_err_noobj(MPI_ERR_BUFFER, "%s: %s is NULL with %lld elements", fname,
                              empi_buffer_missing(inbuf, count, dt) ? "inbuf" : "inoutbuf", (long long)count);
    if (empi_op_check_reduce(o, dt) != MPI_SUCCESS)
        return empi_err_noobj(MPI_ERR_OP, "%s: the operation is not defined for datatype %s", fname,
                              dt->name[0] ? dt->name : "(derived)");
    rc = empi_op_apply(o, inbuf, inoutbuf, count, dt);
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "%s: reduction failed", fname);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Reduce_local)
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

EMPI_WEAK_ALIAS(Reduce_local_c)
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}

EMPI_WEAK_ALIAS(Op_toint)
int PMPI_Op_toint(MPI_Op op)
{
    return empi_handle_toint(op);
}

EMPI_WEAK_ALIAS(Op_fromint)
MPI_Op PMPI_Op_fromint(int op)
{
    void *h = empi_handle_fromint(op);
    return h ? (MPI_Op)h : MPI_OP_NULL;
}
