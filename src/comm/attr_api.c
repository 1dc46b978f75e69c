/*
 * Attribute API of communicators (with the deprecated MPI-1 names) and datatypes: thin wrappers
 * of the generic code in core/attr.c that find the object and raise errors on it. The predefined
 * attributes (MPI_TAG_UB...) are answered here, from empi_world_attrs.
 */
#include "comm/comm.h"
#include "core/attr.h"
#include "core/error.h"
#include "core/global.h"
#include "datatype/datatype.h"

static int is_predefined_keyval(int keyval)
{
    return keyval >= MPI_TAG_UB && keyval <= MPI_UNIVERSE_SIZE;
}

/*
 * Address of a predefined attribute's value, or NULL when it has none. The standard attaches them
 * to MPI_COMM_WORLD; their values hold for the whole process, so every communicator answers them
 * (programs commonly ask a duplicate for MPI_TAG_UB).
 */
static void *predefined_value(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB: return &empi_world_attrs.tag_ub;
    case MPI_HOST: return &empi_world_attrs.host;
    case MPI_IO: return &empi_world_attrs.io;
    case MPI_WTIME_IS_GLOBAL: return &empi_world_attrs.wtime_is_global;
    case MPI_APPNUM: return empi_world_attrs.has_appnum ? &empi_world_attrs.appnum : NULL;
    case MPI_UNIVERSE_SIZE: return empi_world_attrs.has_universe_size ? &empi_world_attrs.universe_size : NULL;
    case MPI_LASTUSEDCODE: return &empi_error_last_used_code;
    default: return NULL;
    }
}

/* ---- communicators ---- */

static int comm_create_keyval(void (*copy_fn)(void), void (*delete_fn)(void), int *keyval, void *extra_state,
                              const char *fname)
{
    if (!keyval)
        return empi_err_noobj(MPI_ERR_ARG, "%s: keyval is NULL", fname);
    const char *why = "";
    empi_lock();
    int rc = empi_keyval_create(EMPI_ATTR_COMM, copy_fn, delete_fn, extra_state, keyval, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "%s: %s", fname, why);
    return MPI_SUCCESS;
}

static int comm_free_keyval(int *keyval, const char *fname)
{
    if (!keyval)
        return empi_err_noobj(MPI_ERR_ARG, "%s: keyval is NULL", fname);
    const char *why = "";
    int value = *keyval;
    empi_lock();
    int rc = empi_keyval_free(EMPI_ATTR_COMM, keyval, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "%s: keyval %d %s", fname, value, why);
    return MPI_SUCCESS;
}

static int comm_set_attr(MPI_Comm comm, int keyval, void *value, const char *fname)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fname, &c));
    if (is_predefined_keyval(keyval))
        return empi_err_comm(c, MPI_ERR_KEYVAL, "%s: keyval %d is a predefined, read-only attribute", fname, keyval);
    const char *why = "";
    empi_lock();
    int rc = empi_attr_set(EMPI_ATTR_COMM, c->handle, &c->attrs, keyval, value, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "%s: keyval %d %s", fname, keyval, why);
    return MPI_SUCCESS;
}

static int comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag, const char *fname)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fname, &c));
    if (!value || !flag)
        return empi_err_comm(c, MPI_ERR_ARG, "%s: %s is NULL", fname, value ? "flag" : "attribute_val");
    if (is_predefined_keyval(keyval)) {
        void *v = predefined_value(keyval);
        *flag = v != NULL;
        if (v)
            *(void **)value = v;
        return MPI_SUCCESS;
    }
    const char *why = "";
    void *v = NULL;
    empi_lock();
    int rc = empi_attr_get(EMPI_ATTR_COMM, c->attrs, keyval, &v, flag, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "%s: keyval %d %s", fname, keyval, why);
    if (*flag)
        *(void **)value = v;
    return MPI_SUCCESS;
}

static int comm_delete_attr(MPI_Comm comm, int keyval, const char *fname)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, fname, &c));
    if (is_predefined_keyval(keyval))
        return empi_err_comm(c, MPI_ERR_KEYVAL, "%s: keyval %d is a predefined, read-only attribute", fname, keyval);
    const char *why = "";
    empi_lock();
    int rc = empi_attr_delete(EMPI_ATTR_COMM, c->handle, &c->attrs, keyval, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_comm(c, rc, "%s: keyval %d %s", fname, keyval, why);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_create_keyval)
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    return comm_create_keyval((void (*)(void))comm_copy_attr_fn, (void (*)(void))comm_delete_attr_fn, comm_keyval,
                              extra_state, "MPI_Comm_create_keyval");
}

