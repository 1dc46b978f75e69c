/* Group set operations, rank translation, comparison and argument checks. */
#include <string.h>

#include "comm/group.h"
#include "unit_core.h"

static MPI_Group make(int n, const int *world)
{
    return empi_group_new(n, world)->handle;
}

static void expect_members(MPI_Group h, int n, const int *world)
{
    empi_group_t *g = empi_group_get(h);
    EXPECT(g && g->size == n);
    EXPECT(n == 0 || memcmp(g->world_ranks, world, (size_t)n * sizeof(int)) == 0);
}

int main(void)
{
    int w[] = {0, 1, 2, 3, 4, 5, 6, 7};
    MPI_Group all = make(8, w), out, out2;
    int rank, size, cmp;

    /* this process is world rank 1 */
    EXPECT_OK(PMPI_Group_rank(all, &rank));
    EXPECT(rank == 1);
    EXPECT_OK(PMPI_Group_size(MPI_GROUP_EMPTY, &size));
    EXPECT(size == 0);

    int pick[] = {5, 1, 3};
    EXPECT_OK(PMPI_Group_incl(all, 3, pick, &out));
    expect_members(out, 3, (int[]){5, 1, 3});
    EXPECT_OK(PMPI_Group_rank(out, &rank));
    EXPECT(rank == 1);
    EXPECT_OK(PMPI_Group_excl(all, 3, pick, &out2));
    expect_members(out2, 5, (int[]){0, 2, 4, 6, 7});
    EXPECT_OK(PMPI_Group_rank(out2, &rank));
    EXPECT(rank == MPI_UNDEFINED);

    /* set operations keep group1's order, union appends group2's new members */
    MPI_Group u, i, d;
    EXPECT_OK(PMPI_Group_union(out, out2, &u));
    expect_members(u, 8, (int[]){5, 1, 3, 0, 2, 4, 6, 7});
    EXPECT_OK(PMPI_Group_compare(u, all, &cmp));
    EXPECT(cmp == MPI_SIMILAR);
    EXPECT_OK(PMPI_Group_intersection(all, out, &i));
    expect_members(i, 3, (int[]){1, 3, 5});
    EXPECT_OK(PMPI_Group_difference(all, out, &d));
    expect_members(d, 5, (int[]){0, 2, 4, 6, 7});
    EXPECT_OK(PMPI_Group_compare(d, out2, &cmp));
    EXPECT(cmp == MPI_IDENT);
    EXPECT_OK(PMPI_Group_compare(d, out, &cmp));
    EXPECT(cmp == MPI_UNEQUAL);
    MPI_Group none;
    EXPECT_OK(PMPI_Group_intersection(out, out2, &none));
    EXPECT(none == MPI_GROUP_EMPTY);

    /* ranges: (7,1,-3) -> 7 4 1 ; (0,0,1) -> 0 */
    int ranges[2][3] = {{7, 1, -3}, {0, 0, 1}};
    MPI_Group r;
    EXPECT_OK(PMPI_Group_range_incl(all, 2, ranges, &r));
    expect_members(r, 4, (int[]){7, 4, 1, 0});
    EXPECT_OK(PMPI_Group_free(&r));
    EXPECT_OK(PMPI_Group_range_excl(all, 2, ranges, &r));
    expect_members(r, 4, (int[]){2, 3, 5, 6});

    /* translate, with MPI_PROC_NULL and members missing from group2 */
    int from[] = {0, 1, 2, MPI_PROC_NULL}, to[4];
    EXPECT_OK(PMPI_Group_translate_ranks(out, 4, from, all, to));
    EXPECT(to[0] == 5 && to[1] == 1 && to[2] == 3 && to[3] == MPI_PROC_NULL);
    EXPECT_OK(PMPI_Group_translate_ranks(out, 3, from, out2, to));
    EXPECT(to[0] == MPI_UNDEFINED && to[1] == MPI_UNDEFINED && to[2] == MPI_UNDEFINED);

    /* argument checks */
    int dup[] = {1, 1};
    EXPECT_CLASS(PMPI_Group_incl(all, 2, dup, &r), MPI_ERR_RANK);
    int beyond[] = {8};
    EXPECT_CLASS(PMPI_Group_incl(all, 1, beyond, &r), MPI_ERR_RANK);
    EXPECT_CLASS(PMPI_Group_excl(all, -1, beyond, &r), MPI_ERR_ARG);
    int zero_stride[1][3] = {{0, 3, 0}};
    EXPECT_CLASS(PMPI_Group_range_incl(all, 1, zero_stride, &r), MPI_ERR_ARG);
    int overlap[2][3] = {{0, 3, 1}, {2, 2, 1}};
    EXPECT_CLASS(PMPI_Group_range_excl(all, 2, overlap, &r), MPI_ERR_RANK);
    EXPECT_CLASS(PMPI_Group_size(MPI_GROUP_NULL, &size), MPI_ERR_GROUP);
    int bad_from[] = {3};
    EXPECT_CLASS(PMPI_Group_translate_ranks(out, 1, bad_from, all, to), MPI_ERR_RANK);

    /* freed handles read as invalid */
    MPI_Group stale = d;
    EXPECT_OK(PMPI_Group_free(&d));
    EXPECT(d == MPI_GROUP_NULL);
    EXPECT_CLASS(PMPI_Group_size(stale, &size), MPI_ERR_GROUP);
    puts("group_test OK");
    return 0;
}
