/* Minimal assertions for unit tests that run without the MPI runtime. */
#ifndef EMPI_UNIT_CHECK_H
#define EMPI_UNIT_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define UCHECK(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
