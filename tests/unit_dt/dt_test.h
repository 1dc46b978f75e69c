/* Shared bits of the datatype unit tests: a check macro and the stubbed error record. */
#ifndef DT_TEST_H
#define DT_TEST_H

#include <stdio.h>
#include <stdlib.h>

extern int dt_last_err_class;
extern char dt_last_err_msg[512];
extern int dt_failures, dt_checks;

#define T_CHECK(cond, ...)                                                  \
    do {                                                                    \
        dt_checks++;                                                        \
        if (!(cond)) {                                                      \
            dt_failures++;                                                  \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
        }                                                                   \
    } while (0)

#define T_OK(call) T_CHECK((call) == MPI_SUCCESS, "%s (last error: %s)", #call, dt_last_err_msg)

#endif
