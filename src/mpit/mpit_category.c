/*
 * MPI_T categories: "empi" holds one subcategory per layer, and every control and performance
 * variable belongs to exactly one subcategory (the variables' files say which). The set never
 * changes, so MPI_T_category_changed always reports the same number. No category has events.
 */
#include <string.h>

#include "core/global.h"
#include "core/tunables.h"
#include "mpit/mpit.h"

typedef struct category {
    const char *name, *desc;
} category_t;

/* Index 0 is the root; the others are its subcategories. */
static const category_t categories[] = {
    {"empi", "Everything EtherMPI exposes through MPI_T"},
    {"empi_pt2pt", "Point-to-point protocols and their counters"},
    {"empi_progress", "The progress engine: how a waiting process polls and yields"},
    {"empi_shm", "The shared-memory transport"},
    {"empi_coll", "Collective algorithm selection"},
    {"empi_other", "Diagnostics and library state"},
};

#define NCATS ((int)(sizeof categories / sizeof categories[0]))

typedef enum { VAR_CVAR, VAR_PVAR, VAR_CATEGORY, VAR_EVENT } var_kind_t;

static int var_count(var_kind_t kind)
{
    switch (kind) {
    case VAR_CVAR: return empi_tunable_count;
    case VAR_PVAR: return empi_mpit_pvar_count();
    case VAR_CATEGORY: return NCATS;
    default: return 0; /* no event types */
    }
}

/* Does variable (or category) i of `kind` belong directly to category cat? */
static int member(int cat, var_kind_t kind, int i)
{
    switch (kind) {
    case VAR_CVAR: return strcmp(empi_mpit_cvar_category(i), categories[cat].name) == 0;
    case VAR_PVAR: return strcmp(empi_mpit_pvar_category(i), categories[cat].name) == 0;
    case VAR_CATEGORY: return cat == 0 && i > 0;
    default: return 0;
    }
}

static int count_members(int cat, var_kind_t kind)
{
    int n = 0;
    for (int i = 0; i < var_count(kind); i++)
        n += member(cat, kind, i);
    return n;
}

/* The shared body of MPI_T_category_get_cvars/pvars/categories: up to len member indices. */
static int list_members(int cat, int len, int indices[], var_kind_t kind)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat < 0 || cat >= NCATS)
        return empi_mpit_exit(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && !indices))
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    int n = 0;
    for (int i = 0; i < var_count(kind) && n < len; i++)
        if (member(cat, kind, i))
            indices[n++] = i;
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_category_get_num)
int PMPI_T_category_get_num(int *num_cat)
{
    return empi_mpit_report_int(num_cat, NCATS);
}

EMPI_WEAK_ALIAS(T_category_get_info)
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat_index < 0 || cat_index >= NCATS)
        return empi_mpit_exit(MPI_T_ERR_INVALID_INDEX);
    empi_mpit_copy_string(categories[cat_index].name, name, name_len);
    empi_mpit_copy_string(categories[cat_index].desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = count_members(cat_index, VAR_CVAR);
    if (num_pvars)
        *num_pvars = count_members(cat_index, VAR_PVAR);
    if (num_categories)
        *num_categories = count_members(cat_index, VAR_CATEGORY);
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_category_get_num_events)
int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat_index < 0 || cat_index >= NCATS)
        return empi_mpit_exit(MPI_T_ERR_INVALID_INDEX);
    if (!num_events)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    *num_events = count_members(cat_index, VAR_EVENT);
    return empi_mpit_exit(MPI_SUCCESS);
}

EMPI_WEAK_ALIAS(T_category_get_index)
int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    int rc = empi_mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cat_index)
        return empi_mpit_exit(MPI_T_ERR_INVALID);
    for (int i = 0; i < NCATS; i++) {
        if (strcmp(categories[i].name, name) == 0) {
            *cat_index = i;
            return empi_mpit_exit(MPI_SUCCESS);
        }
    }
    return empi_mpit_exit(MPI_T_ERR_INVALID_NAME);
}

EMPI_WEAK_ALIAS(T_category_get_cvars)
int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return list_members(cat_index, len, indices, VAR_CVAR);
}

EMPI_WEAK_ALIAS(T_category_get_pvars)
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return list_members(cat_index, len, indices, VAR_PVAR);
}

EMPI_WEAK_ALIAS(T_category_get_categories)
int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return list_members(cat_index, len, indices, VAR_CATEGORY);
}

EMPI_WEAK_ALIAS(T_category_get_events)
int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    return list_members(cat_index, len, indices, VAR_EVENT);
}

EMPI_WEAK_ALIAS(T_category_changed)
int PMPI_T_category_changed(int *update_number)
{
    return empi_mpit_report_int(update_number, 0);
}
