/* The MPI_Group_* API: set operations build new world-rank lists and wrap them in groups. */
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "comm/group.h"
#include "core/error.h"
#include "core/global.h"

static int check_group(MPI_Group h, const char *fname, const char *argname, empi_group_t **out)
{
    *out = empi_group_get(h);
    if (!*out)
        return empi_err_noobj(MPI_ERR_GROUP, "%s: %s is not a valid group", fname, argname);
    return MPI_SUCCESS;
}

/* Wrap a list in a group and hand out its handle; empty lists give MPI_GROUP_EMPTY. */
static int make_group(int n, const int *world_ranks, MPI_Group *out, const char *fname)
{
    empi_group_t *g = empi_group_new(n, world_ranks);
    if (!g)
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    *out = g->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Comm_group)
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    empi_comm_t *c;
    EMPI_CHECK(empi_comm_check(comm, "MPI_Comm_group", &c));
    if (!group)
        return empi_err_comm(c, MPI_ERR_ARG, "MPI_Comm_group: group is NULL");
    empi_group_retain(c->group);
    *group = c->group->handle;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Group_size)
int PMPI_Group_size(MPI_Group group, int *size)
{
    empi_group_t *g;
    EMPI_CHECK(check_group(group, "MPI_Group_size", "group", &g));
    if (!size)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Group_size: size is NULL");
    *size = g->size;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Group_rank)
int PMPI_Group_rank(MPI_Group group, int *rank)
{
    empi_group_t *g;
    EMPI_CHECK(check_group(group, "MPI_Group_rank", "group", &g));
    if (!rank)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Group_rank: rank is NULL");
    *rank = g->rank;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Group_free)
int PMPI_Group_free(MPI_Group *group)
{
    if (!group)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Group_free: group is NULL");
    empi_group_t *g;
    EMPI_CHECK(check_group(*group, "MPI_Group_free", "*group", &g));
    empi_group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Group_compare)
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    empi_group_t *a, *b;
    EMPI_CHECK(check_group(group1, "MPI_Group_compare", "group1", &a));
    EMPI_CHECK(check_group(group2, "MPI_Group_compare", "group2", &b));
    if (!result)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Group_compare: result is NULL");
    *result = empi_group_compare(a, b);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Group_translate_ranks)
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[])
{
    empi_group_t *a, *b;
    EMPI_CHECK(check_group(group1, "MPI_Group_translate_ranks", "group1", &a));
    EMPI_CHECK(check_group(group2, "MPI_Group_translate_ranks", "group2", &b));
    if (n < 0)
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Group_translate_ranks: n=%d is negative", n);
    if (n > 0 && (!ranks1 || !ranks2))
        return empi_err_noobj(MPI_ERR_ARG, "MPI_Group_translate_ranks: %s is NULL", ranks1 ? "ranks2" : "ranks1");
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size))
            return empi_err_noobj(MPI_ERR_RANK, "MPI_Group_translate_ranks: ranks1[%d]=%d is not a rank of group1 (size %d)",
                                  i, ranks1[i], a->size);
    empi_group_index_t *ix = empi_group_index_new(b);
    if (!ix)
        return empi_err_noobj(MPI_ERR_NO_MEM, "MPI_Group_translate_ranks: out of memory");
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL
                                                : empi_group_index_lookup(ix, a->world_ranks[ranks1[i]]);
    empi_group_index_free(ix);
    return MPI_SUCCESS;
}

/* ---- incl / excl ---- */

/* Check that ranks[0..n) are valid, distinct ranks of g; fills `seen` (g->size flags). */
static int check_rank_list(const empi_group_t *g, int n, const int ranks[], char *seen, const char *fname)
{
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return empi_err_noobj(MPI_ERR_RANK, "%s: ranks[%d]=%d is not a rank of the group (size %d)", fname, i,
                                  ranks[i], g->size);
        if (seen[ranks[i]])
            return empi_err_noobj(MPI_ERR_RANK, "%s: rank %d appears twice in ranks", fname, ranks[i]);
        seen[ranks[i]] = 1;
    }
    return MPI_SUCCESS;
}

static int incl_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup, int exclude,
                     const char *fname)
{
    empi_group_t *g;
    EMPI_CHECK(check_group(group, fname, "group", &g));
    if (!newgroup)
        return empi_err_noobj(MPI_ERR_ARG, "%s: newgroup is NULL", fname);
    if (n < 0 || n > g->size)
        return empi_err_noobj(MPI_ERR_ARG, "%s: n=%d is not in [0, group size %d]", fname, n, g->size);
    if (n > 0 && !ranks)
        return empi_err_noobj(MPI_ERR_ARG, "%s: ranks is NULL", fname);
    char *seen = calloc((size_t)g->size + 1, 1);
    int *list = malloc(((size_t)g->size + 1) * sizeof *list);
    int rc = MPI_SUCCESS;
    if (!seen || !list)
        rc = empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    if (rc == MPI_SUCCESS)
        rc = check_rank_list(g, n, ranks, seen, fname);
    if (rc == MPI_SUCCESS) {
        int count = 0;
        if (exclude) {
            for (int r = 0; r < g->size; r++)
                if (!seen[r])
                    list[count++] = g->world_ranks[r];
        } else {
            for (int i = 0; i < n; i++)
                list[count++] = g->world_ranks[ranks[i]];
        }
        rc = make_group(count, list, newgroup, fname);
    }
    free(seen);
    free(list);
    return rc;
}

