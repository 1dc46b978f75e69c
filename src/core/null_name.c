/* The names of null handles (declared in core/error.h; a file of its own so the datatype unit tests
   link it without the rest of the error layer). */
#include <string.h>

#include "core/error.h"

int empi_name_of_null(const char *fname, const char *null_name, char *name, int *resultlen)
{
    if (!name || !resultlen)
        return empi_err_noobj(MPI_ERR_ARG, "%s: %s is NULL", fname, name ? "resultlen" : "the name buffer");
    strcpy(name, null_name);
    *resultlen = (int)strlen(null_name);
    return MPI_SUCCESS;
}
