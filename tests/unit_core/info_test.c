/* Info objects: ordering, replacement, lengths, dup/free, MPI_INFO_ENV. */
#include <string.h>

#include "core/info.h"
#include "unit_core.h"

int main(void)
{
    MPI_Info info, copy;
    int n, flag, len;
    char key[MPI_MAX_INFO_KEY], value[MPI_MAX_INFO_VAL];

    EXPECT_OK(PMPI_Info_create(&info));
    EXPECT_OK(PMPI_Info_set(info, "zeta", "1"));
    EXPECT_OK(PMPI_Info_set(info, "alpha", "two"));
    EXPECT_OK(PMPI_Info_set(info, "zeta", "three"));   /* replace keeps the position */
    EXPECT_OK(PMPI_Info_get_nkeys(info, &n));
    EXPECT(n == 2);
    EXPECT_OK(PMPI_Info_get_nthkey(info, 0, key));
    EXPECT(strcmp(key, "zeta") == 0);
    EXPECT_CLASS(PMPI_Info_get_nthkey(info, 2, key), MPI_ERR_ARG);

    /* get_string: buflen in/out includes the NUL; truncation when short */
    len = 3;
    EXPECT_OK(PMPI_Info_get_string(info, "zeta", &len, value, &flag));
    EXPECT(flag && len == 6 && strcmp(value, "th") == 0);
    len = 0;
    EXPECT_OK(PMPI_Info_get_string(info, "alpha", &len, NULL, &flag));
    EXPECT(flag && len == 4);
    EXPECT_OK(PMPI_Info_get_string(info, "missing", &len, value, &flag));
    EXPECT(!flag);
    EXPECT_OK(PMPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL - 1, value, &flag));
    EXPECT(flag && strcmp(value, "two") == 0);
    EXPECT_OK(PMPI_Info_get_valuelen(info, "zeta", &len, &flag));
    EXPECT(flag && len == 5);

    EXPECT_OK(PMPI_Info_dup(info, &copy));
    EXPECT_OK(PMPI_Info_delete(info, "zeta"));
    EXPECT_CLASS(PMPI_Info_delete(info, "zeta"), MPI_ERR_INFO_NOKEY);
    EXPECT_OK(PMPI_Info_get_nkeys(copy, &n));
    EXPECT(n == 2);

    /* limits */
    char long_key[MPI_MAX_INFO_KEY + 1];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    EXPECT_CLASS(PMPI_Info_set(info, long_key, "v"), MPI_ERR_INFO_KEY);
    EXPECT_CLASS(PMPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
    EXPECT_CLASS(PMPI_Info_set(MPI_INFO_NULL, "k", "v"), MPI_ERR_INFO);
    EXPECT_CLASS(PMPI_Info_set(MPI_INFO_ENV, "k", "v"), MPI_ERR_INFO);

    /* MPI_INFO_ENV has the command and host */
    len = sizeof value;
    EXPECT_OK(PMPI_Info_get_string(MPI_INFO_ENV, "command", &len, value, &flag));
    EXPECT(flag && strstr(value, "info_test") != NULL);
    len = sizeof value;
    EXPECT_OK(PMPI_Info_get_string(MPI_INFO_ENV, "host", &len, value, &flag));
    EXPECT(flag);
    MPI_Info env;
    char *argv[] = {"prog", "-x", "5", NULL};
    EXPECT_OK(PMPI_Info_create_env(3, argv, &env));
    len = sizeof value;
    EXPECT_OK(PMPI_Info_get_string(env, "argv", &len, value, &flag));
    EXPECT(flag && strcmp(value, "-x 5") == 0);

    MPI_Info stale = info;
    EXPECT_OK(PMPI_Info_free(&info));
    EXPECT(info == MPI_INFO_NULL);
    EXPECT_CLASS(PMPI_Info_get_nkeys(stale, &n), MPI_ERR_INFO);
    EXPECT_OK(PMPI_Info_free(&copy));
    EXPECT_OK(PMPI_Info_free(&env));

    /* internal API */
    empi_info_t *i = empi_info_new();
    EXPECT(empi_info_set(i, "k", "v") == MPI_SUCCESS && strcmp(empi_info_lookup(i, "k"), "v") == 0);
    empi_info_t *j = empi_info_dup(i);
    EXPECT(empi_info_remove(i, "k") && !empi_info_lookup(i, "k") && empi_info_lookup(j, "k"));
    empi_info_release(i);
    empi_info_release(j);
    puts("info_test OK");
    return 0;
}