EMPI_WEAK_ALIAS(Keyval_create)
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
    return comm_create_keyval((void (*)(void))copy_fn, (void (*)(void))delete_fn, keyval, extra_state,
                              "MPI_Keyval_create");
}

EMPI_WEAK_ALIAS(Comm_free_keyval)
int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return comm_free_keyval(comm_keyval, "MPI_Comm_free_keyval");
}

EMPI_WEAK_ALIAS(Keyval_free)
int PMPI_Keyval_free(int *keyval)
{
    return comm_free_keyval(keyval, "MPI_Keyval_free");
}

EMPI_WEAK_ALIAS(Comm_set_attr)
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return comm_set_attr(comm, comm_keyval, attribute_val, "MPI_Comm_set_attr");
}

EMPI_WEAK_ALIAS(Attr_put)
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return comm_set_attr(comm, keyval, attribute_val, "MPI_Attr_put");
}

EMPI_WEAK_ALIAS(Comm_get_attr)
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return comm_get_attr(comm, comm_keyval, attribute_val, flag, "MPI_Comm_get_attr");
}

EMPI_WEAK_ALIAS(Attr_get)
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return comm_get_attr(comm, keyval, attribute_val, flag, "MPI_Attr_get");
}

EMPI_WEAK_ALIAS(Comm_delete_attr)
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return comm_delete_attr(comm, comm_keyval, "MPI_Comm_delete_attr");
}

EMPI_WEAK_ALIAS(Attr_delete)
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return comm_delete_attr(comm, keyval, "MPI_Attr_delete");
}

/* ---- datatypes ---- */

static int check_type(MPI_Datatype h, const char *fname, empi_datatype_t **out)
{
    *out = empi_datatype_get(h);
    if (!*out)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: invalid datatype %p", fname, (void *)h);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_create_keyval)
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state)
{
    if (!type_keyval)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_create_keyval: type_keyval is NULL");
    const char *why = "";
    empi_lock();
    int rc = empi_keyval_create(EMPI_ATTR_TYPE, (void (*)(void))type_copy_attr_fn,
                                (void (*)(void))type_delete_attr_fn, extra_state, type_keyval, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Type_create_keyval: %s", why);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_free_keyval)
int PMPI_Type_free_keyval(int *type_keyval)
{
    if (!type_keyval)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_free_keyval: type_keyval is NULL");
    const char *why = "";
    int value = *type_keyval;
    empi_lock();
    int rc = empi_keyval_free(EMPI_ATTR_TYPE, type_keyval, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Type_free_keyval: keyval %d %s", value, why);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_set_attr)
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    empi_datatype_t *dt;
    EMPI_CHECK(check_type(datatype, "MPI_Type_set_attr", &dt));
    const char *why = "";
    empi_lock();
    int rc = empi_attr_set(EMPI_ATTR_TYPE, datatype, &dt->attrs, type_keyval, attribute_val, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Type_set_attr: keyval %d %s", type_keyval, why);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_attr)
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    empi_datatype_t *dt;
    EMPI_CHECK(check_type(datatype, "MPI_Type_get_attr", &dt));
    if (!attribute_val || !flag)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Type_get_attr: %s is NULL", flag ? "attribute_val" : "flag");
    const char *why = "";
    void *v = NULL;
    empi_lock();
    int rc = empi_attr_get(EMPI_ATTR_TYPE, dt->attrs, type_keyval, &v, flag, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Type_get_attr: keyval %d %s", type_keyval, why);
    if (*flag)
        *(void **)attribute_val = v;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_delete_attr)
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    empi_datatype_t *dt;
    EMPI_CHECK(check_type(datatype, "MPI_Type_delete_attr", &dt));
    const char *why = "";
    empi_lock();
    int rc = empi_attr_delete(EMPI_ATTR_TYPE, datatype, &dt->attrs, type_keyval, &why);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_noobj(rc, "MPI_Type_delete_attr: keyval %d %s", type_keyval, why);
    return MPI_SUCCESS;
}
