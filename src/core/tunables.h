/* Process-wide tunables: declared in tunables.def, read once from EMPI_* environment variables. */
#ifndef EMPI_TUNABLES_H
#define EMPI_TUNABLES_H

#include <stddef.h>

typedef enum {
    EMPI_TUNABLE_INT,
    EMPI_TUNABLE_SIZE,
    EMPI_TUNABLE_BOOL,
    EMPI_TUNABLE_STRING,
    EMPI_TUNABLE_BYTES,   /* a SIZE that must be at least 1: a length or a capacity */
} empi_tunable_type_t;

typedef struct empi_tunables {
#define EMPI_TUNABLE_INT_FIELD long
#define EMPI_TUNABLE_SIZE_FIELD size_t
#define EMPI_TUNABLE_BYTES_FIELD size_t
#define EMPI_TUNABLE_BOOL_FIELD int
#define EMPI_TUNABLE_STRING_FIELD const char *
#define EMPI_TUNABLE(field, type, def, doc) EMPI_TUNABLE_##type##_FIELD field;
#include "core/tunables.def"
#undef EMPI_TUNABLE
} empi_tunables_t;

extern empi_tunables_t empi_tunables;

/* One entry of the registry, for listing (empi-info) and MPI_T later. */
typedef struct empi_tunable_desc {
    const char *name;     /* field name, e.g. "eager_limit" */
    const char *env;      /* e.g. "EMPI_EAGER_LIMIT" */
    empi_tunable_type_t type;
    const char *def;
    const char *doc;
} empi_tunable_desc_t;

extern const empi_tunable_desc_t empi_tunable_descs[];
/* The default value of tunable i as text: the first of a choice list ("a|b|c"), else def. */
const char *empi_tunable_default(int i);
extern const int empi_tunable_count;

/* Parse the environment into empi_tunables; returns 0, or -1 after printing which variable is bad. */
int empi_tunables_load(void);

/* EMPI_<NAME> of tunable i, upper case. */
const char *empi_tunable_env_name(int i, char *buf, size_t len);

/* Current value of tunable i as text (for listing). */
void empi_tunable_format(int i, char *buf, size_t len);

/* A string tunable that switches something on, off or to automatic: 1 for on (1, yes, true, on),
   0 for off (0, no, false, off), -1 for anything else ("auto"), NULL included. */
int empi_tunable_switch(const char *s);

/* Index of the tunable whose field name is `name`, or -1. */
int empi_tunable_find(const char *name);

/* Address of tunable i's field in empi_tunables (long, size_t, int or const char *, by type). */
const void *empi_tunable_addr(int i);

/*
 * Set tunable i from text, parsed like its environment variable (strings are copied). The value
 * then wins over the environment in later empi_tunables_load calls, so an MPI_T write before
 * MPI_Init survives it. Returns 0, or -1 if the text does not parse (nothing changes).
 */
int empi_tunable_set(int i, const char *text);

/* 1 if tunable i was given a value (its environment variable, or empi_tunable_set). */
int empi_tunable_is_set(int i);

/* Has empi_tunables_load run yet? */
int empi_tunables_loaded(void);

#endif
