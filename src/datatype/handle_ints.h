/* Integer forms of user handles (MPI_Type_toint, MPI_Op_toint and their fromint). */
#ifndef EMPI_HANDLE_INTS_H
#define EMPI_HANDLE_INTS_H

#include "core/object.h"

int empi_handle_toint(void *h);      /* -1 when out of memory */
void *empi_handle_fromint(int v);    /* NULL when v names no handle */

#endif