EMPI_WEAK_ALIAS(Group_incl)
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl(group, n, ranks, newgroup, 0, "MPI_Group_incl");
}

EMPI_WEAK_ALIAS(Group_excl)
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl(group, n, ranks, newgroup, 1, "MPI_Group_excl");
}

/* Expand (first, last, stride) triplets into a rank list, checking each rank as incl/excl do. */
static int expand_ranges(const empi_group_t *g, int n, int ranges[][3], int **out, int *out_n, const char *fname)
{
    long long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return empi_err_noobj(MPI_ERR_ARG, "%s: ranges[%d] has stride 0", fname, i);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return empi_err_noobj(MPI_ERR_ARG, "%s: ranges[%d] = (%d, %d, %d) runs away from its last rank", fname, i,
                                  first, last, stride);
        /* only the ranks named must be in the group: last itself may lie beyond the final step */
        long long steps = ((long long)last - first) / stride, final = first + steps * stride;
        if (first < 0 || first >= g->size || final < 0 || final >= g->size)
            return empi_err_noobj(MPI_ERR_RANK, "%s: ranges[%d] = (%d, %d, %d) leaves the group (size %d)", fname, i,
                                  first, last, stride, g->size);
        total += steps + 1;
        if (total > g->size)
            return empi_err_noobj(MPI_ERR_RANK, "%s: the ranges name more ranks than the group has (%d)", fname,
                                  g->size);
    }
    int *list = malloc(((size_t)total + 1) * sizeof *list);
    if (!list)
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    int count = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        long long steps = ((long long)last - first) / stride;
        for (long long k = 0; k <= steps; k++)
            list[count++] = (int)(first + k * stride);
    }
    *out = list;
    *out_n = count;
    return MPI_SUCCESS;
}

static int range_incl_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup, int exclude,
                           const char *fname)
{
    empi_group_t *g;
    EMPI_CHECK(check_group(group, fname, "group", &g));
    if (!newgroup)
        return empi_err_noobj(MPI_ERR_ARG, "%s: newgroup is NULL", fname);
    if (n < 0)
        return empi_err_noobj(MPI_ERR_ARG, "%s: n=%d is negative", fname, n);
    if (n > 0 && !ranges)
        return empi_err_noobj(MPI_ERR_ARG, "%s: ranges is NULL", fname);
    int *list = NULL, count = 0;
    EMPI_CHECK(expand_ranges(g, n, ranges, &list, &count, fname));
    int rc = incl_excl(group, count, list, newgroup, exclude, fname);
    free(list);
    return rc;
}

EMPI_WEAK_ALIAS(Group_range_incl)
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl(group, n, ranges, newgroup, 0, "MPI_Group_range_incl");
}

EMPI_WEAK_ALIAS(Group_range_excl)
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl(group, n, ranges, newgroup, 1, "MPI_Group_range_excl");
}

/* ---- set operations ---- */

typedef enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE } set_op_t;

static int set_operation(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, set_op_t op, const char *fname)
{
    empi_group_t *a, *b;
    EMPI_CHECK(check_group(group1, fname, "group1", &a));
    EMPI_CHECK(check_group(group2, fname, "group2", &b));
    if (!newgroup)
        return empi_err_noobj(MPI_ERR_ARG, "%s: newgroup is NULL", fname);
    int *list = malloc(((size_t)a->size + (size_t)b->size + 1) * sizeof *list);
    empi_group_index_t *in_a = empi_group_index_new(a), *in_b = empi_group_index_new(b);
    int rc;
    if (!list || !in_a || !in_b) {
        rc = empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    } else {
        /* Results keep group1's order, then (union) group2's members not in group1. */
        int count = 0;
        for (int i = 0; i < a->size; i++) {
            int in_both = empi_group_index_lookup(in_b, a->world_ranks[i]) != MPI_UNDEFINED;
            if (op == SET_UNION || (op == SET_INTERSECTION) == in_both)
                list[count++] = a->world_ranks[i];
        }
        if (op == SET_UNION)
            for (int i = 0; i < b->size; i++)
                if (empi_group_index_lookup(in_a, b->world_ranks[i]) == MPI_UNDEFINED)
                    list[count++] = b->world_ranks[i];
        rc = make_group(count, list, newgroup, fname);
    }
    free(list);
    empi_group_index_free(in_a);
    empi_group_index_free(in_b);
    return rc;
}

EMPI_WEAK_ALIAS(Group_union)
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_operation(group1, group2, newgroup, SET_UNION, "MPI_Group_union");
}

EMPI_WEAK_ALIAS(Group_intersection)
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_operation(group1, group2, newgroup, SET_INTERSECTION, "MPI_Group_intersection");
}

EMPI_WEAK_ALIAS(Group_difference)
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_operation(group1, group2, newgroup, SET_DIFFERENCE, "MPI_Group_difference");
}

EMPI_WEAK_ALIAS(Group_toint)
int PMPI_Group_toint(MPI_Group group)
{
    return empi_handle_toint(group);
}

EMPI_WEAK_ALIAS(Group_fromint)
MPI_Group PMPI_Group_fromint(int group)
{
    return (MPI_Group)empi_handle_fromint(group);
}
