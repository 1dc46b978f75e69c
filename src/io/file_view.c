/*
 * File views. A view is a displacement, an etype and a filetype tiled from the displacement on;
 * the process sees only the filetype's data bytes, as one stream. The filetype is flattened once,
 * at MPI_File_set_view, into byte runs (the datatype engine's empi_dt_flatten) with their stream
 * prefix sums, so mapping a stream position to a file offset is a division and a binary search,
 * and walking a range of the stream yields the file extents it covers in order.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/global.h"
#include "io/io.h"

void empi_view_free(empi_io_view_t *v)
{
    free(v->rdisp);
    free(v->rlen);
    free(v->rprefix);
    if (v->etype)
        empi_datatype_release(v->etype);
    if (v->filetype)
        empi_datatype_release(v->filetype);
    memset(v, 0, sizeof *v);
}

/* The file side of v from the file images of its etype and filetype (the types themselves unless
   the representation changes sizes); MPI_SUCCESS or a class with *why set. */
static int view_layout(empi_io_view_t *v, empi_datatype_t *etype, empi_datatype_t *filetype, int writable,
                       const char **why)
{
    if (etype->size <= 0) {
        *why = "the etype holds no data";
        return MPI_ERR_TYPE;
    }
    v->fsize = filetype->size;
    v->fextent = filetype->extent;
    v->esize = etype->size;
    if (v->fsize == 0) /* a process that owns no part of the file (an empty darray block) */
        return MPI_SUCCESS;
    if (filetype->size % etype->size != 0) {
        *why = "the filetype is not made of whole etypes";
        return MPI_ERR_TYPE;
    }
    if (filetype->extent <= 0) {
        *why = "the filetype's extent is not positive, it cannot be tiled";
        return MPI_ERR_TYPE;
    }
    *why = "out of memory";
    if (empi_dt_flatten(filetype, &v->nruns, &v->rdisp, &v->rlen) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    v->rprefix = malloc((size_t)(v->nruns + 1) * sizeof *v->rprefix);
    if (!v->rprefix)
        return MPI_ERR_NO_MEM;
    MPI_Count total = 0;
    for (MPI_Count i = 0; i < v->nruns; i++) {
        /* MPI 4.1, 14.3: nondecreasing; overlapping only when the file is not open for writing */
        if (v->rdisp[i] < 0 || (i > 0 && v->rdisp[i] < v->rdisp[i - 1])) {
            *why = "the filetype's displacements are negative or decreasing";
            return MPI_ERR_TYPE;
        }
        if (writable && i > 0 && v->rdisp[i] < v->rdisp[i - 1] + (MPI_Aint)v->rlen[i - 1]) {
            *why = "the filetype overlaps itself, which a file open for writing does not allow";
            return MPI_ERR_TYPE;
        }
        v->rprefix[i] = total;
        total += v->rlen[i];
    }
    v->rprefix[v->nruns] = total;
    v->contiguous = v->nruns == 1 && v->rdisp[0] == 0 && (MPI_Aint)v->rlen[0] == v->fextent;
    return MPI_SUCCESS;
}

/* Build v (zeroed) from its parts; returns MPI_SUCCESS or a class with *why set. */
static int view_build(empi_io_view_t *v, MPI_Offset disp, empi_datatype_t *etype, empi_datatype_t *filetype,
                      const char *datarep, const empi_datarep_t *rep, int writable, const char **why)
{
    empi_datatype_t *eimage = NULL, *fimage = NULL;
    int rc = empi_datarep_image(rep, etype, &eimage);
    if (rc == MPI_SUCCESS)
        rc = empi_datarep_image(rep, filetype, &fimage);
    if (rc == MPI_SUCCESS)
        rc = view_layout(v, eimage, fimage, writable, why);
    else
        *why = "the data representation gives no file extent for these types";
    if (eimage)
        empi_datatype_release(eimage);
    if (fimage)
        empi_datatype_release(fimage);
    if (rc != MPI_SUCCESS)
        return rc;
    v->disp = disp;
    v->rep = rep;
    snprintf(v->datarep, sizeof v->datarep, "%s", datarep);
    empi_datatype_retain(etype);
    empi_datatype_retain(filetype);
    v->etype = etype;
    v->filetype = filetype;
    return MPI_SUCCESS;
}

int empi_view_init_default(empi_io_view_t *v)
{
    const char *why;
    empi_datatype_t *byte = empi_datatype_get(MPI_BYTE);
    memset(v, 0, sizeof *v);
    return view_build(v, 0, byte, byte, "native", NULL, 0, &why);
}

/* Index i of the run holding stream byte w of one filetype: rprefix[i] <= w < rprefix[i + 1]. */
static MPI_Count run_of(const empi_io_view_t *v, MPI_Count w)
{
    MPI_Count lo = 0, hi = v->nruns - 1;
    while (lo < hi) {
        MPI_Count mid = lo + (hi - lo + 1) / 2;
        if (v->rprefix[mid] <= w)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

MPI_Offset empi_view_file_offset(const empi_io_view_t *v, MPI_Offset pos)
{
    if (v->contiguous)
        return v->disp + pos;
    if (v->fsize == 0)
        return v->disp;
    MPI_Offset inst = pos / v->fsize;
    MPI_Count w = pos % v->fsize;
    MPI_Count i = run_of(v, w);
    return v->disp + inst * v->fextent + v->rdisp[i] + (w - v->rprefix[i]);
}

/* The stream bytes lying before file offset off: the first stream byte at or past it. Stream bytes
   map to nondecreasing file offsets (a filetype's displacements are nonnegative and nondecreasing),
   so a binary search over the stream finds it, whatever the filetype's lower bound: with lb > 0
   its runs lie past its extent, in the next tiles' span (counting runs within one extent put
   MPI_SEEK_END past the end and let collective reads return bytes beyond it). */
MPI_Offset empi_view_stream_before(const empi_io_view_t *v, MPI_Offset off)
{
    if (off <= v->disp)
        return 0;
    MPI_Offset rel = off - v->disp;
    if (v->contiguous || v->fsize == 0)
        return v->contiguous ? rel : 0;
    /* every byte of tile k lies at or past disp + k * fextent (fextent > 0, view_build checks):
       none before off from tile ceil(rel / fextent) on */
    MPI_Offset lo = 0, hi = (rel + v->fextent - 1) / v->fextent * v->fsize;
    while (lo < hi) {
        MPI_Offset mid = lo + (hi - lo) / 2;
        if (empi_view_file_offset(v, mid) < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void empi_view_iter_init(empi_view_iter_t *it, const empi_io_view_t *v, MPI_Offset pos, MPI_Offset len)
{
    it->v = v;
    it->left = v->fsize ? len : 0;
    if (!v->fsize)
        return;
    it->inst = pos / v->fsize;
    MPI_Count w = pos % v->fsize;
    it->run = run_of(v, w);
    it->in_run = w - v->rprefix[it->run];
}

/* The extent at the cursor, at most `want` bytes; moves the cursor past it. */
static void take(empi_view_iter_t *it, MPI_Offset *off, MPI_Offset *len)
{
    const empi_io_view_t *v = it->v;
    *off = v->disp + it->inst * v->fextent + v->rdisp[it->run] + it->in_run;
    MPI_Offset n = v->rlen[it->run] - it->in_run;
    if (n > it->left)
        n = it->left;
    *len = n;
    it->left -= n;
    it->in_run += n;
    if (it->in_run == v->rlen[it->run]) {
        it->in_run = 0;
        if (++it->run == v->nruns) {
            it->run = 0;
            it->inst++;
        }
    }
}

int empi_view_iter_next(empi_view_iter_t *it, MPI_Offset *off, MPI_Offset *len)
{
    if (it->left <= 0)
        return 0;
    if (it->v->contiguous) {
        *off = it->v->disp + it->inst * it->v->fextent + it->in_run;
        *len = it->left;
        it->left = 0;
        return 1;
    }
    take(it, off, len);
    while (it->left > 0) {   /* runs of consecutive filetypes may abut */
        empi_view_iter_t save = *it;
        MPI_Offset o, l;
        take(it, &o, &l);
        if (o != *off + *len) {
            *it = save;
            break;
        }
        *len += l;
    }
    return 1;
}

/* ---- API ---- */

static int check_type(empi_file_t *f, const char *fname, MPI_Datatype h, const char *what, empi_datatype_t **dt)
{
    const char *why = NULL;
    if (empi_datatype_check(h, 0, dt, &why) != MPI_SUCCESS)
        return empi_err_file(f, MPI_ERR_TYPE, "%s: %s: %s", fname, what, why);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_set_view)
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    static const char fname[] = "MPI_File_set_view";
    empi_file_t *f;
    empi_datatype_t *et, *ft;
    EMPI_CHECK(empi_file_check(fh, fname, &f));
    EMPI_CHECK(check_type(f, fname, etype, "etype", &et));
    EMPI_CHECK(check_type(f, fname, filetype, "filetype", &ft));
    if (!datarep)
        return empi_err_file(f, MPI_ERR_UNSUPPORTED_DATAREP, "%s: datarep is NULL", fname);
    const empi_datarep_t *rep;
    if (empi_datarep_find(datarep, &rep) != MPI_SUCCESS)
        return empi_err_file(f, MPI_ERR_UNSUPPORTED_DATAREP, "%s: unknown data representation '%s'", fname, datarep);
    int sequential = (f->amode & MPI_MODE_SEQUENTIAL) != 0;
    if (disp < 0 && !(disp == MPI_DISPLACEMENT_CURRENT && sequential))
        return empi_err_file(f, MPI_ERR_ARG, "%s: displacement %lld is negative%s", fname, (long long)disp,
                             disp == MPI_DISPLACEMENT_CURRENT ? " (MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL)"
                                                              : "");
    empi_info_t *hints = NULL;
    if (info != MPI_INFO_NULL && !(hints = empi_info_get(info)))
        return empi_err_file(f, MPI_ERR_INFO, "%s: invalid info %p", fname, (void *)info);
    if (f->split.active)
        return empi_err_file(f, MPI_ERR_OTHER, "%s: the split collective %s has not been ended", fname,
                             f->split.begin_name);
    /* Every earlier shared-pointer access must land before the pointer is read or reset. */
    int rc = empi_shared_reset(f, -1);
    if (rc != MPI_SUCCESS)
        return empi_err_file(f, rc, "%s: synchronizing the processes failed", fname);
    if (disp == MPI_DISPLACEMENT_CURRENT)
        disp = empi_view_file_offset(&f->view, empi_shared_load(f) * f->view.esize);
    empi_io_view_t v = {0};
    const char *why;
    empi_lock();
    rc = view_build(&v, disp, et, ft, datarep, rep, !(f->amode & MPI_MODE_RDONLY), &why);
    if (rc == MPI_SUCCESS) {
        empi_view_free(&f->view);
        f->view = v;
        f->ind_pos = 0;
        if (hints && empi_file_apply_hints(f, hints) != MPI_SUCCESS)
            rc = MPI_ERR_NO_MEM, why = "out of memory";
    } else {
        empi_view_free(&v);
    }
    empi_unlock();
    /* Collective: every process resets the shared pointer, even one whose view failed. */
    int rc2 = empi_shared_reset(f, 0);
    if (rc != MPI_SUCCESS)
        return empi_err_file(f, rc, "%s: %s", fname, why);
    if (rc2 != MPI_SUCCESS)
        return empi_err_file(f, rc2, "%s: synchronizing the processes failed", fname);
    return MPI_SUCCESS;
}

/* A type handed back by MPI_File_get_view: predefined as is, derived as a new handle to free. */
static int type_out(MPI_Datatype h, MPI_Datatype *out)
{
    empi_datatype_t *dt = empi_datatype_get(h);
    if (dt && dt->predefined) {
        *out = h;
        return MPI_SUCCESS;
    }
    return PMPI_Type_dup(h, out);
}

EMPI_WEAK_ALIAS(File_get_view)
int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep)
{
    static const char fname[] = "MPI_File_get_view";
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, fname, &f));
    if (!disp || !etype || !filetype || !datarep)
        return empi_err_file(f, MPI_ERR_ARG, "%s: %s is NULL", fname,
                             !disp ? "disp" : !etype ? "etype" : !filetype ? "filetype" : "datarep");
    if (type_out(f->view.etype->handle, etype) != MPI_SUCCESS ||
        type_out(f->view.filetype->handle, filetype) != MPI_SUCCESS)
        return empi_err_file(f, MPI_ERR_NO_MEM, "%s: cannot duplicate the view's types", fname);
    *disp = f->view.disp;
    strcpy(datarep, f->view.datarep);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_get_byte_offset)
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    static const char fname[] = "MPI_File_get_byte_offset";
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, fname, &f));
    if (!disp)
        return empi_err_file(f, MPI_ERR_ARG, "%s: disp is NULL", fname);
    if (offset < 0)
        return empi_err_file(f, MPI_ERR_ARG, "%s: offset %lld is negative", fname, (long long)offset);
    *disp = empi_view_file_offset(&f->view, offset * f->view.esize);
    return MPI_SUCCESS;
}

static int type_extent(const char *fname, MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    empi_file_t *f;
    empi_datatype_t *dt;
    EMPI_CHECK(empi_file_check(fh, fname, &f));
    if (!extent)
        return empi_err_file(f, MPI_ERR_ARG, "%s: extent is NULL", fname);
    dt = empi_datatype_get(datatype);
    if (!dt)
        return empi_err_file(f, MPI_ERR_TYPE, "%s: invalid datatype", fname);
    int rc = empi_datarep_extent(f->view.rep, dt, extent);
    if (rc != MPI_SUCCESS)
        return empi_err_file(f, rc, "%s: the data representation '%s' gives no extent for this type", fname,
                             f->view.datarep);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_get_type_extent)
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    return type_extent("MPI_File_get_type_extent", fh, datatype, extent);
}

EMPI_WEAK_ALIAS(File_get_type_extent_c)
int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    MPI_Aint e = 0;
    EMPI_CHECK(type_extent("MPI_File_get_type_extent_c", fh, datatype, extent ? &e : NULL));
    *extent = e;
    return MPI_SUCCESS;
}
