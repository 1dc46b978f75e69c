/*
 * File hints: MPI_File_set_info / MPI_File_get_info and the hints given to MPI_File_open or
 * MPI_File_set_view. The ones we act on are the standard's collective-buffering keys:
 *   collective_buffering  "true"/"false": two-phase aggregation for the *_all calls (default:
 *                         automatic, used when the processes' accesses interleave)
 *   cb_nodes              number of aggregators (default: every process)
 *   cb_buffer_size        bytes an aggregator moves per round (default 4 MiB)
 * Every other key is kept and handed back by MPI_File_get_info, as the standard allows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/global.h"
#include "io/io.h"

#define CB_BUFFER_DEFAULT ((MPI_Offset)4 << 20)

static int parse_bool(const char *v, int dflt)
{
    if (!v)
        return dflt;
    if (!strcmp(v, "true") || !strcmp(v, "enable"))
        return 1;
    if (!strcmp(v, "false") || !strcmp(v, "disable"))
        return 0;
    return dflt;
}

static long long parse_positive(const char *v, long long dflt)
{
    if (!v)
        return dflt;
    char *end;
    long long x = strtoll(v, &end, 10);
    return (*end == '\0' && x > 0) ? x : dflt;
}

/* Record the hint values in use under their keys, so MPI_File_get_info shows them. */
static int record(empi_file_t *f, empi_info_t *used)
{
    char num[32];
    int rc = empi_info_set(used, "collective_buffering", f->cb_write == 0 ? "false" : "true");
    snprintf(num, sizeof num, "%d", f->cb_nodes ? f->cb_nodes : (f->comm ? f->comm->size : 1));
    if (rc == MPI_SUCCESS)
        rc = empi_info_set(used, "cb_nodes", num);
    snprintf(num, sizeof num, "%lld", (long long)f->cb_buffer_size);
    if (rc == MPI_SUCCESS)
        rc = empi_info_set(used, "cb_buffer_size", num);
    if (rc == MPI_SUCCESS && f->filename)
        rc = empi_info_set(used, "filename", f->filename);
    return rc;
}

int empi_file_apply_hints(empi_file_t *f, const empi_info_t *info)
{
    if (!f->info) {   /* first call (open): the defaults */
        f->cb_write = f->cb_read = -1;
        f->cb_nodes = 0;
        f->cb_buffer_size = CB_BUFFER_DEFAULT;
    }
    empi_info_t *used = empi_info_dup(f->info);
    if (!used)
        return MPI_ERR_NO_MEM;
    if (info) {
        const char *cb = empi_info_lookup(info, "collective_buffering");
        f->cb_write = f->cb_read = cb ? parse_bool(cb, -1) : f->cb_write;
        f->cb_nodes = (int)parse_positive(empi_info_lookup(info, "cb_nodes"), f->cb_nodes);
        f->cb_buffer_size = (MPI_Offset)parse_positive(empi_info_lookup(info, "cb_buffer_size"),
                                                       (long long)f->cb_buffer_size);
        for (int i = 0; i < info->nkeys; i++)
            if (empi_info_set(used, info->entries[i].key, info->entries[i].value) != MPI_SUCCESS) {
                empi_info_release(used);
                return MPI_ERR_NO_MEM;
            }
    }
    if (record(f, used) != MPI_SUCCESS) {
        empi_info_release(used);
        return MPI_ERR_NO_MEM;
    }
    empi_info_release(f->info);
    f->info = used;
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_set_info)
int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_set_info", &f));
    empi_info_t *hints = NULL;
    if (info != MPI_INFO_NULL && !(hints = empi_info_get(info)))
        return empi_err_file(f, MPI_ERR_INFO, "MPI_File_set_info: invalid info %p", (void *)info);
    empi_lock();
    int rc = empi_file_apply_hints(f, hints);
    empi_unlock();
    if (rc != MPI_SUCCESS)
        return empi_err_file(f, rc, "MPI_File_set_info: out of memory");
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(File_get_info)
int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    empi_file_t *f;
    EMPI_CHECK(empi_file_check(fh, "MPI_File_get_info", &f));
    if (!info_used)
        return empi_err_file(f, MPI_ERR_ARG, "MPI_File_get_info: info_used is NULL");
    empi_lock();
    empi_info_t *copy = empi_info_used(f->info);
    empi_unlock();
    if (!copy)
        return empi_err_file(f, MPI_ERR_NO_MEM, "MPI_File_get_info: out of memory");
    *info_used = copy->handle;
    return MPI_SUCCESS;
}
