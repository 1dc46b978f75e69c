/* Entry points for empi-info: the tunable registry, read without initializing MPI. */
#include <string.h>

#include "core/tunables.h"

typedef struct empi_info_tunable {
    const char *env, *type, *def, *doc;
    char value[256];
} empi_info_tunable_t;

__attribute__((visibility("default"))) int empi_info_tunable_count(void)
{
    return empi_tunable_count;
}

__attribute__((visibility("default"))) int empi_info_tunable_get(int i, empi_info_tunable_t *out)
{
    static const char *const type_names[] = {"int", "size", "bool", "string"};
    static char env_names[64][96];
    if (i < 0 || i >= empi_tunable_count || i >= 64)
        return -1;
    empi_tunables_load();
    out->env = empi_tunable_env_name(i, env_names[i], sizeof env_names[i]);
    out->type = type_names[empi_tunable_descs[i].type];
    out->def = empi_tunable_descs[i].def;
    out->doc = empi_tunable_descs[i].doc;
    empi_tunable_format(i, out->value, sizeof out->value);
    return 0;
}
