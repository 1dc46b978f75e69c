/*
 * MPI_Get_hw_resource_info: a fresh info each call (before MPI_Init too), with the shared-memory
 * resource type that MPI_Comm_split_type(MPI_COMM_TYPE_HW_GUIDED) accepts; splitting by it gives
 * the same groups as MPI_COMM_TYPE_SHARED; a NULL argument is MPI_ERR_ARG.
 */
#include <stdlib.h>
#include <string.h>

#include "empi_test.h"

static long value_of(MPI_Info info, const char *key)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int len = sizeof buf - 1, flag = 0;
    CHECK_MPI(MPI_Info_get_string(info, key, &len, buf, &flag));
    CHECK(flag, "key %s missing", key);
    return strtol(buf, NULL, 10);
}

int main(int argc, char **argv)
{
    MPI_Info before;
    CHECK_MPI(MPI_Get_hw_resource_info(&before));
    CHECK(before != MPI_INFO_NULL, "no info before MPI_Init");
    CHECK_MPI(MPI_Info_free(&before));

    MPI_Init(&argc, &argv);
    MPI_Info a, b;
    CHECK_MPI(MPI_Get_hw_resource_info(&a));
    CHECK_MPI(MPI_Get_hw_resource_info(&b));
    CHECK(a != b, "two calls returned the same info object");
    CHECK(value_of(a, "mpi_shared_memory") == 1, "mpi_shared_memory is not 1");
    long cpus = value_of(a, "ethermpi_cpus"), online = value_of(a, "ethermpi_online_cpus");
    CHECK(cpus >= 1 && cpus <= online, "cpus %ld, online %ld", cpus, online);
    int nkeys;
    CHECK_MPI(MPI_Info_get_nkeys(a, &nkeys));
    CHECK(nkeys == 4, "%d keys, want 4", nkeys);
    /* the user owns it: changing one leaves the other alone */
    CHECK_MPI(MPI_Info_set(a, "mpi_shared_memory", "7"));
    CHECK(value_of(b, "mpi_shared_memory") == 1, "infos share state");

    /* the resource type it names splits like MPI_COMM_TYPE_SHARED */
    MPI_Info hint;
    MPI_Comm guided, shared;
    CHECK_MPI(MPI_Info_create(&hint));
    CHECK_MPI(MPI_Info_set(hint, "mpi_hw_resource_type", "mpi_shared_memory"));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hint, &guided));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
    int result;
    CHECK(guided != MPI_COMM_NULL, "HW_GUIDED split on mpi_shared_memory gave MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_compare(guided, shared, &result));
    CHECK(result == MPI_CONGRUENT, "guided and shared splits differ (%d)", result);
    /* MPI 4.1: RESOURCE_GUIDED takes the same hardware resource type (without mpi_pset_name) */
    MPI_Comm resource;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, hint, &resource));
    CHECK(resource != MPI_COMM_NULL, "RESOURCE_GUIDED split on mpi_shared_memory gave MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_compare(resource, shared, &result));
    CHECK(result == MPI_CONGRUENT, "resource-guided and shared splits differ (%d)", result);
    CHECK_MPI(MPI_Comm_free(&resource));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, MPI_INFO_NULL, &resource));
    CHECK(resource == MPI_COMM_NULL, "RESOURCE_GUIDED without a hint gave a communicator");
    /* unguided: a strict subset (the node) named in the info object, or NULL on a single node */
    MPI_Info named;
    MPI_Comm unguided;
    int world_size, shared_size, flag = 0;
    char kind[64] = "";
    CHECK_MPI(MPI_Info_create(&named));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, named, &unguided));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &world_size));
    CHECK_MPI(MPI_Comm_size(shared, &shared_size));
    if (shared_size == world_size) {
      CHECK(unguided == MPI_COMM_NULL, "HW_UNGUIDED on one node gave a communicator");
    } else {
      CHECK(unguided != MPI_COMM_NULL, "HW_UNGUIDED across nodes gave MPI_COMM_NULL");
      CHECK_MPI(MPI_Comm_compare(unguided, shared, &result));
      CHECK(result == MPI_CONGRUENT, "unguided and shared splits differ (%d)", result);
      int vlen = (int)sizeof kind;
      CHECK_MPI(MPI_Info_get_string(named, "mpi_hw_resource_type", &vlen, kind, &flag));
      CHECK(flag && strcmp(kind, "mpi_shared_memory") == 0, "HW_UNGUIDED named resource '%s'", kind);
      CHECK_MPI(MPI_Comm_free(&unguided));
    }
    CHECK_MPI(MPI_Info_free(&named));

    /* no object involved: raised on MPI_COMM_SELF */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rc = MPI_Get_hw_resource_info(NULL);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL hw_info: class %d, want MPI_ERR_ARG", cls);

    CHECK_MPI(MPI_Comm_free(&guided));
    CHECK_MPI(MPI_Comm_free(&shared));
    CHECK_MPI(MPI_Info_free(&hint));
    CHECK_MPI(MPI_Info_free(&a));
    CHECK_MPI(MPI_Info_free(&b));
    TEST_PASS();
    MPI_Finalize();
    return 0;
}
