/*
 * The common back end of subarray and darray: a selection of a global array that is, in every
 * dimension, a list of index runs (one run for a subarray, block or undistributed dimension, many
 * for a cyclic one). The type is the cartesian product of the runs, in the array's storage order,
 * resized to the whole array (lb 0, extent = product of sizes * extent of oldtype) as the standard
 * defines both constructors.
 */
#include <stdlib.h>

#include "core/error.h"
#include "datatype/dt_build.h"

int empi_dt_build_array(const char *fname, int ndims, const MPI_Count *gsizes, const empi_dim_runs_t *dims,
                        int order, empi_datatype_t *old, empi_dt_contents_t *c, MPI_Datatype *newtype)
{
    empi_datatype_t *dt = empi_dt_alloc();
    if (!dt) {
        empi_contents_free(c);
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    /* Every offset below is at most the whole array's extent and every size at most the
       selection's: checking those two first keeps the layout arithmetic in range. */
    bool overflow = false;
    MPI_Aint whole = old->extent;
    MPI_Count selected = 1;
    for (int d = 0; d < ndims; d++) {
        MPI_Count in_dim = 0;
        for (MPI_Count j = 0; j < dims[d].n; j++)
            in_dim += dims[d].len[j];
        whole = empi_dt_mul(whole, (MPI_Aint)gsizes[d], &overflow);
        selected = empi_dt_mul(selected, in_dim, &overflow);
    }
    MPI_Count size = empi_dt_mul(selected, old->size, &overflow);
    if (overflow) {
        dt->size = -1;
        return empi_dt_publish(fname, dt, NULL, c, newtype);
    }
    /* walk from the fastest-varying dimension outward */
    empi_dt_layout_t *node = old->layout;
    empi_layout_ref(node);
    MPI_Aint stride = old->extent;       /* bytes between consecutive indices of this dimension */
    MPI_Aint first = 0, last = 0;        /* byte offsets of the first and last selected element */
    for (int k = 0; k < ndims; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        const empi_dim_runs_t *r = &dims[d];
        MPI_Count n = r->n;
        MPI_Aint *disp = malloc((size_t)(n ? n : 1) * sizeof *disp);
        empi_dt_layout_t **kids = malloc((size_t)(n ? n : 1) * sizeof *kids);
        MPI_Aint *kext = malloc((size_t)(n ? n : 1) * sizeof *kext);
        empi_dt_layout_t *next = NULL;
        if (disp && kids && kext) {
            for (MPI_Count j = 0; j < n; j++) {
                disp[j] = (MPI_Aint)r->start[j] * stride;
                kids[j] = node;
                kext[j] = stride;
            }
            next = empi_layout_blocks(n, disp, r->len, kids, kext);
        }
        free(disp), free(kids), free(kext);
        empi_layout_unref(node);
        if (!next) {
            empi_contents_free(c);
            return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fname);
        }
        node = next;
        if (n > 0) {
            first += (MPI_Aint)r->start[0] * stride;
            last += (MPI_Aint)(r->start[n - 1] + r->len[n - 1] - 1) * stride;
        }
        stride *= (MPI_Aint)gsizes[d];
    }
    dt->size = size;
    dt->basic = old->basic;
    dt->basic_count = selected * old->basic_count;
    if (selected > 0) {
        empi_dt_acc_t acc;
        empi_acc_init(&acc);
        empi_acc_add(&acc, old, first, 1);
        empi_acc_add(&acc, old, last, 1);
        dt->true_lb = acc.tlb;
        dt->true_ub = acc.tub;
    }
    dt->lb = 0;
    dt->extent = stride;
    dt->ub = stride;
    dt->align = old->align;
    dt->explicit_bounds = 1;
    return empi_dt_publish(fname, dt, node, c, newtype);
}
