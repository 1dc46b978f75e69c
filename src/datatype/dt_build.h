/* Helpers shared by the datatype constructors (dt_build.c). */
#ifndef EMPI_DT_BUILD_H
#define EMPI_DT_BUILD_H

#include "datatype/dt_internal.h"

/* Block i: blen[i] copies of olds[i] at byte displacement disp[i]. Takes c (contents). */
int empi_dt_build_blocks(const char *fname, MPI_Count n, const MPI_Aint *disp, const MPI_Count *blen,
                         empi_datatype_t *const *olds, int is_struct, empi_dt_contents_t *c,
                         MPI_Datatype *newtype);
void empi_dt_inherit(empi_datatype_t *dt, const empi_datatype_t *old);
/* Record type i of the contents, retaining it. */
void empi_contents_set_type(empi_dt_contents_t *c, MPI_Count i, empi_datatype_t *t);
int empi_dt_check_out(const char *fname, MPI_Datatype *newtype);
/* MPI_Type_dup: run old's attribute copy callbacks onto dt (frees dt and raises on failure). */
int empi_dt_copy_attrs(const char *fname, empi_datatype_t *old, empi_datatype_t *dt);

/* Index runs selected in one dimension of a global array (subarray, darray). */
typedef struct {
    MPI_Count n;
    MPI_Count *start, *len;
} empi_dim_runs_t;
int empi_dt_build_array(const char *fname, int ndims, const MPI_Count *gsizes, const empi_dim_runs_t *dims,
                        int order, empi_datatype_t *old, empi_dt_contents_t *c, MPI_Datatype *newtype);

#endif
