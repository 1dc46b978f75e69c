#include "core/tunables.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

empi_tunables_t empi_tunables;

const empi_tunable_desc_t empi_tunable_descs[] = {
#define EMPI_TUNABLE(field, type, def, doc) \
    {#field, "EMPI_" #field, EMPI_TUNABLE_##type, def, doc},
#include "core/tunables.def"
#undef EMPI_TUNABLE
};
const int empi_tunable_count = sizeof(empi_tunable_descs) / sizeof(empi_tunable_descs[0]);

/* Values set through empi_tunable_set, as text; they override the environment. */
static char *overrides[sizeof(empi_tunable_descs) / sizeof(empi_tunable_descs[0])];
static int loaded;

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '-') /* strtoull would take "-1" as 2^64 - 1 */
        return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return -1;
    int shift = 0;
    switch (tolower((unsigned char)*end)) {
    case 'g': shift = 30; end++; break;
    case 'm': shift = 20; end++; break;
    case 'k': shift = 10; end++; break;
    case '\0': break;
    default: return -1;
    }
    if (v > (SIZE_MAX >> shift))
        return -1;
    v <<= shift;
    if (*end && !(tolower((unsigned char)*end) == 'b' && end[1] == '\0'))
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on"))
        *out = 1;
    else if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcasecmp(s, "off"))
        *out = 0;
    else
        return -1;
    return 0;
}

int empi_tunable_switch(const char *s)
{
    int on;
    return s && parse_bool(s, &on) == 0 ? on : -1;
}

/* The env names in the table are built from field names, so upper-case them once here. */
const char *empi_tunable_env_name(int i, char *buf, size_t len)
{
    snprintf(buf, len, "%s", empi_tunable_descs[i].env);
    for (char *p = buf; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    return buf;
}

static void *field_ptr(int i)
{
    static const size_t offsets[] = {
#define EMPI_TUNABLE(field, type, def, doc) offsetof(empi_tunables_t, field),
#include "core/tunables.def"
#undef EMPI_TUNABLE
    };
    return (char *)&empi_tunables + offsets[i];
}

/* A STRING default "a|b|c": the accepted values, the first the default. */
static int is_choice(int i)
{
    return empi_tunable_descs[i].type == EMPI_TUNABLE_STRING && strchr(empi_tunable_descs[i].def, '|');
}

static int choice_ok(const char *choices, const char *text)
{
    size_t n = strlen(text);
    for (const char *c = choices; *c; c += strcspn(c, "|"), c += *c == '|')
        if (strncmp(c, text, n) == 0 && (c[n] == '|' || c[n] == '\0'))
            return 1;
    return 0;
}

const char *empi_tunable_default(int i)
{
    static char *firsts[sizeof(empi_tunable_descs) / sizeof(empi_tunable_descs[0])];
    const char *def = empi_tunable_descs[i].def;
    if (!is_choice(i))
        return def;
    if (!firsts[i] && !(firsts[i] = strndup(def, strcspn(def, "|"))))
        abort();   /* at initialization, a few bytes */
    return firsts[i];
}

static int set_value(int i, const char *text)
{
    void *p = field_ptr(i);
    if (is_choice(i) && !choice_ok(empi_tunable_descs[i].def, text))
        return -1;
    switch (empi_tunable_descs[i].type) {
    case EMPI_TUNABLE_INT: {
        char *end;
        errno = 0;
        long v = strtol(text, &end, 0);
        if (errno || end == text || *end || v < INT_MIN || v > INT_MAX) /* MPI_T reads it as an int */
            return -1;
        *(long *)p = v;
        return 0;
    }
    case EMPI_TUNABLE_SIZE: return parse_size(text, (size_t *)p);
    case EMPI_TUNABLE_BYTES: {
        size_t v;
        if (parse_size(text, &v) != 0 || v == 0)
            return -1;
        *(size_t *)p = v;
        return 0;
    }
    case EMPI_TUNABLE_BOOL: return parse_bool(text, (int *)p);
    case EMPI_TUNABLE_STRING: *(const char **)p = text; return 0;
    }
    return -1;
}

int empi_tunables_load(void)
{
    int rc = 0;
    char name[128];
    for (int i = 0; i < empi_tunable_count; i++) {
        if (set_value(i, empi_tunable_default(i)) != 0)
            abort(); /* a default that does not parse is a bug in tunables.def */
        const char *env = getenv(empi_tunable_env_name(i, name, sizeof name));
        if (overrides[i]) {
            set_value(i, overrides[i]);
            continue;
        }
        if (env && set_value(i, env) != 0) {
            fprintf(stderr, "EtherMPI: ignoring %s=\"%s\": not a valid value (%s %s)\n", name, env,
                    is_choice(i) ? "one of" : "default", empi_tunable_descs[i].def);
            set_value(i, empi_tunable_default(i));
            rc = -1;
        }
    }
    loaded = 1;
    return rc;
}

int empi_tunables_loaded(void)
{
    return loaded;
}

int empi_tunable_find(const char *name)
{
    for (int i = 0; i < empi_tunable_count; i++)
        if (strcmp(empi_tunable_descs[i].name, name) == 0)
            return i;
    return -1;
}

const void *empi_tunable_addr(int i)
{
    return field_ptr(i);
}

int empi_tunable_set(int i, const char *text)
{
    char *copy = strdup(text);
    if (!copy)
        return -1;
    if (set_value(i, copy) != 0) { /* the parsers store nothing on failure */
        free(copy);
        return -1;
    }
    free(overrides[i]); /* a string field now points into `copy`; the old text is unused */
    overrides[i] = copy;
    return 0;
}

int empi_tunable_is_set(int i)
{
    char name[96];
    return overrides[i] != NULL || getenv(empi_tunable_env_name(i, name, sizeof name)) != NULL;
}

void empi_tunable_format(int i, char *buf, size_t len)
{
    const void *p = field_ptr(i);
    switch (empi_tunable_descs[i].type) {
    case EMPI_TUNABLE_INT: snprintf(buf, len, "%ld", *(const long *)p); break;
    case EMPI_TUNABLE_SIZE:
    case EMPI_TUNABLE_BYTES: snprintf(buf, len, "%zu", *(const size_t *)p); break;
    case EMPI_TUNABLE_BOOL: snprintf(buf, len, "%s", *(const int *)p ? "yes" : "no"); break;
    case EMPI_TUNABLE_STRING: snprintf(buf, len, "%s", *(const char *const *)p); break;
    }
}
