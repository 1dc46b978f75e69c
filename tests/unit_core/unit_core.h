/* Tiny assertion helpers for the core unit tests. */
#ifndef EMPI_UNIT_CORE_H
#define EMPI_UNIT_CORE_H
#include <stdio.h>
#include <stdlib.h>

#define EXPECT(cond)                                                               \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

/* An MPI call that must fail with error class `cls`. */
#define EXPECT_CLASS(call, cls)                                                    \
    do {                                                                           \
        int rc_ = (call), class_ = -1;                                             \
        PMPI_Error_class(rc_, &class_);                                            \
        if (rc_ == MPI_SUCCESS || class_ != (cls)) {                               \
            fprintf(stderr, "%s:%d: %s returned %d (class %d), wanted class %d\n", __FILE__, __LINE__, #call, rc_, \
                    class_, cls);                                                  \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

#define EXPECT_OK(call) EXPECT((call) == MPI_SUCCESS)
#endif
