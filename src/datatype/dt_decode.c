/*
 * The decoding interface: MPI_Type_get_envelope(_c) and MPI_Type_get_contents(_c) return the
 * constructor arguments stored at creation (empi_dt_contents_t), in the standard's order.
 * A type made by a large-count constructor keeps its counts in array_of_large_counts, which the
 * int-count calls cannot return.
 */
#include "core/error.h"
#include "core/global.h"
#include "datatype/dt_build.h"

static int decode_type(const char *fname, MPI_Datatype h, empi_datatype_t **dt)
{
    *dt = empi_datatype_get(h);
    if (!*dt)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: datatype is not a valid datatype", fname);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_envelope)
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                           int *combiner)
{
    static const char fname[] = "MPI_Type_get_envelope";
    empi_datatype_t *dt;
    EMPI_CHECK(decode_type(fname, datatype, &dt));
    if (!num_integers || !num_addresses || !num_datatypes || !combiner)
        return empi_err_noobj(MPI_ERR_ARG, "%s: an output argument is NULL", fname);
    const empi_dt_contents_t *c = dt->contents;
    if (!c) {
        *num_integers = *num_addresses = *num_datatypes = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    if (c->nl > 0)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: the datatype was made by a large-count constructor; "
                              "use MPI_Type_get_envelope_c", fname);
    *num_integers = (int)c->ni;
    *num_addresses = (int)c->na;
    *num_datatypes = (int)c->nd;
    *combiner = c->combiner;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_envelope_c)
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
                             MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner)
{
    static const char fname[] = "MPI_Type_get_envelope_c";
    empi_datatype_t *dt;
    EMPI_CHECK(decode_type(fname, datatype, &dt));
    if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes || !combiner)
        return empi_err_noobj(MPI_ERR_ARG, "%s: an output argument is NULL", fname);
    const empi_dt_contents_t *c = dt->contents;
    if (!c) {
        *num_integers = *num_addresses = *num_large_counts = *num_datatypes = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    *num_integers = c->ni;
    *num_addresses = c->na;
    *num_large_counts = c->nl;
    *num_datatypes = c->nd;
    *combiner = c->combiner;
    return MPI_SUCCESS;
}

/* Copy the arguments out; derived types come back as new objects the user frees (MPI 4.1, 5.1.13):
   renaming or freeing one must not touch the type it was built from. */
static int contents(const char *fname, empi_datatype_t *dt, MPI_Count max_i, MPI_Count max_a,
                    MPI_Count max_l, MPI_Count max_d, int *ints, MPI_Aint *addrs, MPI_Count *larges,
                    MPI_Datatype *types)
{
    const empi_dt_contents_t *c = dt->contents;
    if (!c)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: %s is a named datatype and has no contents", fname,
                              dt->name);
    if (max_i < c->ni || max_a < c->na || max_l < c->nl || max_d < c->nd)
        return empi_err_noobj(MPI_ERR_ARG, "%s: the arrays are smaller than MPI_Type_get_envelope says "
                              "(need %lld integers, %lld addresses, %lld large counts, %lld datatypes)",
                              fname, (long long)c->ni, (long long)c->na, (long long)c->nl, (long long)c->nd);
    if ((c->ni && !ints) || (c->na && !addrs) || (c->nl && !larges) || (c->nd && !types))
        return empi_err_noobj(MPI_ERR_ARG, "%s: an output array is NULL", fname);
    for (MPI_Count i = 0; i < c->ni; i++)
        ints[i] = c->ints[i];
    for (MPI_Count i = 0; i < c->na; i++)
        addrs[i] = c->addrs[i];
    for (MPI_Count i = 0; i < c->nl; i++)
        larges[i] = c->larges[i];
    for (MPI_Count i = 0; i < c->nd; i++) {
        types[i] = c->types[i];
        if (!empi_dt_is_named(c->type_objs[i]) && empi_dt_clone(c->type_objs[i], &types[i]) != MPI_SUCCESS) {
            while (i-- > 0)
                if (!empi_dt_is_named(c->type_objs[i]))
                    PMPI_Type_free(&types[i]);
            return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
        }
    }
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Type_get_contents)
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[])
{
    static const char fname[] = "MPI_Type_get_contents";
    empi_datatype_t *dt;
    EMPI_CHECK(decode_type(fname, datatype, &dt));
    if (dt->contents && dt->contents->nl > 0)
        return empi_err_noobj(MPI_ERR_TYPE, "%s: the datatype was made by a large-count constructor; "
                              "use MPI_Type_get_contents_c", fname);
    return contents(fname, dt, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
                    array_of_addresses, NULL, array_of_datatypes);
}

EMPI_WEAK_ALIAS(Type_get_contents_c)
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[])
{
    static const char fname[] = "MPI_Type_get_contents_c";
    empi_datatype_t *dt;
    EMPI_CHECK(decode_type(fname, datatype, &dt));
    return contents(fname, dt, max_integers, max_addresses, max_large_counts, max_datatypes,
                    array_of_integers, array_of_addresses, array_of_large_counts, array_of_datatypes);
}

int empi_dt_each_named(const empi_datatype_t *dt, empi_dt_named_fn fn, void *ctx)
{
    if (empi_dt_is_named(dt) || !dt->contents)
        return fn(ctx, dt);
    for (MPI_Count i = 0; i < dt->contents->nd; i++) {
        int rc = empi_dt_each_named(dt->contents->type_objs[i], fn, ctx);
        if (rc)
            return rc;
    }
    return 0;
}
