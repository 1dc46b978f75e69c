/* Entry points for empi-info: the tunable registry, read without initializing MPI. */
#include <string.h>

#include "core/tunables.h"

typedef struct empi_info_tunable {
    const char *type, *def, *doc;
    char env[96];
    char value[256];
    int set;   /* given in the environment or through MPI_T */
} empi_info_tunable_t;

__attribute__((visibility("default"))) int empi_info_tunable_count(void)
{
    return empi_tunable_count;
}

__attribute__((visibility("default"))) int empi_info_tunable_get(int i, empi_info_tunable_t *out)
{
    static const char *const type_names[] = {"int", "size", "bool", "string", "bytes"};
    if (i < 0 || i >= empi_tunable_count)
        return -1;
    if (!empi_tunables_loaded())   /* once: a bad value is reported once */
        empi_tunables_load();
    empi_tunable_env_name(i, out->env, sizeof out->env);
    out->set = empi_tunable_is_set(i);
    out->type = type_names[empi_tunable_descs[i].type];
    out->def = empi_tunable_descs[i].def;
    out->doc = empi_tunable_descs[i].doc;
    empi_tunable_format(i, out->value, sizeof out->value);
    return 0;
}
